/// Groups acknowledged packets into send bursts (packets sent within `burstSpan` of a group's first) and gives, for
/// each completed group, how much further apart it arrived than it was sent after the group before it.
///
/// Packets must come in arrival order. Packets sent before the current group's first packet (reordered on the way)
/// are left out. A packet that arrives right behind the group after a delay (within `burstSpan` of its last arrival
/// while the gap since it shrank) joins the group, so a burst released by a queue is not read as a delay drop.
struct SendBurstGrouper: Sendable {
    /// A completed pair of consecutive groups.
    struct Delta: Sendable, Equatable {
        /// Time between the groups' last sends, in milliseconds.
        var sendDelta: Double
        /// Time between the groups' last arrivals, in milliseconds.
        var arrivalDelta: Double
        /// Arrival of the newer group's last packet, in nanoseconds on the feedback's clock.
        var arrival: Int64
    }

    private struct Group {
        var firstSend: Int64
        var lastSend: Int64
        var firstArrival: Int64
        var lastArrival: Int64
    }

    let burstSpan: Int64
    private var current: Group?
    private var previous: Group?

    init(burstSpanNanoseconds: Int64 = 5_000_000) {
        burstSpan = burstSpanNanoseconds
    }

    /// Adds one packet; returns the delta when it closes a group that has a predecessor.
    mutating func add(send: Int64, arrival: Int64) -> Delta? {
        guard var group = current else {
            current = Group(firstSend: send, lastSend: send, firstArrival: arrival, lastArrival: arrival)
            return nil
        }
        if send < group.firstSend { return nil }
        if send - group.firstSend <= burstSpan || joinsBurst(group, send: send, arrival: arrival) {
            group.lastSend = max(group.lastSend, send)
            group.lastArrival = max(group.lastArrival, arrival)
            current = group
            return nil
        }
        var delta: Delta?
        if let previous {
            let sendDelta = Double(group.lastSend - previous.lastSend) / 1e6
            let arrivalDelta = Double(group.lastArrival - previous.lastArrival) / 1e6
            // Arrivals going backwards mean the clock or the feedback is confused; skip the pair.
            if arrivalDelta >= 0 { delta = Delta(sendDelta: sendDelta, arrivalDelta: arrivalDelta, arrival: group.lastArrival) }
        }
        previous = group
        current = Group(firstSend: send, lastSend: send, firstArrival: arrival, lastArrival: arrival)
        return delta
    }

    private func joinsBurst(_ group: Group, send: Int64, arrival: Int64) -> Bool {
        let arrivalGap = arrival - group.lastArrival
        let sendGap = send - group.lastSend
        return arrivalGap - sendGap < 0 && arrivalGap <= burstSpan && arrival - group.firstArrival < 100_000_000
    }
}
