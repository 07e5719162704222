/// Per-attendee volume and uplink signal strength for AUDIO_METADATA, read from the `ssrc-audio-level` header
/// extension of received packets without decoding them (sans-IO).
///
/// Call ``report()`` every ``interval``: an attendee's volume is the loudest level of the interval (RFC 6464: 0 is
/// loudest, 127 silent; the same "dB below full scale" AUDIO_METADATA carries), its signal strength 2 when about
/// every packet of the interval arrived, 1 when some did, 0 when none did. A report goes out only when something
/// changed, and then lists everyone, because the client takes attendees left out of a frame as silent.
struct AudioActivityMeter {
    /// How often the meeting reports (the client expects about five volume updates a second).
    static let interval = 200
    /// Packets an interval holds at 50 packets per second, less one for jitter.
    static let packetsForFullStrength = 9

    private struct Entry {
        var loudest: UInt8 = 127
        var packets = 0
    }

    private var entries: [String: Entry] = [:]
    private var lastReport: [String: (volume: UInt32, signal: UInt32)] = [:]

    /// Whether anyone is being measured.
    var isEmpty: Bool { entries.isEmpty }

    /// Starts measuring an attendee (its media connected).
    mutating func add(_ attendeeId: String) {
        if entries[attendeeId] == nil { entries[attendeeId] = Entry() }
    }

    /// Stops measuring an attendee (its media ended).
    mutating func remove(_ attendeeId: String) {
        entries[attendeeId] = nil
        lastReport[attendeeId] = nil
    }

    /// Counts one received audio packet and its level (nil when it carries none: it counts for signal strength only).
    mutating func record(_ attendeeId: String, level: UInt8?) {
        guard var entry = entries[attendeeId] else { return }
        entry.packets += 1
        if let level { entry.loudest = min(entry.loudest, level) }
        entries[attendeeId] = entry
    }

    /// The states of everyone when any changed since the last report, else nil; starts a new interval.
    mutating func report() -> [(attendeeId: String, volume: UInt32?, signalStrength: UInt32?)]? {
        var current: [String: (volume: UInt32, signal: UInt32)] = [:]
        for (attendeeId, entry) in entries {
            let signal: UInt32 = entry.packets >= Self.packetsForFullStrength ? 2 : entry.packets > 0 ? 1 : 0
            current[attendeeId] = (UInt32(entry.loudest), signal)
            entries[attendeeId] = Entry()
        }
        let changed = current.count != lastReport.count || current.contains { attendeeId, state in
            guard let last = lastReport[attendeeId] else { return true }
            return last.volume != state.volume || last.signal != state.signal
        }
        guard changed, !current.isEmpty else { return nil }
        lastReport = current
        return current.sorted { $0.key < $1.key }.map { ($0.key, $0.value.volume, $0.value.signal) }
    }
}
