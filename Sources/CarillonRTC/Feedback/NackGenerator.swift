import NIOCore

/// Decides which missing RTP sequence numbers to request again with generic NACK (RFC 4585), sans-IO.
///
/// A gap is requested once it has waited `reorderingGrace` (a late packet is not a loss), then again every round
/// trip until the packet arrives, `maximumRequests` requests were made, or it falls more than `maximumAge` packets
/// behind the newest one.
public struct NackGenerator: Sendable {
    /// How long a gap may be reordering before it is requested.
    public var reorderingGrace: TimeAmount
    /// Requests per missing packet before giving up.
    public var maximumRequests: Int
    /// How far behind the newest packet a missing one may be and still be requested.
    public var maximumAge: Int64

    private struct Missing {
        var firstSeen: NIODeadline
        var lastRequested: NIODeadline?
        var requests = 0
    }

    private var unwrapper = SequenceUnwrapper()
    private var newest: Int64?
    private var missing: [Int64: Missing] = [:]

    /// Creates a generator with WebRTC-like defaults.
    public init(reorderingGrace: TimeAmount = .milliseconds(10), maximumRequests: Int = 10, maximumAge: Int64 = 1000) {
        self.reorderingGrace = reorderingGrace
        self.maximumRequests = maximumRequests
        self.maximumAge = maximumAge
    }

    /// Sequence numbers currently considered missing.
    public var missingCount: Int { missing.count }

    /// The missing sequence numbers, oldest first. Allocates the result.
    public var missingSequenceNumbers: [UInt16] { missing.keys.sorted().map { UInt16(truncatingIfNeeded: $0) } }

    /// The missing sequence numbers not requested yet (still within their reordering grace, or not polled since):
    /// what a receiver's statistics owe no NACK for yet. Allocates the result.
    public var unrequested: [UInt16] {
        missing.filter { $0.value.lastRequested == nil }.keys.sorted().map { UInt16(truncatingIfNeeded: $0) }
    }

    /// Records an arrived packet.
    public mutating func received(sequenceNumber: UInt16, now: NIODeadline) {
        let extended = unwrapper.unwrap(sequenceNumber)
        guard let newest else {
            self.newest = extended
            return
        }
        if extended > newest {
            // Everything skipped over is missing, but never more than the age limit allows.
            for gap in max(newest + 1, extended - maximumAge)..<extended { missing[gap] = Missing(firstSeen: now) }
            self.newest = extended
            // Rebuilt only when an entry aged out: filtering allocates, and this runs for every in-order packet.
            if let oldest = missing.keys.min(), oldest < extended - maximumAge {
                missing = missing.filter { $0.key >= extended - maximumAge }
            }
        } else {
            missing[extended] = nil
        }
    }

    /// The sequence numbers to put in a NACK now, given the current round-trip estimate.
    public mutating func due(now: NIODeadline, roundTrip: TimeAmount) -> [UInt16] {
        var request: [UInt16] = []
        for key in missing.keys.sorted() {
            guard var entry = missing[key] else { continue }
            let ready = entry.lastRequested.map { now - $0 >= roundTrip } ?? (now - entry.firstSeen >= reorderingGrace)
            guard ready else { continue }
            entry.requests += 1
            entry.lastRequested = now
            request.append(UInt16(truncatingIfNeeded: key))
            missing[key] = entry.requests >= maximumRequests ? nil : entry
        }
        return request
    }
}
