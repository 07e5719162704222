/// Extends 16-bit RTP sequence numbers to 64 bits across wrap-arounds (a jump of less than half the space is forward).
///
/// A value type; keep it with the stream it follows.
public struct SequenceUnwrapper: Sendable {
    private var last: Int64?

    /// Starts with no sequence number seen.
    public init() {}

    /// The extended value of `value`; the highest extended value seen moves forward only.
    public mutating func unwrap(_ value: UInt16) -> Int64 {
        guard let last else {
            self.last = Int64(value)
            return Int64(value)
        }
        let delta = Int64(Int16(bitPattern: value &- UInt16(truncatingIfNeeded: last)))
        let extended = last + delta
        if extended > last { self.last = extended }
        return extended
    }
}
