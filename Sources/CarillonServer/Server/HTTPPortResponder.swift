import Hummingbird
import HummingbirdWebSocket

/// What the server's HTTP port answers (besides signaling's WebSocket upgrades): `/join/...` goes to the guest join
/// page, which needs no signature, and everything else to the SigV4-signed control API.
struct HTTPPortResponder: HTTPResponder {
    typealias Context = BasicWebSocketRequestContext

    let joinPage: JoinPageResponder
    let controlAPI: ControlAPIResponder

    func respond(to request: Request, context: Context) async throws -> Response {
        if let path = request.head.path, path.hasPrefix("/join/") {
            return try await joinPage.respond(to: request, context: context)
        }
        return try await controlAPI.respond(to: request, context: context)
    }
}
