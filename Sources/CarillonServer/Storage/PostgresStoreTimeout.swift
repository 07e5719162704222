/// The database did not answer in time (it cannot be reached, or refuses the connection's credentials and the pool
/// keeps retrying).
public struct PostgresStoreTimeout: Error, Equatable, CustomStringConvertible {
    /// How long was waited.
    public let seconds: Int64

    /// A readable explanation.
    public var description: String { "no answer within \(seconds) s (is it running and reachable, and the user allowed?)" }
}
