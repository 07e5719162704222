import CarillonCrypto
import CarillonProtocol
import HTTPTypes
import Hummingbird
import NIOCore

/// The routes of the operations listener: `/metrics` (Prometheus text format 0.0.4), `/health` (liveness: the process
/// answers) and `/health/ready` (readiness: the API listener is bound and the database answers; 503 otherwise).
///
/// With a token configured, every route answers 401 unless `Authorization: Bearer <token>` matches (compared in
/// constant time).
enum OperationsRouter {
    static func make(
        token: String?,
        metrics: @escaping @Sendable () async -> String,
        ready: @escaping @Sendable () async -> Bool
    ) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: BearerTokenMiddleware(token: token))
        router.get("metrics") { _, _ -> Response in
            let text = await metrics()
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        router.get("health") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        router.get("health/ready") { _, _ -> Response in
            let isReady = await ready()
            return Response(status: isReady ? .ok : .serviceUnavailable, headers: [.contentType: "text/plain"],
                            body: .init(byteBuffer: ByteBuffer(string: isReady ? "ready\n" : "not ready\n")))
        }
        return router
    }
}

/// Refuses requests without the configured bearer token.
struct BearerTokenMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let token: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token else { return try await next(request, context) }
        let given = request.headers[.authorization] ?? ""
        guard ConstantTime.equals(given.utf8, "Bearer \(token)".utf8) else {
            return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"],
                            body: .init(byteBuffer: ByteBuffer(string: "a bearer token is required\n")))
        }
        return try await next(request, context)
    }
}
