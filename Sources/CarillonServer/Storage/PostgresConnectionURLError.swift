/// A `--database` URL that cannot be used.
public enum PostgresConnectionURLError: Error, Equatable, CustomStringConvertible {
    /// What is wrong with it.
    case invalid(String)

    /// A readable explanation.
    public var description: String {
        switch self {
        case .invalid(let reason): "--database: \(reason)"
        }
    }
}
