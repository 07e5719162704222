/// Groups acknowledged packets into send bursts (packets sent within `burstSpan` of a group's first) and gives, for
/// each completed group, how much further apart it arrived than it was sent after the group before it.
///
/// Packets must come in arrival order. Packets sent before the current group's first packet (reordered on the way)
/// are left out. A packet that arrives right behind the group after a delay (within `burstSpan` of its last arrival
/// while the gap since it shrank) joins the group, so a burst released by a queue is not read as a delay drop. A
/// packet that arrives more than ``heldGap`` later than it was sent after the group's last packet starts a group of
/// its own even within `burstSpan` of the group's first send: a receiver that was descheduled (a busy machine) reads
/// everything that came meanwhile at once, and a group holding packets from both sides of that pause would end on a
/// late arrival and read as a delay step, then a drop (an overuse on every stall, none of it a queue).
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
    /// How much later than its send gap a packet may arrive after a group's last packet and still join it by the send
    /// rule: more than any serialisation delay of a packet in a send burst at the bitrates video runs at (a 1200-byte
    /// packet takes 48 ms at 200 kbit/s).
    static let heldGap: Int64 = 50_000_000
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
        let held = (arrival - group.lastArrival) - (send - group.lastSend) > Self.heldGap
        if send - group.firstSend <= burstSpan && !held || joinsBurst(group, send: send, arrival: arrival) {
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

    /// Whether a packet arriving within `burstSpan` of the group's last one belongs to the burst: it closed up on it
    /// (the gap shrank on the way), or it left at the same instant (a pacer lets several go at once; read together
    /// after a pause they have nothing to close up).
    private func joinsBurst(_ group: Group, send: Int64, arrival: Int64) -> Bool {
        let arrivalGap = arrival - group.lastArrival
        let sendGap = send - group.lastSend
        return (arrivalGap - sendGap < 0 || sendGap == 0) && arrivalGap <= burstSpan
            && arrival - group.firstArrival < 100_000_000
    }
}
