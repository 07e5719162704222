import AsyncHTTPClient
import Foundation
import NIOPosix

/// A control-API call that failed: the server's error shape and message, or a transport problem.
public struct ControlAPIClientError: Error, CustomStringConvertible, Sendable {
    /// HTTP status, or 0 when no response arrived.
    public let status: Int
    /// Error shape from `x-amzn-ErrorType` (e.g. `NotFoundException`), or a local reason.
    public let code: String
    /// The server's message.
    public let message: String

    /// Creates an error value.
    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// A process exit status for the kind of failure, so scripts can tell them apart (sysexits.h): 69
    /// (`EX_UNAVAILABLE`) when the server could not be reached, 76 (`EX_PROTOCOL`) for a TLS mismatch or an
    /// untrusted certificate, 77 (`EX_NOPERM`) when the server refused the credentials (401, 403), 1 otherwise.
    public var exitCode: Int32 {
        switch code {
        case "ConnectionRefused", "UnknownHost", "ConnectTimeout", "ConnectionClosed", "Timeout", "ConnectionFailed": 69
        case "NotTLS", "UntrustedCertificate", "InvalidTrustRoots": 76
        default: status == 401 || status == 403 ? 77 : 1
        }
    }

    /// A readable summary of the error.
    public var description: String {
        status == 0 ? "\(code): \(message)" : "\(code) (HTTP \(status)): \(message)"
    }
}

extension ControlAPIClientError {
    /// The error for a request to `endpoint` that got no HTTP response, named by what most likely went wrong and what
    /// to do about it: `ConnectionRefused`, `UnknownHost`, `ConnectTimeout`, `UntrustedCertificate`, `NotTLS` (https
    /// against a plain server), `ConnectionClosed` (often http against a TLS server), `Timeout`, else
    /// `ConnectionFailed` with the underlying error.
    static func transport(_ error: any Error, endpoint: URL) -> ControlAPIClientError {
        let text = String(describing: error)
        let address = endpoint.absoluteString
        let host = endpoint.host ?? address
        func failure(_ code: String, _ message: String) -> ControlAPIClientError {
            ControlAPIClientError(status: 0, code: code, message: message)
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .remoteConnectionClosed:
                return failure("ConnectionClosed", "\(address) closed the connection without answering; if that "
                    + "server serves TLS (carillon serve --tls-cert), use https://")
            case .connectTimeout:
                return failure("ConnectTimeout", "no connection to \(address) within 2 s: check the host and port, "
                    + "and that no firewall drops them")
            case .deadlineExceeded:
                return failure("Timeout", "\(address) accepted the request but did not answer within 30 s")
            default:
                break
            }
        }
        if text.contains("Connection refused") || text.contains("errno: 111") {
            return failure("ConnectionRefused", "nothing listens at \(address) (connection refused): is carillon serve "
                + "running, on this host and port? (--endpoint)")
        }
        if let connection = error as? NIOConnectionError, connection.connectionErrors.isEmpty,
           connection.dnsAError != nil || connection.dnsAAAAError != nil {
            return failure("UnknownHost", "cannot resolve the host \(host) of \(address) (--endpoint)")
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("unableToValidateCertificate") {
            return failure("UntrustedCertificate", "the certificate of \(address) is not trusted here: set "
                + "CARILLON_CA_FILE to the PEM file of the CA that signed it (or its own certificate)")
        }
        if text.contains("WRONG_VERSION_NUMBER") || text.contains("HTTP_REQUEST") || text.contains("PACKET_LENGTH")
            || text.contains("EOF during handshake") || text.contains("uncleanShutdown") {
            return failure("NotTLS", "\(address) does not speak TLS: use http:// (the server has no --tls-cert)")
        }
        return failure("ConnectionFailed", "\(text) (\(address))")
    }
}
