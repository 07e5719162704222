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

    /// The access key id that signed `request`, or why it is not authentic.
    public func authenticate(_ request: SigV4Request, now: Date = Date()) -> Result<String, SigV4Error> {
        do {
            return .success(try verifier.verify(request, now: now).accessKeyId)
        } catch {
            return .failure(error)
        }
    }
}
