extension AudioMixer {
    /// Identifies one participant within a mixer; the meeting maps its own session or connection ids onto it.
    ///
    /// A plain value, safe to share.
    public struct ParticipantID: Hashable, Comparable, Sendable, CustomStringConvertible {
        /// The number the owner chose.
        public let rawValue: UInt64

        /// Wraps a number.
        public init(_ rawValue: UInt64) { self.rawValue = rawValue }

        /// Orders by the underlying value.
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

        /// `p<number>`, for logs.
        public var description: String { "p\(rawValue)" }
    }
}
