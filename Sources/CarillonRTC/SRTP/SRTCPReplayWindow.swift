/// One SSRC's SRTCP replay window (RFC 3711 §3.4), as libsrtp keeps it so that both implementations accept the same
/// packets: 128 indices from `start`; an index at or past `start + 128` is new and, once accepted, moves the window
/// so that it is the last one inside; an index before `start` is too old.
struct SRTCPReplayWindow {
    /// Indices the window covers (libsrtp's fixed SRTCP window).
    static let size: UInt64 = 128

    private var start: UInt64 = 0
    // Bit k of low (k < 64) or of high (k - 64) is index start + k.
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// Whether `index` (31 bits) may be accepted: not before the window and not already received inside it.
    func allows(_ index: UInt32) -> Bool {
        let index = UInt64(index)
        if index >= start + Self.size { return true }
        if index < start { return false }
        return !isSet(index - start)
    }

    /// Records `index` as received (after it authenticated). Call only for an index ``allows(_:)`` accepted.
    mutating func accept(_ index: UInt32) {
        let offset = UInt64(index) - start
        if offset < Self.size {
            set(offset)
            return
        }
        let shift = offset - (Self.size - 1)
        if shift >= 128 {
            (low, high) = (0, 0)
        } else if shift >= 64 {
            (low, high) = (high >> (shift - 64), 0)
        } else {
            (low, high) = (low >> shift | high << (64 - shift), high >> shift)
        }
        start += shift
        set(Self.size - 1)
    }

    private func isSet(_ offset: UInt64) -> Bool {
        offset < 64 ? low & (1 << offset) != 0 : high & (1 << (offset - 64)) != 0
    }

    private mutating func set(_ offset: UInt64) {
        if offset < 64 { low |= 1 << offset } else { high |= 1 << (offset - 64) }
    }
}
