/// Which camera simulcast layers are sent and at what cap (Chime's `DefaultSimulcastUplinkPolicy`, `policies.md`
/// §3.1), and how the available send bitrate is split over them.
///
/// Three layers are always configured, `low` (÷4), `mid` (÷2) and `hi` (÷1); the table turns them on and off from the
/// meeting's size alone (bandwidth plays no part in the choice): with at most 2 participants only `mid`, unscaled, at
/// the `hi` target; with up to 4 publishers `low` + `hi`; 5–6 publishers `low` at ⅔ of its target + `mid`; 7 or more
/// `low` at ⅔ + `mid` at 0.6 of its target. Targets (kbps) low/mid/hi: 300/600/1200 (HD), 500/1000/2000 (FHD).
/// The available bitrate is then given bottom up (``allocate(_:to:)``): the layers that do not fit are not encoded.
///
/// Pure; O(layers). No state, no threading concerns.
public enum SimulcastUplinkPolicy {
    /// The rids, lowest layer first (the order of `a=simulcast` and of SUBSCRIBE `send_streams`).
    public static let rids = ["low", "mid", "hi"]
    /// The lowest layer sent is worth sending down to this bitrate (bit/s).
    public static let lowestLayerMinimumBitrate = 30_000
    /// A layer above the lowest one sent needs at least this (bit/s).
    public static let upperLayerMinimumBitrate = 150_000

    /// The layers for a meeting of `participants` (INDEX `num_participants`, 0 when unknown) in which `publishers`
    /// attendees send video (the remote publishers plus this one), for a source of `width`×`height` (0 when unknown);
    /// `highResolution` for a meeting whose video maximum is FHD. Always three entries: low, mid, hi.
    public static func layers(participants: Int, publishers: Int, highResolution: Bool, width: Int = 0,
                       height: Int = 0) -> [SimulcastLayerSetting] {
        let (low, mid, hi): (UInt32, UInt32, UInt32) = highResolution ? (500, 1_000, 2_000) : (300, 600, 1_200)
        var settings: [SimulcastLayerSetting]
        if participants > 0, participants <= 2 {
            settings = [.init(rid: "low", scaleDown: 4, maxBitrateKbps: 0),
                        .init(rid: "mid", scaleDown: 1, maxBitrateKbps: hi),
                        .init(rid: "hi", scaleDown: 1, maxBitrateKbps: 0)]
        } else if publishers <= 4 {
            settings = [.init(rid: "low", scaleDown: 4, maxBitrateKbps: low),
                        .init(rid: "mid", scaleDown: 2, maxBitrateKbps: 0),
                        .init(rid: "hi", scaleDown: 1, maxBitrateKbps: hi)]
        } else {
            settings = [.init(rid: "low", scaleDown: 4, maxBitrateKbps: low * 2 / 3),
                        .init(rid: "mid", scaleDown: 2, maxBitrateKbps: publishers <= 6 ? mid : mid * 6 / 10),
                        .init(rid: "hi", scaleDown: 1, maxBitrateKbps: 0)]
        }
        if width > 0, height > 0 {
            for index in settings.indices {
                let size = scaledSize(width: width, height: height, scaleDown: settings[index].scaleDown)
                settings[index].width = size.width
                settings[index].height = size.height
            }
        }
        return settings
    }

    /// The size of a layer that divides `width`×`height` by `scaleDown`: even (I420), at least 2×2.
    public static func scaledSize(width: Int, height: Int, scaleDown: Int) -> (width: Int, height: Int) {
        let divisor = max(1, scaleDown)
        return (max(2, width / divisor & ~1), max(2, height / divisor & ~1))
    }

    /// Splits `available` bit/s over `layers` bottom up: each active layer in turn gets up to its cap from what is
    /// left; a layer above the lowest one sent needs at least its ``SimulcastLayerSetting/minimumBitrate(lowest:)``,
    /// else it and every layer above it get nothing. The lowest active layer always gets at least its minimum.
    /// Returns one bitrate per layer (bit/s, 0: not encoded), in the layers' order.
    public static func allocate(_ available: Int, to layers: [SimulcastLayerSetting]) -> [Int] {
        var result = Array(repeating: 0, count: layers.count)
        var left = max(0, available)
        var first = true
        for (index, layer) in layers.enumerated() where layer.isActive {
            let cap = Int(layer.maxBitrateKbps) * 1_000
            let minimum = layer.minimumBitrate(lowest: first)
            if first {
                result[index] = min(cap, max(minimum, left))
            } else {
                guard left >= minimum else { break }
                result[index] = min(cap, left)
            }
            left = max(0, left - result[index])
            first = false
        }
        return result
    }
}
