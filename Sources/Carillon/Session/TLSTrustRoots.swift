import CarillonProtocol
import Foundation

/// The certificate authorities a session trusts when its signaling URL is `wss://`: the system's trust store, plus
/// PEM files the app or the operator adds (a private CA, a test CA).
///
/// Sessions created without one (every initialiser of ``DefaultMeetingSession`` that has no `tlsTrustRoots:`) use
/// ``fromEnvironment(_:)``: the system store, plus the PEM bundle named by `CARILLON_CA_FILE` when that is set. The
/// files are read once, when the session is created; a missing or unreadable file makes `start()` throw
/// `MediaError.audioFailedToStart` and logs why.
///
/// Threading: a value; safe anywhere.
public struct TLSTrustRoots: Sendable, Equatable {
    /// The environment variable naming extra trusted PEM files: one path, or several separated by `:`.
    public static let environmentVariable = TrustedCertificateFiles.environmentVariable

    /// PEM files whose certificates are trusted in addition to the system's.
    public var additionalCertificateFiles: [String]

    /// Trusts the system's store and the certificates in `additionalCertificateFiles` (PEM, one or more each).
    public init(additionalCertificateFiles: [String] = []) {
        self.additionalCertificateFiles = additionalCertificateFiles
    }

    /// The system's trust store only.
    public static let system = TLSTrustRoots()

    /// The system's trust store plus the files named by `CARILLON_CA_FILE` in `environment`, if set.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> TLSTrustRoots {
        TLSTrustRoots(additionalCertificateFiles: TrustedCertificateFiles.fromEnvironment(environment))
    }
}
