#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// Why a ``MeetingServer`` cannot start.
public enum MeetingServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The advertised host does not resolve to an IPv4 or IPv6 address to announce as the media candidate.
    case unusableMediaAddress(String)
    /// The TLS certificate or key cannot be read or do not belong together; the sentence says which.
    case unusableTLSFiles(String)
    /// A listener's address is taken (another server, or another process, holds it): which listener (`"control API
    /// and signaling (TCP)"`, `"media (UDP)"`, `"metrics and health (TCP)"`), the address, and the
    /// `carillon serve` option that sets it.
    case addressInUse(listener: String, address: String, option: String)
    /// A listener cannot bind its address for another reason (an address this machine does not have, a port it may
    /// not use); `reason` is the system's.
    case cannotListen(listener: String, address: String, option: String, reason: String)
    /// The `--database` PostgreSQL cannot be reached or migrated; `reason` says what happened.
    case databaseUnavailable(database: String, reason: String)

    /// A sentence for logs and errors.
    public var description: String {
        switch self {
        case .unusableMediaAddress(let host): "the advertised host '\(host)' has no IP address to announce for media"
        case .unusableTLSFiles(let reason): reason
        case .addressInUse(let listener, let address, let option):
            "the \(listener) address \(address) is in use (is another server running?): stop it, or choose another "
                + "port with \(option) (0 picks a free one)"
        case .cannotListen(let listener, let address, let option, let reason):
            "cannot listen for \(listener) on \(address) (\(option)): \(reason)"
        case .databaseUnavailable(let database, let reason):
            "the database \(database) (--database) cannot be used: \(reason)"
        }
    }

    /// The error to report for `error`, thrown while binding `listener` on `host:port`: ``addressInUse(listener:address:option:)``
    /// for `EADDRINUSE`, ``cannotListen(listener:address:option:reason:)`` for another system error, `error` itself
    /// otherwise.
    static func binding(_ error: any Error, listener: String, host: String, port: Int, option: String) -> any Error {
        guard let io = error as? IOError else { return error }
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        if io.errnoCode == EADDRINUSE { return addressInUse(listener: listener, address: address, option: option) }
        return cannotListen(listener: listener, address: address, option: option,
                            reason: String(cString: strerror(io.errnoCode)))
    }
}
