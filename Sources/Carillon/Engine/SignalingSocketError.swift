/// Why a signaling socket could not be set up.
enum SignalingSocketError: Error, Equatable, CustomStringConvertible {
    case invalidURL(String)
    /// A trusted-certificate file could not be read as PEM.
    case unreadableTrustRoots(path: String, reason: String)

    var description: String {
        switch self {
        case .invalidURL(let url): "not a usable signaling URL: \(url)"
        case .unreadableTrustRoots(let path, let reason): "cannot read trusted certificates from \(path): \(reason)"
        }
    }
}
