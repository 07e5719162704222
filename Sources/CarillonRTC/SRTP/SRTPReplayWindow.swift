/// One SSRC's SRTP packet index (rollover counter and sequence number) and replay window (RFC 3711 §3.3.1,
/// Appendix A), with libsrtp's rules so that both implementations accept and reject the same packets:
///
/// - the index of a sequence number is guessed next to the highest index accepted (the rollover counter stays, or
///   moves one up or down), except that below index 2^15 the rollover counter is taken as 0 (a stream's first
///   packets never count as coming from rollover counter -1);
/// - the window holds the 1024 indices up to the highest; anything older is rejected, as is an index already
///   accepted inside it;
/// - a new stream starts at index 0 with nothing received.
///
/// The window is a 1024-bit ring on the stack of its owner (no heap): index `i` is bit `i mod 1024`.
struct SRTPReplayWindow {
    /// Indices the window remembers, as libsrtp's `window_size` (1024 is also what browsers use).
    static let size = 1024

    /// A sequence number placed in the stream.
    struct Estimate: Equatable {
        /// The 48-bit packet index: rollover counter << 16 | sequence number.
        var index: UInt64
        /// How far `index` is ahead of the highest accepted index (negative: behind).
        var delta: Int

        /// The rollover counter of `index`.
        var rolloverCounter: UInt32 { UInt32(truncatingIfNeeded: index >> 16) }
    }

    /// What the window says about an estimate.
    enum Verdict: Equatable {
        /// Not seen before: accept once authenticated.
        case fresh
        /// Already accepted (a replay, or a sender's retransmission under the same index).
        case repeated
        /// Older than the window remembers.
        case tooOld
    }

    /// The highest index accepted so far (0 before any).
    private(set) var highestIndex: UInt64 = 0
    private var received = InlineArray<16, UInt64>(repeating: 0)

    /// Places `sequenceNumber` next to the highest index accepted.
    func estimate(_ sequenceNumber: UInt16) -> Estimate {
        let sequence = Int(sequenceNumber)
        let half = 1 << 15
        guard highestIndex > UInt64(half) else {
            return Estimate(index: UInt64(sequence), delta: sequence - Int(highestIndex))
        }
        let rolloverCounter = highestIndex >> 16
        let highestSequence = Int(highestIndex & 0xFFFF)
        var guess = rolloverCounter
        var delta = sequence - highestSequence
        if highestSequence < half {
            if delta > half {
                guess = rolloverCounter - 1
                delta -= 1 << 16
            }
        } else if highestSequence - half > sequence {
            guess = rolloverCounter + 1
            delta += 1 << 16
        }
        return Estimate(index: guess << 16 | UInt64(sequence), delta: delta)
    }

    /// Whether `estimate` is new, already seen, or too old.
    func check(_ estimate: Estimate) -> Verdict {
        if estimate.delta > 0 { return .fresh }
        if estimate.delta <= -Self.size { return .tooOld }
        return isReceived(estimate.index) ? .repeated : .fresh
    }

    /// Places a sequence number the sender is about to protect and records it when it is new; nil when it is more
    /// than ``size`` behind the highest sent (a retransmission under an index already sent is placed, not recorded
    /// again). One call, so a window kept in a dictionary is read and updated where it lies.
    mutating func send(_ sequenceNumber: UInt16) -> Estimate? {
        let estimate = estimate(sequenceNumber)
        switch check(estimate) {
        case .tooOld: return nil
        case .repeated: return estimate
        case .fresh:
            accept(estimate)
            return estimate
        }
    }

    /// Records `estimate` as received (after it authenticated), moving the window forward if it is ahead.
    mutating func accept(_ estimate: Estimate) {
        if estimate.delta > 0 {
            // Indices the window moves over were not received.
            for step in 1...min(estimate.delta, Self.size) { setReceived(highestIndex &+ UInt64(step), false) }
            highestIndex = estimate.index
        }
        setReceived(estimate.index, true)
    }

    private func isReceived(_ index: UInt64) -> Bool {
        let bit = Int(index & UInt64(Self.size - 1))
        return received[bit >> 6] & (1 << UInt64(bit & 63)) != 0
    }

    private mutating func setReceived(_ index: UInt64, _ value: Bool) {
        let bit = Int(index & UInt64(Self.size - 1))
        let mask: UInt64 = 1 << UInt64(bit & 63)
        if value { received[bit >> 6] |= mask } else { received[bit >> 6] &= ~mask }
    }
}
