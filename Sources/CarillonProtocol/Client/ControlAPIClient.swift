import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small client of the Chime SDK Meetings REST API as Carillon serves it, signing every request with SigV4.
///
/// It is what the CLI and the tests use; apps may use it from their back ends too. Responses come back as the raw
/// JSON the API returned (so callers can print or decode it with the SDK's `CreateMeetingResponse` and
/// `CreateAttendeeResponse`), or decoded into ``ControlAPI`` models.
///
/// Threading: safe from any task.
public struct ControlAPIClient: Sendable {
    /// Base URL of the API, e.g. `http://127.0.0.1:8080`, possibly with a path prefix.
    public let endpoint: URL
    private let signer: SigV4Signer
    private let session: URLSession

    /// Creates a client for `endpoint` signing with the given key pair.
    public init(endpoint: URL, accessKeyId: String, secretAccessKey: String, region: String = "us-east-1") {
        self.endpoint = endpoint
        self.signer = SigV4Signer(accessKeyId: accessKeyId, secretAccessKey: secretAccessKey, region: region, service: "chime")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        self.session = URLSession(configuration: configuration)
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
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers + signed where name.lowercased() != "host" {
            request.setValue(value, forHTTPHeaderField: name)
        }
        request.httpBody = body
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw ControlAPIClientError(status: 0, code: "ConnectionFailed", message: "\(error.localizedDescription) (\(url))")
        }
        guard let http = response as? HTTPURLResponse else {
            throw ControlAPIClientError(status: 0, code: "InvalidResponse", message: "not an HTTP response")
        }
        guard (200..<300).contains(http.statusCode) else {
            let type = (http.value(forHTTPHeaderField: "x-amzn-ErrorType") ?? "HTTP\(http.statusCode)")
                .split(separator: ":").first.map(String.init) ?? ""
            let body = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            let message = (body?["Message"] ?? body?["message"]) as? String ?? String(decoding: data, as: UTF8.self)
            throw ControlAPIClientError(status: http.statusCode, code: type, message: message)
        }
        return data
    }

    /// Percent-encodes one path segment (ids may hold any character).
    public static func segment(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
