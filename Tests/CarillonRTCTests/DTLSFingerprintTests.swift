import CarillonRTC
import Testing

@Suite struct DTLSFingerprintTests {
    @Test func generatedCertificatesHaveDistinctSHA256Fingerprints() throws {
        let first = try DTLSCertificate.generate()
        let second = try DTLSCertificate.generate(commonName: "other")
        #expect(first.fingerprint.algorithm == "sha-256")
        #expect(first.fingerprint.bytes.count == 32)
        #expect(first.fingerprint != second.fingerprint)
        #expect(second.commonName == "other")
    }

    @Test func sdpValueIsUppercaseHexJoinedByColons() throws {
        let fingerprint = DTLSFingerprint(algorithm: "SHA-256", bytes: (0..<32).map { UInt8(($0 * 7 + 0xA0) & 0xFF) })
        #expect(fingerprint.algorithm == "sha-256")
        let value = fingerprint.sdpValue
        #expect(value.hasPrefix("sha-256 A0:A7:AE:B5:"))
        #expect(value.count == "sha-256 ".count + 32 * 3 - 1)
        #expect(value.dropFirst(8) == value.dropFirst(8).uppercased())
        #expect(DTLSFingerprint(sdpValue: value) == fingerprint)
        #expect(fingerprint.description == value)
    }

    @Test func certificateFingerprintRoundTrips() throws {
        let certificate = try DTLSCertificate.generate()
        #expect(DTLSFingerprint(sdpValue: certificate.fingerprint.sdpValue) == certificate.fingerprint)
    }

    @Test func parsingToleratesCaseSpacesAndPrefix() {
        let bytes: [UInt8] = Array(0..<20).map { UInt8(($0 * 13) & 0xFF) }
        let expected = DTLSFingerprint(algorithm: "sha-1", bytes: bytes)
        let hex = bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        #expect(DTLSFingerprint(sdpValue: "sha-1 " + hex.joined(separator: ":")) == expected)
        #expect(DTLSFingerprint(sdpValue: "  SHA-1   " + hex.joined(separator: ":").uppercased() + "  ") == expected)
        #expect(DTLSFingerprint(sdpValue: "a=fingerprint:sha-1 " + hex.joined(separator: ":")) == expected)
        #expect(DTLSFingerprint(sdpValue: "sha-1 " + hex.joined(separator: " : ")) == expected)
    }

    @Test func everySupportedAlgorithmParses() {
        for (algorithm, length) in [("sha-1", 20), ("sha-224", 28), ("sha-256", 32), ("sha-384", 48), ("sha-512", 64)] {
            let value = algorithm + " " + Array(repeating: "aB", count: length).joined(separator: ":")
            let parsed = DTLSFingerprint(sdpValue: value)
            #expect(parsed?.algorithm == algorithm)
            #expect(parsed?.bytes == [UInt8](repeating: 0xAB, count: length))
        }
    }

    static func hexList(_ byte: String, count: Int, separator: String = ":") -> String {
        Array(repeating: byte, count: count).joined(separator: separator)
    }

    static let malformed: [String] = {
        var values: [String] = ["", "sha-256", "sha-256 ", "md5 AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89"]
        values.append("sha-1 " + hexList("ZZ", count: 20))
        values.append("sha-1 " + hexList("ABC", count: 20))
        values.append("sha-1 " + hexList("A", count: 20))
        values.append("sha-1 " + hexList("AB", count: 19))
        values.append("sha-1 " + hexList("AB", count: 21))
        values.append("sha-1 " + hexList("AB", count: 20) + ":")
        values.append("sha-1 " + hexList("AB", count: 20, separator: "::"))
        values.append("sha-1 " + hexList("+1", count: 20))
        values.append("sha-256 " + hexList("AB", count: 20))
        return values
    }()

    @Test(arguments: malformed)
    func malformedValuesAreRejected(value: String) {
        #expect(DTLSFingerprint(sdpValue: value) == nil)
    }
}
