import CarillonRTC
import Testing

@Suite struct SessionDescriptionErrorTests {
    private static let head = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"

    private func parse(_ text: String) throws(SDPError) -> SessionDescription { try SessionDescription(parsing: text) }

    @Test func versionAndOrigin() {
        #expect(throws: SDPError.missingVersion) { try parse("") }
        #expect(throws: SDPError.missingVersion) { try parse("o=- 1 1 IN IP4 0.0.0.0\r\nv=0\r\n") }
        #expect(throws: SDPError.unsupportedVersion("1")) { try parse("v=1\r\no=- 1 1 IN IP4 0.0.0.0\r\n") }
        #expect(throws: SDPError.missingOrigin) { try parse("v=0\r\ns=-\r\nt=0 0\r\n") }
        #expect(throws: SDPError.malformedLine(number: 2, line: "o=- x 1 IN IP4 0.0.0.0",
                                               reason: "o= session id and version must be 64-bit numbers")) {
            try parse("v=0\r\no=- x 1 IN IP4 0.0.0.0\r\n")
        }
        #expect(throws: SDPError.malformedLine(number: 3, line: "v=0", reason: "v= may only be the first line")) {
            try parse("v=0\no=- 1 1 IN IP4 0.0.0.0\nv=0\n")
        }
        #expect(throws: SDPError.malformedLine(number: 5, line: "hello", reason: "not <letter>=<value>")) {
            try parse(Self.head + "hello\r\n")
        }
    }

    @Test func badMediaLines() {
        #expect(throws: SDPError.malformedLine(number: 5, line: "m=audio 9 UDP/TLS/RTP/SAVPF",
                                               reason: "m= needs media, port, proto and at least one format")) {
            try parse(Self.head + "m=audio 9 UDP/TLS/RTP/SAVPF\r\n")
        }
        #expect(throws: SDPError.malformedLine(number: 5, line: "m=audio 70000 UDP/TLS/RTP/SAVPF 111",
                                               reason: "m= port is not 0-65535")) {
            try parse(Self.head + "m=audio 70000 UDP/TLS/RTP/SAVPF 111\r\n")
        }
        #expect(throws: SDPError.malformedLine(number: 5, line: "m=audio 9 UDP/TLS/RTP/SAVPF opus",
                                               reason: "payload type \"opus\" is not a number")) {
            try parse(Self.head + "m=audio 9 UDP/TLS/RTP/SAVPF opus\r\n")
        }
        #expect(throws: SDPError.malformedLine(number: 6, line: "t=0 0", reason: "t= belongs to the session section")) {
            try parse(Self.head + "m=audio 9 UDP/TLS/RTP/SAVPF 0\r\nt=0 0\r\n")
        }
    }

    @Test func payloadTypesOutOfRange() {
        #expect(throws: SDPError.payloadTypeOutOfRange(number: 5, value: "128")) {
            try parse(Self.head + "m=audio 9 UDP/TLS/RTP/SAVPF 111 128\r\n")
        }
        #expect(throws: SDPError.payloadTypeOutOfRange(number: 6, value: "99999999999999999999999")) {
            try parse(Self.head + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:99999999999999999999999 opus/48000/2\r\n")
        }
        #expect(throws: SDPError.payloadTypeOutOfRange(number: 6, value: "300")) {
            try parse(Self.head + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtcp-fb:300 nack\r\n")
        }
    }

    @Test func duplicateAndMalformedRtpmap() {
        #expect(throws: SDPError.duplicatePayloadType(number: 7, payloadType: 96)) {
            try parse(Self.head + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 VP8/90000\r\na=rtpmap:96 VP9/90000\r\n")
        }
        #expect(throws: SDPError.malformedLine(number: 6, line: "a=rtpmap:96 VP8",
                                               reason: "rtpmap needs <name>/<clock rate>[/<channels>]")) {
            try parse(Self.head + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 VP8\r\n")
        }
        #expect(throws: SDPError.malformedLine(number: 6, line: "a=rtpmap:111 opus/48000/300", reason: "rtpmap channels is not 0-255")) {
            try parse(Self.head + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/300\r\n")
        }
    }

    @Test func extmapIds() {
        let section = Self.head + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
        #expect(throws: SDPError.extensionIdOutOfRange(number: 6, value: "0")) {
            try parse(section + "a=extmap:0 urn:ietf:params:rtp-hdrext:sdes:mid\r\n")
        }
        #expect(throws: SDPError.extensionIdOutOfRange(number: 6, value: "256")) {
            try parse(section + "a=extmap:256 urn:ietf:params:rtp-hdrext:sdes:mid\r\n")
        }
        #expect(throws: SDPError.malformedLine(number: 6, line: "a=extmap:3/both urn:x", reason: "unknown extmap direction \"both\"")) {
            try parse(section + "a=extmap:3/both urn:x\r\n")
        }
        #expect(throws: SDPError.malformedLine(number: 6, line: "a=extmap:3", reason: "extmap needs an id and a URI")) {
            try parse(section + "a=extmap:3\r\n")
        }
        #expect((try? parse(section + "a=extmap:255 urn:x\r\n"))?.media[0].extensions.first?.id == 255)
    }

    @Test func badCandidates() {
        let section = Self.head + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
        #expect(throws: SDPError.invalidCandidate(number: 6, reason: "port is not 0-65535")) {
            try parse(section + "a=candidate:1 1 udp 2122260223 192.0.2.10 65536 typ host\r\n")
        }
        #expect(throws: SDPError.invalidCandidate(number: nil, reason: "needs at least 8 fields")) {
            try ICECandidate(parsing: "candidate:1 1 udp 2122260223 192.0.2.10 5000 typ")
        }
        #expect(throws: SDPError.invalidCandidate(number: nil, reason: "expected \"typ\" after the port")) {
            try ICECandidate(parsing: "candidate:1 1 udp 2122260223 192.0.2.10 5000 type host")
        }
        #expect(throws: SDPError.invalidCandidate(number: nil, reason: "priority is not a 32-bit number")) {
            try ICECandidate(parsing: "candidate:1 1 udp 4294967296 192.0.2.10 5000 typ host")
        }
        #expect(throws: SDPError.invalidCandidate(number: nil, reason: "an extension name has no value")) {
            try ICECandidate(parsing: "candidate:1 1 udp 1 192.0.2.10 5000 typ host generation")
        }
        #expect(throws: SDPError.invalidCandidate(number: nil, reason: "foundation must be 1-32 letters, digits, + or /")) {
            try ICECandidate(parsing: "candidate:a-b 1 udp 1 192.0.2.10 5000 typ host")
        }
        #expect(throws: SDPError.invalidCandidate(number: nil, reason: "component is not a number from 1")) {
            try ICECandidate(parsing: "candidate:1 0 udp 1 192.0.2.10 5000 typ host")
        }
    }

    @Test func otherStrictAttributes() {
        let section = Self.head + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\n"
        #expect(throws: SDPError.malformedLine(number: 6, line: "a=setup:both", reason: "setup must be actpass, active, passive or holdconn")) {
            try parse(section + "a=setup:both\r\n")
        }
        #expect(throws: SDPError.malformedLine(number: 6, line: "a=rid:low both", reason: "rid direction must be send or recv")) {
            try parse(section + "a=rid:low both\r\n")
        }
        #expect(throws: SDPError.malformedLine(number: 6, line: "a=simulcast:send low;;hi", reason: "bad rid in simulcast list")) {
            try parse(section + "a=simulcast:send low;;hi\r\n")
        }
        #expect(throws: SDPError.malformedLine(number: 6, line: "a=simulcast:both low", reason: "simulcast direction must be send or recv")) {
            try parse(section + "a=simulcast:both low\r\n")
        }
        #expect(throws: SDPError.malformedLine(number: 6, line: "a=ssrc:-1 cname:x", reason: "ssrc is not a 32-bit number")) {
            try parse(section + "a=ssrc:-1 cname:x\r\n")
        }
        #expect(throws: SDPError.malformedLine(number: 6, line: "a=fingerprint:sha-256", reason: "fingerprint needs a hash name and a value")) {
            try parse(section + "a=fingerprint:sha-256\r\n")
        }
        let old = try? parse(section + "a=rid:hi send pt=96;max-width=1280\r\na=simulcast: send rid=hi;~lo,lo2 recv x\r\n")
        #expect(old?.media[0].simulcast == SDPSimulcast(send: [[.init(rid: "hi")], [.init(rid: "lo", paused: true), .init(rid: "lo2")]],
                                                        receive: [[.init(rid: "x")]]))
        #expect(old?.media[0].rids.first?.payloadTypes == [96] && old?.media[0].rids.first?.restriction("max-width") == "1280")
    }

    @Test func limits() {
        let big = Self.head + String(repeating: "a=x-padding:0123456789abcdef0123456789abcdef0123456789abcdef\r\n", count: 5000)
        #expect(throws: SDPError.tooLarge(bytes: big.utf8.count, limit: 256 * 1024)) { try parse(big) }
        let small = SDPParsingLimits(maximumBytes: 1024, maximumLineLength: 100, maximumMediaSections: 2)
        #expect(throws: SDPError.tooLarge(bytes: SDPFixtures.aiortc.utf8.count, limit: 1024)) {
            try SessionDescription(parsing: SDPFixtures.aiortc, limits: small)
        }
        let long = Self.head + "a=x:" + String(repeating: "y", count: 200) + "\r\n"
        #expect(throws: SDPError.lineTooLong(number: 5, length: 205, limit: 100)) {
            try SessionDescription(parsing: long, limits: small)
        }
        let three = Self.head + String(repeating: "m=audio 9 UDP/TLS/RTP/SAVPF 0\r\n", count: 3)
        #expect(throws: SDPError.tooManyMediaSections(limit: 2)) { try SessionDescription(parsing: three, limits: small) }
        #expect((try? SessionDescription(parsing: Self.head + String(repeating: "m=audio 9 RTP/AVP 0\r\n", count: 256)))?.media.count == 256)
        #expect(throws: SDPError.tooManyMediaSections(limit: 256)) {
            try parse(Self.head + String(repeating: "m=audio 9 RTP/AVP 0\r\n", count: 257))
        }
    }

    @Test func feedbackExpansionIsBounded() throws {
        let types = (0...127).map(String.init).joined(separator: " ")
        let star = (0..<65).map { "a=rtcp-fb:* x-\($0)\r\n" }.joined()
        #expect(throws: SDPError.malformedLine(number: 70, line: "a=rtcp-fb:* x-64",
                                               reason: "more than 64 rtcp-fb values for payload type 0")) {
            try parse(Self.head + "m=video 9 RTP/AVPF \(types)\r\n" + star)
        }
        let sdp = try parse(Self.head + "m=video 9 RTP/AVPF \(types)\r\n" + star.split(separator: "\r\n").dropLast().joined(separator: "\r\n"))
        #expect(sdp.media[0].codecs.count == 10 && sdp.media[0].codecs.allSatisfy { $0.feedback.count == 64 })
    }

    /// Random byte flips, insertions of SDP punctuation and truncations of the fixtures never crash the parser, and
    /// whatever it accepts serializes to text that parses back to the same model.
    @Test func mutatedFixturesNeverCrashAndRoundTrip() throws {
        var random = SeededRandom(seed: 0x5D9)
        let alphabet = Array(" \t\r\n:;/=,~*-.0123456789aAzZ".utf8) + [0x00, 0x7F, 0xC3, 0xA9, 0xFF]
        let fixtures = SDPFixtures.all.map { Array($0.utf8) }
        var accepted = 0
        for iteration in 0..<3000 {
            var bytes = fixtures[iteration % fixtures.count]
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let index = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 4 {
                case 0: bytes[index] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes[index] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                case 2: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: index)
                default: bytes.remove(at: index)
                }
            }
            if random.next() % 3 == 0 { bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1)))) }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let parsed = try? SessionDescription(parsing: text) else { continue }
            accepted += 1
            let again = try SessionDescription(parsing: parsed.serialized)
            #expect(again == parsed, "iteration \(iteration)")
            if again != parsed { break }
        }
        #expect(accepted > 300)
    }

    /// Random short lines made of SDP-ish tokens, after a valid header.
    @Test func randomAttributeSoupNeverCrashes() throws {
        var random = SeededRandom(seed: 77)
        let pieces = ["a=", "m=", "c=", "b=", "rtpmap:", "fmtp:", "rtcp-fb:", "extmap:", "candidate:", "ssrc:", "ssrc-group:",
                      "rid:", "simulcast:", "msid:", "setup:", "mid:", "group:BUNDLE", "96", "0", "128", "*", " ", "/", ";",
                      "=", ",", "~", "send", "recv", "typ", "host", "raddr", "rport", "udp", "VP8/90000", "audio",
                      "UDP/TLS/RTP/SAVPF", "webrtc-datachannel", "nack", "apt=96", "sendonly", "\t", "actpass", "9"]
        for _ in 0..<2000 {
            var text = "v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\nm=video 9 UDP/TLS/RTP/SAVPF 96 97\n"
            for _ in 0..<(1 + random.next() % 8) {
                text += (0..<(1 + random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
                text += random.next() % 2 == 0 ? "\n" : "\r\n"
            }
            guard let parsed = try? SessionDescription(parsing: text) else { continue }
            #expect(try SessionDescription(parsing: parsed.serialized) == parsed, "\(text)")
        }
    }
}
