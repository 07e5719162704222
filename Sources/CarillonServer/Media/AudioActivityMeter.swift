import CarillonRTC

/// Per-attendee volume and uplink signal strength for AUDIO_METADATA, read from the `ssrc-audio-level` header
/// extension and the reception statistics of each attendee's audio stream, without decoding (sans-IO).
///
/// Call ``report(receptions:)`` every ``interval``: an attendee's volume is the loudest level of the interval (RFC
/// 6464: 0 is loudest, 127 silent; the same "dB below full scale" AUDIO_METADATA carries). Its signal strength is 0
/// when nothing arrived for a second, 1 when more than a tenth of the packets its stream's sequence numbers promise
/// went missing in the interval, else 2. Silence sent with Opus DTX (a packet every 400 ms, no sequence gaps) therefore
/// stays at 2, and so does a muted attendee, which sends no audio but an RTCP sender report every second
/// (``recordControl(_:)``). A report goes out only when something changed, and then lists everyone, because the
/// client takes attendees left out of a frame as silent.
///
/// Sequence numbers are counted once, by the session's `RTPReceiveStatistics` (which also make its receiver
/// reports); the meter compares their totals from one report to the next.
struct AudioActivityMeter {
    /// How often the meeting reports (the client expects about five volume updates a second), in milliseconds.
    static let interval = 200
    /// Intervals without a packet after which no audio is arriving.
    static let silentIntervals = 5

    /// An attendee's audio stream as its reception statistics count it: packets expected from its sequence numbers
    /// and packets received, since the stream (its SSRC) began.
    struct Reception: Equatable {
        var ssrc: UInt32
        var expected: UInt64
        var received: UInt64
    }

    private struct Entry {
        var loudest: UInt8 = 127
        var received = 0
        var controlReceived = 0
        /// The attendee's reception at the last report.
        var receptionAtReport: Reception?
        var intervalsWithoutPackets = AudioActivityMeter.silentIntervals

        mutating func record(level: UInt8?) {
            received += 1
            if let level { loudest = min(loudest, level) }
        }
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

    /// Counts one received audio packet and its level (nil when it carries none).
    mutating func record(_ attendeeId: String, level: UInt8?) {
        // In place, one lookup: this runs for every packet.
        entries[attendeeId]?.record(level: level)
    }

    /// Counts an RTCP packet from an attendee: proof its uplink works even when it sends no audio (muted).
    mutating func recordControl(_ attendeeId: String) {
        entries[attendeeId]?.controlReceived += 1
    }

    /// The states of everyone when any changed since the last report, else nil; starts a new interval. `receptions`
    /// gives each attendee's audio reception now (nil before its first packet).
    mutating func report(receptions: (String) -> Reception?)
        -> [(attendeeId: String, volume: UInt32?, signalStrength: UInt32?)]? {
        var current: [String: (volume: UInt32, signal: UInt32)] = [:]
        for (attendeeId, var entry) in entries {
            let alive = entry.received > 0 || entry.controlReceived > 0
            entry.intervalsWithoutPackets = alive ? 0 : min(entry.intervalsWithoutPackets + 1, Self.silentIntervals)
            let reception = receptions(attendeeId)
            let signal: UInt32
            if entry.intervalsWithoutPackets >= Self.silentIntervals {
                signal = 0
            } else if let reception, let before = entry.receptionAtReport, before.ssrc == reception.ssrc,
                      reception.expected > before.expected, entry.received > 0 {
                let expected = reception.expected - before.expected
                let received = reception.received &- before.received
                signal = Double(expected) - Double(received) > 0.1 * Double(expected) ? 1 : 2
            } else {
                // The first packets, or a stream that restarted (a new SSRC): nothing to compare against yet.
                signal = 2
            }
            current[attendeeId] = (UInt32(entry.loudest), signal)
            entry.receptionAtReport = reception
            entry.loudest = 127
            entry.received = 0
            entry.controlReceived = 0
            entries[attendeeId] = entry
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
