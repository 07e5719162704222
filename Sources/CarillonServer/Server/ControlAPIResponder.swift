import CarillonProtocol
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdWebSocket
import Logging
import NIOCore

/// The HTTP face of the control API: collects the body, checks the SigV4 signature, hands the request to
/// ``ControlAPIHandler`` and writes its response.
struct ControlAPIResponder: HTTPResponder {
    typealias Context = BasicWebSocketRequestContext

    let handler: ControlAPIHandler
    let verifier: AccessKeyVerifier
    let maximumBodyBytes: Int
    let logger: Logger
    let metrics: ServerMetrics

    func respond(to request: Request, context: Context) async throws -> Response {
        let (response, operation) = await answer(request)
        metrics.controlAPIRequest(operation: operation?.rawValue ?? "unknown", status: Int(response.status.code))
        return response
    }

    /// The response, and the operation the request named once its signature was checked (nil before that, so an
    /// unauthenticated caller cannot mint label values).
    private func answer(_ request: Request) async -> (Response, ControlAPIOperation?) {
        var request = request
        let target = request.head.path ?? "/"
        let (path, query) = Self.split(target)
        var headers: [(name: String, value: String)] = request.headers.map { ($0.name.canonicalName, $0.value) }
        // HTTP/1 `Host` arrives as the request's authority; SigV4 signs it as the `host` header.
        if let authority = request.head.authority { headers.append(("host", authority)) }
        // Nothing of the body is read for a request that announces too much of it or cannot be authentic.
        let tooLarge = ControlAPIError.badRequest("request body exceeds \(maximumBodyBytes) bytes")
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maximumBodyBytes {
            return (Self.response(tooLarge.render()), nil)
        }
        if let error = verifier.precheck(SigV4Request(method: request.method.rawValue, path: path, query: query,
                                                      headers: headers, body: [])) {
            logger.info("control API request refused: \(error)")
            return (Self.response(ControlAPIError.forbidden(AccessKeyVerifier.refusal(error)).render()), nil)
        }
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maximumBodyBytes)
        } catch {
            return (Self.response(tooLarge.render()), nil)
        }
        let bytes = Array(body.readableBytesView)
        let signed = SigV4Request(method: request.method.rawValue, path: path, query: query, headers: headers, body: bytes)
        switch verifier.authenticate(signed) {
        case .failure(let error):
            logger.info("control API request refused: \(error)")
            return (Self.response(ControlAPIError.forbidden(AccessKeyVerifier.refusal(error)).render()), nil)
        case .success(let accessKeyId):
            let request = ControlAPIRequest(
                method: request.method.rawValue,
                rawPath: path,
                rawQuery: query,
                headers: headers,
                body: bytes,
                accessKeyId: accessKeyId
            )
            let reply = await handler.handle(request)
            let operation = ControlAPIHandler.operation(of: request)
            // Changes at info (what an operator follows: meetings and attendees created and deleted), reads at debug.
            logger.log(level: request.method == "GET" ? .debug : .info,
                       "control API \(operation?.rawValue ?? request.method) \(path): \(reply.status)",
                       metadata: ["accessKeyId": "\(accessKeyId)"])
            return (Self.response(reply), operation)
        }
    }

    static func split(_ target: String) -> (path: String, query: String) {
        guard let mark = target.firstIndex(of: "?") else { return (target, "") }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }

    static func response(_ reply: ControlAPIResponse) -> Response {
        var fields = HTTPFields()
        for (name, value) in reply.headers {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        return Response(
            status: .init(code: reply.status),
            headers: fields,
            body: reply.body.isEmpty ? .init() : .init(byteBuffer: ByteBuffer(bytes: reply.body))
        )
    }
}
