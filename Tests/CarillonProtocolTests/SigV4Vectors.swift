import Foundation
import Testing
@testable import CarillonProtocol

/// One request signed by botocore.
struct SigV4Vector: Sendable, CustomTestStringConvertible {
    let name: String
    let method: String
    let path: String
    let query: String
    let headers: [(String, String)]
    let body: String
    let sessionToken: String?
    let amzDate: String
    let authorization: String

    var testDescription: String { name }

    /// The request as botocore had it at signing time (before any auth headers).
    var unsignedRequest: SigV4Request {
        SigV4Request(method: method, path: path, query: query, headers: headers.map { (name: $0.0, value: $0.1) },
                     body: Array(body.utf8))
    }

    /// The request as it arrives at the server: auth headers plus the headers boto3 adds after signing.
    var receivedRequest: SigV4Request {
        var request = unsignedRequest
        request.headers.append((name: "Accept-Encoding", value: "identity"))
        request.headers.append((name: "X-Amz-Date", value: amzDate))
        if let sessionToken { request.headers.append((name: "X-Amz-Security-Token", value: sessionToken)) }
        request.headers.append((name: "Authorization", value: authorization))
        request.headers.append((name: "amz-sdk-invocation-id", value: "3f1c7a52-6a40-4a4e-9a37-2c1f1b6f9b10"))
        request.headers.append((name: "amz-sdk-request", value: "attempt=1; max=5"))
        if !body.isEmpty || method == "DELETE" {
            request.headers.append((name: "Content-Length", value: String(body.utf8.count)))
        }
        return request
    }
}

enum SigV4Vectors {
    static let accessKeyId = "AKIDEXAMPLE000000000"
    static let secretAccessKey = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    static let region = "eu-west-1"
    /// 2026-11-22T10:42:11Z, the time the vectors were signed at.
    static let signingTime = Date(timeIntervalSince1970: 1_795_344_131)

    // Produced by `python3 scripts/sigv4-vectors.py` (botocore's SigV4Auth with a patched clock); pasted verbatim.
    static let all: [SigV4Vector] = [
        // botocore 1.43.11, region eu-west-1, service chime, time 2026-11-22T10:42:11Z
        SigV4Vector(
            name: "get-meeting",
            method: "GET", path: "/meetings/11111111-2222-3333-4444-555555555555", query: "",
            headers: [("Host", "127.0.0.1:8080"), ("User-Agent", "Boto3/1.43.11 md/Botocore#1.43.11 ua/2.1 os/linux lang/python#3.11.7 Botocore/1.43.11")],
            body: "",
            sessionToken: nil,
            amzDate: "20261122T104211Z",
            authorization: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE000000000/20261122/eu-west-1/chime/aws4_request, SignedHeaders=host;x-amz-date, Signature=e52d298e1e79da0cb58019464406b8611f93f6c2ffcdfcd6f7410551cb7f9d9f"
        ),
        SigV4Vector(
            name: "list-attendees-query",
            method: "GET", path: "/meetings/11111111-2222-3333-4444-555555555555/attendees", query: "max-results=10&next-token=tok%2F%2B%3D1",
            headers: [("Host", "127.0.0.1:8080"), ("User-Agent", "Boto3/1.43.11 md/Botocore#1.43.11 ua/2.1 os/linux lang/python#3.11.7 Botocore/1.43.11")],
            body: "",
            sessionToken: nil,
            amzDate: "20261122T104211Z",
            authorization: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE000000000/20261122/eu-west-1/chime/aws4_request, SignedHeaders=host;x-amz-date, Signature=b029c31ddc77b18cb2ea2079c87122d5929c7368d5cd9bc0d11aa7d16ed68a0e"
        ),
        SigV4Vector(
            name: "create-attendee-json",
            method: "POST", path: "/meetings/11111111-2222-3333-4444-555555555555/attendees", query: "",
            headers: [("Host", "127.0.0.1:8080"), ("User-Agent", "Boto3/1.43.11 md/Botocore#1.43.11 ua/2.1 os/linux lang/python#3.11.7 Botocore/1.43.11"), ("Content-Type", "application/json")],
            body: "{\"ExternalUserId\": \"user-1\", \"Capabilities\": {\"Audio\": \"SendReceive\", \"Video\": \"Receive\", \"Content\": \"None\"}}",
            sessionToken: nil,
            amzDate: "20261122T104211Z",
            authorization: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE000000000/20261122/eu-west-1/chime/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=f50fc9164e5fe6ee73e3aa68b118836953e80bd0de3d8e8c70dca10b3e41e028"
        ),
        SigV4Vector(
            name: "create-meeting-with-attendees",
            method: "POST", path: "/meetings", query: "operation=create-attendees",
            headers: [("Host", "127.0.0.1:8080"), ("User-Agent", "Boto3/1.43.11 md/Botocore#1.43.11 ua/2.1 os/linux lang/python#3.11.7 Botocore/1.43.11"), ("Content-Type", "application/json")],
            body: "{\"ClientRequestToken\": \"my-token-1\", \"MediaRegion\": \"us-east-1\", \"ExternalMeetingId\": \"ext-2\", \"Attendees\": [{\"ExternalUserId\": \"u-a\"}]}",
            sessionToken: nil,
            amzDate: "20261122T104211Z",
            authorization: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE000000000/20261122/eu-west-1/chime/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=38a1072335c5c6f7f93d007489fa0b78267b91b2c025e51f63926d362a7b3ba7"
        ),
        SigV4Vector(
            name: "delete-attendee",
            method: "DELETE", path: "/meetings/11111111-2222-3333-4444-555555555555/attendees/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", query: "",
            headers: [("Host", "127.0.0.1:8080"), ("User-Agent", "Boto3/1.43.11 md/Botocore#1.43.11 ua/2.1 os/linux lang/python#3.11.7 Botocore/1.43.11")],
            body: "",
            sessionToken: nil,
            amzDate: "20261122T104211Z",
            authorization: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE000000000/20261122/eu-west-1/chime/aws4_request, SignedHeaders=host;x-amz-date, Signature=781f1105c3c106d52d78a782cb44210fc8c089348f6da3473e5f26f723521594"
        ),
        SigV4Vector(
            name: "percent-encoded-segment",
            method: "GET", path: "/meetings/not-a-guid%2Fx%20y", query: "",
            headers: [("Host", "127.0.0.1:8080"), ("User-Agent", "Boto3/1.43.11 md/Botocore#1.43.11 ua/2.1 os/linux lang/python#3.11.7 Botocore/1.43.11")],
            body: "",
            sessionToken: nil,
            amzDate: "20261122T104211Z",
            authorization: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE000000000/20261122/eu-west-1/chime/aws4_request, SignedHeaders=host;x-amz-date, Signature=9a705922c52b0e3c1d993f1cc235ef05f080d49de0b1e2e2b696379812c67a8d"
        ),
        SigV4Vector(
            name: "session-token",
            method: "POST", path: "/meetings/11111111-2222-3333-4444-555555555555/attendees", query: "",
            headers: [("Host", "127.0.0.1:8080"), ("User-Agent", "Boto3/1.43.11 md/Botocore#1.43.11 ua/2.1 os/linux lang/python#3.11.7 Botocore/1.43.11"), ("Content-Type", "application/json")],
            body: "{\"ExternalUserId\": \"user-2\"}",
            sessionToken: "FwoGZXIvYXdzEXAMPLETOKEN/with+slash==",
            amzDate: "20261122T104211Z",
            authorization: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE000000000/20261122/eu-west-1/chime/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature=8a24a7594ee145a5150859045361918f16e35f5cba210a6a15ee468108512a0a"
        ),
        SigV4Vector(
            name: "path-prefix-tags",
            method: "GET", path: "/chime-api/tags", query: "arn=arn%3Aaws%3Achime%3Aus-east-1%3A123456789012%3Ameeting%2F11111111-2222-3333-4444-555555555555",
            headers: [("Host", "127.0.0.1:8080"), ("User-Agent", "Boto3/1.43.11 md/Botocore#1.43.11 ua/2.1 os/linux lang/python#3.11.7 Botocore/1.43.11")],
            body: "",
            sessionToken: nil,
            amzDate: "20261122T104211Z",
            authorization: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE000000000/20261122/eu-west-1/chime/aws4_request, SignedHeaders=host;x-amz-date, Signature=90492da2a09613beda6c8bd6453a4e823f961dc82ec18de3c6e1e3fdafbd549f"
        ),
    ]
}
