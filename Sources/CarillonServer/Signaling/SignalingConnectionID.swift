/// Identifies one signaling WebSocket within the server process.
public struct SignalingConnectionID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The process-unique number of the socket.
    public let rawValue: UInt64

    /// Wraps a socket number.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// Orders by the underlying value.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `#<number>`, for logs.
    public var description: String { "#\(rawValue)" }
}
