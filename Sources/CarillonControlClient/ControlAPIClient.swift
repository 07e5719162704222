import AsyncHTTPClient
import CarillonProtocol
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// A small client of the Chime SDK Meetings REST API as Carillon serves it, signing every request with SigV4.
///
/// It is what the CLI and the tests use; apps may use it from their back ends too. Responses come back as the raw
/// JSON the API returned (so callers can print or decode it with the SDK's `CreateMeetingResponse` and
/// `CreateAttendeeResponse`), or decoded into ``ControlAPI`` models.
///
/// Transport: one AsyncHTTPClient for the process (connections pooled and reused). `https://` endpoints are verified
/// against the system's trust store plus the PEM files given at creation (by default those named by
/// `CARILLON_CA_FILE`, see ``TrustedCertificateFiles``). A connection that cannot be made fails at once (within 2 s
/// at most) with what is wrong and what to do, instead of being retried until the request's 30 s run out: a wrong
/// port, scheme, host or certificate does not heal by waiting.
///
/// Threading: safe from any task.
public struct ControlAPIClient: Sendable {
    /// Base URL of the API, e.g. `http://127.0.0.1:8080`, possibly with a path prefix.
    public let endpoint: URL
    private let signer: SigV4Signer
    /// The TLS configuration of `https` requests, or why the trusted certificates could not be read.
    private let tls: Result<TLSConfiguration, ControlAPIClientError>

    /// Creates a client for `endpoint` signing with the given key pair; `https` trusts the system's store plus
    /// `trustedCertificateFiles` (PEM). An unreadable file makes every request throw `InvalidTrustRoots`.
    public init(endpoint: URL, accessKeyId: String, secretAccessKey: String, region: String = "us-east-1",
                trustedCertificateFiles: [String] = TrustedCertificateFiles.fromEnvironment()) {
        self.endpoint = endpoint
        self.signer = SigV4Signer(accessKeyId: accessKeyId, secretAccessKey: secretAccessKey, region: region, service: "chime")
        var tls = TLSConfiguration.makeClientConfiguration()
        do {
            tls.additionalTrustRoots = try trustedCertificateFiles.map { .certificates(try NIOSSLCertificate.fromPEMFile($0)) }
            self.tls = .success(tls)
        } catch {
            self.tls = .failure(ControlAPIClientError(
                status: 0, code: "InvalidTrustRoots",
                message: "cannot read trusted certificates \(trustedCertificateFiles.joined(separator: ":")): \(error)"))
        }
    }

    /// Sends one request and returns the response body, or throws ``ControlAPIClientError`` for a non-2xx reply.
    ///
    /// - Parameters:
    ///   - method: HTTP method.
    ///   - path: Path below the endpoint, already percent-encoded (e.g. `/meetings/<id>/attendees`).
    ///   - query: Raw query string without `?`, already percent-encoded.
    ///   - body: JSON body, if any.
    public func send(_ method: String, _ path: String, query: String? = nil, body: Data? = nil) async throws -> Data {
        let prefix = endpoint.path.hasSuffix("/") ? String(endpoint.path.dropLast()) : endpoint.path
        let fullPath = prefix + path
        var components = URLComponents()
        components.scheme = endpoint.scheme
        components.host = endpoint.host
        components.port = endpoint.port
        components.percentEncodedPath = fullPath
        if let query, !query.isEmpty { components.percentEncodedQuery = query }
        guard let url = components.url, let host = endpoint.host else {
            throw ControlAPIClientError(status: 0, code: "InvalidEndpoint", message: "cannot build a URL from \(endpoint)")
        }
        let hostHeader = endpoint.port.map { "\(host):\($0)" } ?? host
        var headers: [(name: String, value: String)] = [("Host", hostHeader)]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let signed: [(name: String, value: String)]
        do {
            signed = try signer.sign(
                SigV4Request(method: method, path: fullPath, query: query ?? "", headers: headers,
                             body: Array(body ?? Data())),
                date: Date()
            )
        } catch {
            throw ControlAPIClientError(status: 0, code: "SigningFailed", message: "\(error)")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers + signed where name.lowercased() != "host" {
            request.headers.add(name: name, value: value)
        }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        if url.scheme?.lowercased() == "https" { request.tlsConfiguration = try tls.get() }
        let status: Int
        let errorType: String?
        let data: Data
        do {
            let response = try await Self.httpClient.execute(request, timeout: .seconds(30))
            status = Int(response.status.code)
            errorType = response.headers.first(name: "x-amzn-ErrorType")
            data = Data(try await response.body.collect(upTo: Self.maximumResponseBytes).readableBytesView)
        } catch {
            throw ControlAPIClientError.transport(error, endpoint: endpoint)
        }
        guard (200..<300).contains(status) else {
            let type = (errorType ?? "HTTP\(status)")
                .split(separator: ":").first.map(String.init) ?? ""
            let body = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            let message = (body?["Message"] ?? body?["message"]) as? String ?? String(decoding: data, as: UTF8.self)
            throw ControlAPIClientError(status: status, code: type, message: message)
        }
        return data
    }

    /// The process's HTTP client: connections are not retried (a refused or failed connection fails the request at
    /// once) and take at most 2 s to establish.
    private static let httpClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(2)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// The largest response body read (ListAttendees pages are far smaller); a longer one fails the call.
    static let maximumResponseBytes = 16 << 20

    /// Percent-encodes one path segment (ids may hold any character).
    public static func segment(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
