import CarillonCrypto
import CCarillonOpenSSL

/// Why a DTLS certificate could not be made or a DTLS association failed.
public enum DTLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An OpenSSL call failed: what was being done and OpenSSL's error queue.
    case openSSL(String)
    /// The peer's certificate does not match the `a=fingerprint` it announced.
    case fingerprintMismatch
    /// The peer's certificate was missing.
    case noPeerCertificate
    /// The peers share no SRTP protection profile (or the peer did not offer `use_srtp`).
    case noSRTPProfile
    /// The peer sent a fatal alert, named as OpenSSL names it (for example "handshake failure").
    case alert(String)
    /// The handshake did not complete in time.
    case timeout
    /// The fingerprint hash algorithm is not one of sha-1, sha-224, sha-256, sha-384, sha-512.
    case unsupportedFingerprintAlgorithm(String)

    public var description: String {
        switch self {
        case .openSSL(let detail): "DTLS: OpenSSL failed: \(detail)"
        case .fingerprintMismatch: "DTLS: the peer certificate does not match its fingerprint"
        case .noPeerCertificate: "DTLS: the peer sent no certificate"
        case .noSRTPProfile: "DTLS: no common SRTP protection profile"
        case .alert(let name): "DTLS: the peer sent a fatal alert: \(name)"
        case .timeout: "DTLS: handshake timed out"
        case .unsupportedFingerprintAlgorithm(let name): "DTLS: unsupported fingerprint algorithm \(name)"
        }
    }

    /// An ``openSSL(_:)`` error for `operation`, emptying the calling thread's OpenSSL error queue into it.
    static func openSSL(draining operation: String) -> DTLSError {
        .openSSL("\(operation): \(drainOpenSSLErrors())")
    }

    /// Empties the calling thread's OpenSSL error queue and returns its entries joined by "; ".
    static func drainOpenSSLErrors() -> String { OpenSSLError.drain() }
}
