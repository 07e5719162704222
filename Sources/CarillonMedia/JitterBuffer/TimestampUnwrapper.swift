/// Extends 32-bit RTP timestamps to 64 bits across wrap-arounds (a jump of less than half the space is forward).
struct TimestampUnwrapper: Sendable {
    private var last: Int64?

    mutating func unwrap(_ value: UInt32) -> Int64 {
        guard let last else {
            self.last = Int64(value)
            return Int64(value)
        }
        let delta = Int64(Int32(bitPattern: value &- UInt32(truncatingIfNeeded: last)))
        let extended = last + delta
        if extended > last { self.last = extended }
        return extended
    }
}
