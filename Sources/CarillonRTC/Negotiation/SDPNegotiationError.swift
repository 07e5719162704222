/// Why a remote description cannot be used.
public enum SDPNegotiationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every m-line is rejected (port 0).
    case noAcceptedMedia
    /// No `a=ice-ufrag` / `a=ice-pwd` for the transport.
    case missingICECredentials
    /// No `a=fingerprint` for the transport.
    case missingFingerprint
    /// An `a=fingerprint` that does not parse.
    case badFingerprint(String)
    /// No m-line of the wanted kind, or none with a codec this side supports.
    case noCommonCodec(String)

    /// A sentence for logs and errors.
    public var description: String {
        switch self {
        case .noAcceptedMedia: "the description accepts no media section"
        case .missingICECredentials: "the description has no ICE credentials"
        case .missingFingerprint: "the description has no DTLS fingerprint"
        case .badFingerprint(let value): "unreadable DTLS fingerprint '\(value)'"
        case .noCommonCodec(let what): "no common codec: \(what)"
        }
    }
}
