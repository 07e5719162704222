import Foundation
import Testing
@testable import CarillonProtocol

@Suite("SigV4 signer and verifier")
struct SigV4Tests {
    let verifier = SigV4Verifier { accessKeyId in
        accessKeyId == SigV4Vectors.accessKeyId ? SigV4Vectors.secretAccessKey : nil
    }

    private func signer(sessionToken: String? = nil, service: String = "chime") -> SigV4Signer {
        SigV4Signer(accessKeyId: SigV4Vectors.accessKeyId, secretAccessKey: SigV4Vectors.secretAccessKey,
                    sessionToken: sessionToken, region: SigV4Vectors.region, service: service)
    }

    private func replacing(_ name: String, with value: String?, in request: SigV4Request) -> SigV4Request {
        var copy = request
        copy.headers.removeAll { $0.name.lowercased() == name.lowercased() }
        if let value { copy.headers.append((name: name, value: value)) }
        return copy
    }

    // MARK: botocore vectors

    @Test("the signer reproduces botocore's headers", arguments: SigV4Vectors.all)
    func signerMatchesBotocore(vector: SigV4Vector) throws {
        let added = try signer(sessionToken: vector.sessionToken).sign(vector.unsignedRequest, date: SigV4Vectors.signingTime)
        let byName = Dictionary(added.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(byName["Authorization"] == vector.authorization)
        #expect(byName["X-Amz-Date"] == vector.amzDate)
        #expect(byName["X-Amz-Security-Token"] == vector.sessionToken)
        #expect(added.count == (vector.sessionToken == nil ? 2 : 3))
    }

    @Test("the verifier accepts botocore's requests, with unsigned headers added on the wire", arguments: SigV4Vectors.all)
    func verifierAcceptsBotocore(vector: SigV4Vector) throws {
        let authorization = try verifier.verify(vector.receivedRequest, now: SigV4Vectors.signingTime.addingTimeInterval(120))
        #expect(authorization.accessKeyId == SigV4Vectors.accessKeyId)
        #expect(authorization.region == "eu-west-1")
        #expect(authorization.service == "chime")
    }

    @Test("the verifier rejects tampered botocore requests", arguments: SigV4Vectors.all)
    func verifierRejectsTampering(vector: SigV4Vector) {
        let original = vector.receivedRequest
        var tampered: [(String, SigV4Request)] = []

        var otherPath = original
        otherPath.path += "x"
        tampered.append(("path", otherPath))

        var otherMethod = original
        otherMethod.method = original.method == "GET" ? "DELETE" : "GET"
        tampered.append(("method", otherMethod))

        var otherQuery = original
        otherQuery.query = original.query.isEmpty ? "max-results=1" : original.query + "&extra=1"
        tampered.append(("query", otherQuery))

        var otherBody = original
        otherBody.body = original.body.isEmpty ? Array("{}".utf8) : Array(original.body.dropLast()) + Array("!".utf8)
        tampered.append(("body", otherBody))

        tampered.append(("host", replacing("Host", with: "127.0.0.1:8081", in: original)))
        tampered.append(("date", replacing("X-Amz-Date", with: "20261122T104212Z", in: original)))
        tampered.append(("region", replacing(
            "Authorization", with: vector.authorization.replacingOccurrences(of: "eu-west-1", with: "us-east-1"), in: original)))
        let signature = String(vector.authorization.suffix(64))
        let flipped = (signature.first == "0" ? "1" : "0") + signature.dropFirst()
        tampered.append(("signature", replacing(
            "Authorization", with: vector.authorization.replacingOccurrences(of: signature, with: flipped), in: original)))
        if vector.sessionToken != nil {
            tampered.append(("token", replacing("X-Amz-Security-Token", with: "other-token", in: original)))
        }

        for (what, request) in tampered {
            #expect(throws: SigV4Error.signatureMismatch, "tampered \(what)") {
                try verifier.verify(request, now: SigV4Vectors.signingTime)
            }
        }
    }

    // MARK: error cases

    private var validRequest: SigV4Request {
        SigV4Vectors.all.first { $0.name == "create-attendee-json" }!.receivedRequest
    }

    @Test("missing and malformed Authorization headers")
    func authorizationErrors() {
        let now = SigV4Vectors.signingTime
        #expect(throws: SigV4Error.missingAuthorization) {
            try verifier.verify(replacing("Authorization", with: nil, in: validRequest), now: now)
        }
        for malformed in ["", "AWS4-HMAC-SHA256", "AWS4-HMAC-SHA256 Credential=AKID/20261122/eu-west-1/chime/aws4_request",
                          "AWS4-HMAC-SHA256 Credential=AKID/20261122/eu-west-1/chime, SignedHeaders=host, Signature=" + String(repeating: "0", count: 64),
                          "AWS4-HMAC-SHA256 Credential=AKID/20261122/eu-west-1/chime/aws4_request, SignedHeaders=host;x-amz-date, Signature=xyz",
                          "AWS4-HMAC-SHA256 Credential=AKID/2026112/eu-west-1/chime/aws4_request, SignedHeaders=host;x-amz-date, Signature=" + String(repeating: "0", count: 64),
                          "AWS4-HMAC-SHA256 Credential=AKID/20261122/eu-west-1/chime/aws4_request, SignedHeaders=Host;X-Amz-Date, Signature=" + String(repeating: "0", count: 64),
                          "AWS4-HMAC-SHA256 Credential=AKID/20261122/eu-west-1/chime/aws4_request, Credential=AKID/20261122/eu-west-1/chime/aws4_request, SignedHeaders=host, Signature=" + String(repeating: "0", count: 64)] {
            let error = #expect(throws: SigV4Error.self, "accepted \(malformed)") {
                try verifier.verify(replacing("Authorization", with: malformed, in: validRequest), now: now)
            }
            guard case .malformedAuthorization = error else {
                Issue.record("expected malformedAuthorization for \(malformed), got \(String(describing: error))")
                continue
            }
        }
        var twoHeaders = validRequest
        twoHeaders.headers.append((name: "authorization", value: SigV4Vectors.all[0].authorization))
        let twoError = #expect(throws: SigV4Error.self) { try verifier.verify(twoHeaders, now: now) }
        guard case .malformedAuthorization = twoError else {
            Issue.record("two Authorization headers accepted or misreported: \(String(describing: twoError))")
            return
        }
    }

    @Test("unsupported algorithms are named in the error")
    func unsupportedAlgorithm() {
        let header = SigV4Vectors.all[0].authorization.replacingOccurrences(of: "AWS4-HMAC-SHA256", with: "AWS4-ECDSA-P256-SHA256")
        #expect(throws: SigV4Error.unsupportedAlgorithm("AWS4-ECDSA-P256-SHA256")) {
            try verifier.verify(replacing("Authorization", with: header, in: validRequest), now: SigV4Vectors.signingTime)
        }
        #expect(throws: SigV4Error.unsupportedAlgorithm("AWS")) {
            try verifier.verify(replacing("Authorization", with: "AWS AKID:c2lnbmF0dXJl", in: validRequest),
                                now: SigV4Vectors.signingTime)
        }
    }

    @Test("unknown access keys are rejected")
    func unknownAccessKey() throws {
        let other = SigV4Signer(accessKeyId: "AKIDUNKNOWN000000000", secretAccessKey: "x", region: "eu-west-1")
        var request = validRequest
        request.headers.removeAll { ["authorization", "x-amz-date"].contains($0.name.lowercased()) }
        request.headers += try other.sign(request, date: SigV4Vectors.signingTime)
        #expect(throws: SigV4Error.unknownAccessKey("AKIDUNKNOWN000000000")) {
            try verifier.verify(request, now: SigV4Vectors.signingTime)
        }
    }

    @Test("a signature for another service is rejected even when it is otherwise valid")
    func wrongService() throws {
        var request = validRequest
        request.headers.removeAll { ["authorization", "x-amz-date"].contains($0.name.lowercased()) }
        request.headers += try signer(service: "s3").sign(request, date: SigV4Vectors.signingTime)
        #expect(throws: SigV4Error.wrongService("s3")) { try verifier.verify(request, now: SigV4Vectors.signingTime) }
        let s3Verifier = SigV4Verifier(service: "s3") { _ in SigV4Vectors.secretAccessKey }
        #expect(try s3Verifier.verify(request, now: SigV4Vectors.signingTime).service == "s3")
    }

    @Test("X-Amz-Date must be within 5 minutes of now, either way")
    func clockSkew() throws {
        let signed = SigV4Vectors.signingTime
        #expect(try verifier.verify(validRequest, now: signed.addingTimeInterval(300)).region == "eu-west-1")
        #expect(try verifier.verify(validRequest, now: signed.addingTimeInterval(-300)).region == "eu-west-1")
        #expect(throws: SigV4Error.requestTimeTooSkewed(requestTime: signed, serverTime: signed.addingTimeInterval(301))) {
            try verifier.verify(validRequest, now: signed.addingTimeInterval(301))
        }
        #expect(throws: SigV4Error.requestTimeTooSkewed(requestTime: signed, serverTime: signed.addingTimeInterval(-301))) {
            try verifier.verify(validRequest, now: signed.addingTimeInterval(-301))
        }
    }

    @Test("a signed header absent from the request is reported by name")
    func missingSignedHeader() {
        #expect(throws: SigV4Error.missingSignedHeader("content-type")) {
            try verifier.verify(replacing("Content-Type", with: nil, in: validRequest), now: SigV4Vectors.signingTime)
        }
        #expect(throws: SigV4Error.missingSignedHeader("host")) {
            try verifier.verify(replacing("Host", with: nil, in: validRequest), now: SigV4Vectors.signingTime)
        }
    }

    @Test("missing or malformed X-Amz-Date")
    func dateErrors() {
        #expect(throws: SigV4Error.missingDate) {
            try verifier.verify(replacing("X-Amz-Date", with: nil, in: validRequest), now: SigV4Vectors.signingTime)
        }
        for bad in ["2026-11-22T10:42:11Z", "20261122T104211", "20261131T104211Z", "20261122t104211Z"] {
            #expect(throws: SigV4Error.malformedDate(bad)) {
                try verifier.verify(replacing("X-Amz-Date", with: bad, in: validRequest), now: SigV4Vectors.signingTime)
            }
        }
        // A well-formed date on another day than the credential scope.
        let error = #expect(throws: SigV4Error.self) {
            try verifier.verify(replacing("X-Amz-Date", with: "20261123T104211Z", in: validRequest),
                                now: SigV4Vectors.signingTime)
        }
        guard case .malformedAuthorization = error else {
            Issue.record("scope date mismatch misreported: \(String(describing: error))")
            return
        }
    }

    @Test("the signer needs a Host header")
    func signerNeedsHost() {
        let request = SigV4Request(method: "GET", path: "/meetings", headers: [])
        #expect(throws: SigV4Error.missingSignedHeader("host")) {
            try signer().sign(request, date: SigV4Vectors.signingTime)
        }
    }

    // MARK: canonicalization

    @Test("the canonical URI double-encodes the raw path and removes dot and empty segments")
    func canonicalURI() {
        #expect(SigV4Canonical.canonicalURI(rawPath: "/meetings/not-a-guid%2Fx%20y") == "/meetings/not-a-guid%252Fx%2520y")
        #expect(SigV4Canonical.canonicalURI(rawPath: "") == "/")
        #expect(SigV4Canonical.canonicalURI(rawPath: "/") == "/")
        #expect(SigV4Canonical.canonicalURI(rawPath: "/a//b/./c/../d/") == "/a/b/d/")
        #expect(SigV4Canonical.canonicalURI(rawPath: "/~user/a:b") == "/~user/a%3Ab")
    }

    @Test("the canonical query is decoded, re-encoded and sorted by name then value")
    func canonicalQuery() {
        #expect(SigV4Canonical.canonicalQuery(rawQuery: "next-token=tok%2F%2B%3D1&max-results=10")
                == "max-results=10&next-token=tok%2F%2B%3D1")
        #expect(SigV4Canonical.canonicalQuery(rawQuery: "b=2&a=2&a=1&c") == "a=1&a=2&b=2&c=")
        #expect(SigV4Canonical.canonicalQuery(rawQuery: "k=%7e%41%2f") == "k=~A%2F")
        #expect(SigV4Canonical.canonicalQuery(rawQuery: "k=a+b&bad=%zz") == "bad=%25zz&k=a%2Bb")
        #expect(SigV4Canonical.canonicalQuery(rawQuery: "") == "")
    }

    @Test("header values are trimmed with inner whitespace collapsed; names are case-insensitive")
    func headerCanonicalization() throws {
        #expect(SigV4Canonical.collapseWhitespace("  a   b \t c ") == "a b c")
        var messy = replacing("Content-Type", with: "  application/json  ", in: validRequest)
        messy.headers = messy.headers.map { (name: $0.name.uppercased(), value: $0.value) }
        #expect(try verifier.verify(messy, now: SigV4Vectors.signingTime).accessKeyId == SigV4Vectors.accessKeyId)
    }

    @Test("our own signer's output verifies for awkward paths, queries and repeated headers")
    func roundTrip() throws {
        var request = SigV4Request(
            method: "put", target: "/prefix/meetings/a%2Fb%20c/attendees/x~y?z=1&a=%E2%9C%93&a=0&flag",
            headers: [(name: "Host", value: "example.test:8443"), (name: "Content-Type", value: "application/json   ;  charset=utf-8")],
            body: Array("{\"a\":1}".utf8))
        #expect(request.path == "/prefix/meetings/a%2Fb%20c/attendees/x~y")
        #expect(request.query == "z=1&a=%E2%9C%93&a=0&flag")
        request.headers += try signer(sessionToken: "session").sign(request, date: SigV4Vectors.signingTime)
        let authorization = try verifier.verify(request, now: SigV4Vectors.signingTime)
        #expect(authorization.signedHeaders == ["content-type", "host", "x-amz-date", "x-amz-security-token"])
    }

    // MARK: X-Amz-Date

    @Test("X-Amz-Date formatting and parsing")
    func amzDate() {
        #expect(AmzDate.format(Date(timeIntervalSince1970: 0)) == "19700101T000000Z")
        #expect(AmzDate.format(SigV4Vectors.signingTime) == "20261122T104211Z")
        #expect(AmzDate.format(Date(timeIntervalSince1970: 1_709_251_199.9)) == "20240229T235959Z")
        #expect(AmzDate.format(Date(timeIntervalSince1970: -1)) == "19691231T235959Z")
        #expect(AmzDate.parse("20261122T104211Z") == SigV4Vectors.signingTime)
        #expect(AmzDate.parse("20240229T235959Z") == Date(timeIntervalSince1970: 1_709_251_199))
        for invalid in ["20230229T000000Z", "20261322T000000Z", "20261100T000000Z", "20261122T240000Z",
                        "20261122T106011Z", "20261122T104211", "2026112T104211Z", "20261122 104211Z", "２0261122T104211Z"] {
            #expect(AmzDate.parse(invalid) == nil, "parsed \(invalid)")
        }
        // Round trip across a span of days, including leap years and century boundaries.
        var seconds: Int64 = -2_208_988_800  // 1900-01-01
        while seconds < 4_102_444_800 {  // 2100-01-01
            let date = Date(timeIntervalSince1970: Double(seconds))
            #expect(AmzDate.parse(AmzDate.format(date)) == date)
            seconds += 86_400 * 37 + 3_671
        }
    }
}
