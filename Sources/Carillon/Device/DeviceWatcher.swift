/// Notices audio devices appearing and disappearing by comparing successive listings (``DefaultDeviceController``
/// lists every 2 s while it polls: new sound cards are announced by udev, not by ALSA, and Carillon does not use
/// udev).
///
/// Sans-IO: fed listings, it returns the change, once per change. A value type; keep it with its owner.
struct DeviceWatcher: Sendable {
    /// What changed between two listings.
    struct Change: Sendable, Equatable {
        /// Devices in the new listing that were not in the previous one.
        var added: [MediaDevice]
        /// Devices of the previous listing missing from the new one.
        var removed: [MediaDevice]
        /// The new listing, for ``DeviceChangeObserver/audioDeviceDidChange(freshAudioDeviceList:)``.
        var devices: [MediaDevice]
    }

    private var known: [MediaDevice]?

    /// Starts with `initial` as the known listing, or with none (then the first ``update(_:)`` only records).
    init(initial: [MediaDevice]? = nil) {
        known = initial
    }

    /// Records `devices` and returns what changed since the previous listing: nil for the first listing, and when
    /// the same devices are listed again (order does not matter).
    mutating func update(_ devices: [MediaDevice]) -> Change? {
        defer { known = devices }
        guard let known else { return nil }
        let before = Set(known)
        let after = Set(devices)
        guard before != after else { return nil }
        return Change(added: devices.filter { !before.contains($0) }, removed: known.filter { !after.contains($0) },
                      devices: devices)
    }
}
