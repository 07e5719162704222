/// The stand-in rule that picks the simulcast layer a receiver's downlink should carry when the server selects
/// layers: the highest layer whose measured bitrate fits the receiver's estimate shared over its streams, else the
/// lowest. Deliberately minimal: the per-receiver allocator (priorities, targets, pausing) replaces it.
///
/// Pure; O(layers).
enum SimulcastLayerRule {
    /// One selectable layer: its stream id and measured bitrate (bits per second; nil before a measurement).
    struct Layer: Equatable {
        var streamId: UInt32
        var bitrate: Int?
    }

    /// The stream id to carry for `layers` (lowest first) within `budget` bits per second; nil when there is none.
    /// A layer not measured yet counts as fitting only if it is the lowest.
    static func choose(_ layers: [Layer], budget: Int) -> UInt32? {
        var chosen = layers.first?.streamId
        for layer in layers.dropFirst() {
            guard let bitrate = layer.bitrate, bitrate > 0, bitrate <= budget else { continue }
            chosen = layer.streamId
        }
        return chosen
    }
}
