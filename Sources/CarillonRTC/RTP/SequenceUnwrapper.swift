/// Extends a wrapping RTP counter (16-bit sequence numbers, 32-bit timestamps) to 64 bits across wrap-arounds: a
/// jump of less than half the counter's space is forward, a larger one backward. The one unwrapper of the project:
/// ``SequenceUnwrapper`` and ``TimestampUnwrapper`` are its two uses.
///
/// A value type; keep it with the stream it follows. Inlinable, so the per-packet paths of other modules get it
/// specialised for their counter.
public struct RTPCounterUnwrapper<Counter: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable {
    @usableFromInline var last: Int64?

    /// Starts with no value seen.
    @inlinable public init() {}

    /// The extended value of `value`; the highest extended value seen moves forward only.
    @inlinable public mutating func unwrap(_ value: Counter) -> Int64 {
        guard let last else {
            self.last = Int64(value)
            return Int64(value)
        }
        let span = Int64(1) << Counter.bitWidth
        var delta = Int64(value &- Counter(truncatingIfNeeded: last))
        if delta >= span / 2 { delta -= span }
        let extended = last + delta
        if extended > last { self.last = extended }
        return extended
    }
}

/// Extends 16-bit RTP sequence numbers to 64 bits across wrap-arounds.
public typealias SequenceUnwrapper = RTPCounterUnwrapper<UInt16>

/// Extends 32-bit RTP timestamps to 64 bits across wrap-arounds.
public typealias TimestampUnwrapper = RTPCounterUnwrapper<UInt32>
