import CarillonProtocol
import Hummingbird
import HTTPTypes
import HummingbirdWebSocket
import Logging
import NIOCore

/// The HTTP face of guest invites, everything under `/join/`: `GET /join/<invite>` (the meeting page, or a page saying
/// why the link leads nowhere), `GET /join/assets/<name>` (its scripts and style sheet) and `POST /join/<invite>` (a
/// new attendee for the guest, ``ControlAPIHandler/joinAsGuest(invite:body:)``). No signature: the invite in the path
/// is the credential, and it opens nothing else.
struct JoinPageResponder: HTTPResponder {
    typealias Context = BasicWebSocketRequestContext

    let handler: ControlAPIHandler
    let invites: GuestInvites
    let logger: Logger
    let metrics: ServerMetrics

    /// The most a guest's `POST` may carry (a name).
    static let maximumBodyBytes = 4096

    func respond(to request: Request, context: Context) async throws -> Response {
        let path = ControlAPIResponder.split(request.head.path ?? "/").path
        let rest = path.dropFirst("/join/".count)
        let origin = JoinPageFiles.webSocketOrigin(baseURL: invites.baseURL())
        func file(_ status: HTTPResponse.Status, _ file: JoinPageFiles.File) -> Response {
            Self.response(status, JoinPageFiles.headers(contentType: file.contentType, webSocketOrigin: origin), file.bytes)
        }
        func notice(_ status: HTTPResponse.Status, _ title: String, _ message: String) -> Response {
            file(status, JoinPageFiles.File(bytes: JoinPageFiles.errorPage(title: title, message: message),
                                            contentType: "text/html; charset=utf-8"))
        }
        if rest.hasPrefix("assets/") {
            guard request.method == .get || request.method == .head else { return notice(.methodNotAllowed, "Not allowed", "Assets are only read.") }
            guard let asset = JoinPageFiles.assets[String(rest.dropFirst("assets/".count))] else {
                return notice(.notFound, "Not found", "There is no such file.")
            }
            return file(.ok, asset)
        }
        let invite = String(rest)
        guard !invite.isEmpty, !invite.contains("/") else {
            return notice(.notFound, "Not found", "This is not an invite link.")
        }
        switch request.method {
        case .get, .head:
            switch await handler.invitedMeeting(invite) {
            case .success:
                return file(.ok, JoinPageFiles.page)
            case .failure(let error):
                return notice(.init(code: error.status), error.status == 410 || error.status == 404 ? "Cannot join" : "Invalid link",
                              error.message)
            }
        case .post:
            let tooLarge = ControlAPIError.badRequest("request body exceeds \(Self.maximumBodyBytes) bytes")
            var body = ByteBuffer()
            if let length = request.headers[.contentLength].flatMap(Int.init), length > Self.maximumBodyBytes {
                return ControlAPIResponder.response(tooLarge.render())
            }
            do {
                var request = request
                body = try await request.collectBody(upTo: Self.maximumBodyBytes)
            } catch {
                return ControlAPIResponder.response(tooLarge.render())
            }
            let reply = await handler.joinAsGuest(invite: invite, body: Array(body.readableBytesView))
            metrics.controlAPIRequest(operation: ControlAPIOperation.guestJoin.rawValue, status: reply.status)
            logger.log(level: reply.status == 200 ? .info : .debug, "guest join \(invite.prefix(36)): \(reply.status)")
            let pageHeaders = JoinPageFiles.headers(contentType: "application/json", webSocketOrigin: origin)
                .filter { $0.name != "Content-Type" }
            return Self.response(.init(code: reply.status), reply.headers + pageHeaders, reply.body)
        default:
            return notice(.methodNotAllowed, "Not allowed", "An invite link is opened or posted to, nothing else.")
        }
    }

    private static func response(_ status: HTTPResponse.Status, _ headers: [(name: String, value: String)], _ body: [UInt8]) -> Response {
        ControlAPIResponder.response(ControlAPIResponse(status: Int(status.code), headers: headers, body: body))
    }
}
