/// Where `carillon serve` finds its TLS certificate and key, when it serves HTTPS and WSS itself.
///
/// Both files are PEM: the certificate file holds the server's certificate first, then any intermediates. They are
/// read at start and again by ``MeetingServer/reloadTLS()`` (SIGHUP for `carillon serve`), so a renewed certificate
/// takes effect for new connections without a restart; connections already open keep the one they started with.
public struct ServerTLS: Sendable, Equatable {
    /// PEM certificate chain, leaf first.
    public var certificateChainPath: String
    /// PEM private key of the leaf certificate.
    public var privateKeyPath: String

    /// Creates a TLS setting from the two file paths.
    public init(certificateChainPath: String, privateKeyPath: String) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
    }
}
