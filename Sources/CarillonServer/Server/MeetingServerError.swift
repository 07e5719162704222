/// Why a ``MeetingServer`` cannot start.
public enum MeetingServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The advertised host does not resolve to an IPv4 or IPv6 address to announce as the media candidate.
    case unusableMediaAddress(String)
    /// The TLS certificate or key cannot be read or do not belong together; the sentence says which.
    case unusableTLSFiles(String)

    /// A sentence for logs and errors.
    public var description: String {
        switch self {
        case .unusableMediaAddress(let host): "the advertised host '\(host)' has no IP address to announce for media"
        case .unusableTLSFiles(let reason): reason
        }
    }
}
