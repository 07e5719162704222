import CarillonProtocol
import Foundation

/// Checks control-API requests' SigV4 signatures against the server's access keys.
public struct AccessKeyVerifier: Sendable {
    private let verifier: SigV4Verifier

    /// Accepts requests signed by any of `keys` for service `chime`, in any region, within five minutes of now.
    public init(keys: [AccessKey]) {
        let secrets = Dictionary(keys.map { ($0.accessKeyId, $0.secretAccessKey) }, uniquingKeysWith: { first, _ in first })
        self.verifier = SigV4Verifier(service: "chime") { secrets[$0] }
    }

    /// Why `request` cannot be authentic whatever its body (see ``SigV4Verifier/precheck(_:)``), or nil.
    public func precheck(_ request: SigV4Request) -> SigV4Error? {
        do {
            try verifier.precheck(request)
            return nil
        } catch {
            return error
        }
    }

    /// What a refused caller is told: an unknown access key and a wrong secret get the same words (which of the two
    /// it was would tell a stranger which key ids exist); the log has the reason.
    public static func refusal(_ error: SigV4Error) -> String {
        switch error {
        case .unknownAccessKey, .signatureMismatch:
            "the request signature does not match an access key of this server"
        default:
            "\(error)"
        }
    }

    /// The access key id that signed `request`, or why it is not authentic.
    public func authenticate(_ request: SigV4Request, now: Date = Date()) -> Result<String, SigV4Error> {
        do {
            return .success(try verifier.verify(request, now: now).accessKeyId)
        } catch {
            return .failure(error)
        }
    }
}
