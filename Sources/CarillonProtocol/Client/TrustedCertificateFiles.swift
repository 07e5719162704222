import Foundation

/// Where the operator names extra certificate authorities to trust, for every TLS client Carillon makes: the SDK's
/// `wss://` signaling and the control-API client.
///
/// `CARILLON_CA_FILE` holds one PEM file path, or several separated by `:`; each file may hold several certificates.
/// They are trusted in addition to the system's store (Debian's `/etc/ssl/certs`).
public enum TrustedCertificateFiles {
    /// The environment variable's name.
    public static let environmentVariable = "CARILLON_CA_FILE"

    /// The files named in `environment` (by default the process's), empty when the variable is unset or blank.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        (environment[environmentVariable] ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
    }
}
