import CarillonRTC
import Testing

@Suite struct SessionDescriptionRoundTripTests {
    @Test(arguments: [("chromium", SDPFixtures.chromium), ("aiortc", SDPFixtures.aiortc), ("firefox", SDPFixtures.firefox)])
    func serializeThenParseGivesAnEqualModel(name: String, fixture: String) throws {
        let parsed = try SessionDescription(parsing: fixture)
        let text = parsed.serialized
        #expect(text.hasPrefix("v=0\r\no="))
        #expect(text.hasSuffix("\r\n") && !text.hasSuffix("\r\n\r\n"))
        #expect(!text.utf8.enumerated().contains { $0.element == UInt8(ascii: "\n") && (text.utf8.dropFirst($0.offset - 1).first != UInt8(ascii: "\r")) })
        #expect(try SessionDescription(parsing: text) == parsed, "\(name)")
        #expect(try SessionDescription(parsing: text).serialized == text, "\(name)")
    }

    /// Chromium's own order survives a round trip line for line, except that candidates move from just after
    /// `a=rtcp` (where Chromium writes them) to the end of their section.
    @Test func chromiumTextIsReproducedExceptForCandidatePlacement() throws {
        let crlf = SDPFixtures.crlf(SDPFixtures.chromium)
        #expect(crlf.hasSuffix("262144\r\n"))
        let out = try SessionDescription(parsing: crlf).serialized
        let expected = crlf.split(separator: "\r\n").map(String.init), got = out.split(separator: "\r\n").map(String.init)
        #expect(got.filter { !$0.hasPrefix("a=candidate:") } == expected.filter { !$0.hasPrefix("a=candidate:") })
        #expect(got.filter { $0.hasPrefix("a=candidate:") } == expected.filter { $0.hasPrefix("a=candidate:") })
        let firstVideo = try #require(got.firstIndex { $0.hasPrefix("m=video") })
        #expect(got[firstVideo - 4..<firstVideo].allSatisfy { $0.hasPrefix("a=candidate:") })
        #expect(got[firstVideo - 1].hasPrefix("a=candidate:842163049"))
    }

    @Test func firefoxSectionsAreWrittenInBrowserOrder() throws {
        let text = try SessionDescription(parsing: SDPFixtures.firefox).serialized
        let lines = text.split(separator: "\r\n").map(String.init)
        #expect(Array(lines.prefix(9)) == [
            "v=0",
            "o=mozilla...THIS_IS_SDPARTA-128.0 6549003437442366839 0 IN IP4 0.0.0.0",
            "s=-",
            "t=0 0",
            "a=group:BUNDLE 0 1 2",
            "a=ice-options:trickle",
            "a=fingerprint:sha-256 2E:4B:81:77:1A:C8:93:5D:0F:66:EA:21:9C:B4:7E:30:D5:12:48:AF:6B:C0:3E:97:58:14:FD:A2:89:0C:E6:71",
            "a=msid-semantic: WMS *",
            "m=audio 49203 UDP/TLS/RTP/SAVPF 109 9 0 8 101",
        ])
        let video = lines.drop { !$0.hasPrefix("m=video") }
        let names = video.prefix { !$0.hasPrefix("m=application") }.map { $0.prefix { $0 != ":" } }
        let order = ["m=video 9 UDP/TLS/RTP/SAVPF 120 124 121 125 126 127 97 98", "c=IN IP4 0.0.0.0", "a=ice-ufrag", "a=ice-pwd",
                     "a=setup", "a=mid", "a=extmap", "a=sendrecv", "a=msid", "a=rtcp-mux", "a=rtcp-rsize", "a=rtpmap", "a=rtcp-fb",
                     "a=fmtp", "a=ssrc-group", "a=ssrc"]
        var deduplicated: [Substring] = []
        for name in names where !deduplicated.contains(name) { deduplicated.append(name) }
        #expect(deduplicated.prefix(order.count).map(String.init) == order)
        #expect(lines.contains("a=extmap:6/sendonly http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"))
        #expect(lines.contains("a=fmtp:126 profile-level-id=42e01f;level-asymmetry-allowed=1;packetization-mode=1"))
        // The data channel section: no direction line for the default sendrecv.
        #expect(Array(lines.suffix(7)) == ["m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 0.0.0.0",
                                           "a=ice-ufrag:7d1a2b3c", "a=ice-pwd:e0f4a5b1c2d3e4f5a6b7c8d9e0f1a2b3", "a=setup:actpass",
                                           "a=mid:2", "a=sctp-port:5000"].suffix(6) + ["a=max-message-size:1073741823"])
    }

    /// An answer built the way the server will build one.
    @Test func builtAnswerSerializesAsExpected() throws {
        var opus = SDPCodec(payloadType: 111, name: "opus", clockRate: 48000, channels: 2, fmtp: "minptime=10;useinbandfec=1",
                            feedback: ["transport-cc"])
        opus.setParameter("stereo", to: "1")
        let audio = MediaDescription(
            kind: "audio", connection: "IN IP4 203.0.113.1", mid: "0", iceUsernameFragment: "srvU", icePassword: "srvPasswordPasswordPass",
            fingerprint: DTLSFingerprintLine(algorithm: "sha-256", value: "AA:BB"), setup: .passive, rtcpMux: true,
            candidates: [ICECandidate(foundation: "1", priority: 2_130_706_431, address: "203.0.113.1", port: 3478)],
            endOfCandidates: true, codecs: [opus], extensions: [SDPExtension(id: 1, uri: SDPExtension.audioLevelURI)],
            msid: [SDPMediaStreamID(streamId: "mix", trackId: "mix-audio")], ssrcs: [SDPSSRC(ssrc: 1234, cname: "carillon")])
        let camera = MediaDescription(
            kind: "video", connection: "IN IP4 203.0.113.1", mid: "1", setup: .passive, rtcpMux: true, rtcpReducedSize: true,
            codecs: [SDPCodec(payloadType: 96, name: "VP8", clockRate: 90000, feedback: ["nack", "nack pli"]),
                     SDPCodec(payloadType: 97, name: "rtx", clockRate: 90000, fmtp: "apt=96")],
            rids: ["low", "mid", "hi"].map { SDPRid(id: $0, direction: .recv) },
            simulcast: SDPSimulcast(receive: [[.init(rid: "low")], [.init(rid: "mid")], [.init(rid: "hi", paused: true)]]),
            otherAttributes: [SDPAttribute(name: "rtcp", value: "9 IN IP4 0.0.0.0")])
        let answer = SessionDescription(origin: SDPOrigin(sessionId: 42), iceLite: true, bundleGroups: [["0", "1"]],
                                        msidSemantic: "WMS mix", media: [audio, camera])
        let expected = [
            "v=0", "o=- 42 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1", "a=ice-lite", "a=msid-semantic: WMS mix",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 203.0.113.1", "a=ice-ufrag:srvU", "a=ice-pwd:srvPasswordPasswordPass",
            "a=fingerprint:sha-256 AA:BB", "a=setup:passive", "a=mid:0", "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
            "a=sendrecv", "a=msid:mix mix-audio", "a=rtcp-mux", "a=rtpmap:111 opus/48000/2", "a=rtcp-fb:111 transport-cc",
            "a=fmtp:111 minptime=10;useinbandfec=1;stereo=1", "a=ssrc:1234 cname:carillon",
            "a=candidate:1 1 udp 2130706431 203.0.113.1 3478 typ host", "a=end-of-candidates",
            "m=video 9 UDP/TLS/RTP/SAVPF 96 97", "c=IN IP4 203.0.113.1", "a=rtcp:9 IN IP4 0.0.0.0", "a=setup:passive", "a=mid:1",
            "a=sendrecv", "a=rtcp-mux", "a=rtcp-rsize", "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli",
            "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96", "a=rid:low recv", "a=rid:mid recv", "a=rid:hi recv",
            "a=simulcast:recv low;mid;~hi",
        ]
        #expect(answer.serialized == expected.joined(separator: "\r\n") + "\r\n")
        var reparsed = try SessionDescription(parsing: answer.serialized)
        #expect(reparsed.media[1].formats == ["96", "97"])
        reparsed.media = reparsed.media.map { var section = $0; section.formats = []; return section }
        #expect(reparsed == answer)
        #expect(SDPDirection.sendonly.reversed == .recvonly && SDPDirection.inactive.reversed == .inactive)
        #expect(SDPRid.Direction.send.reversed == .recv)
    }

    @Test func keepsUnknownLinesInPlace() throws {
        let text = """
        v=0
        o=alice 7 8 IN IP6 ::1
        s=Talk
        i=about
        c=IN IP4 198.51.100.1
        c=IN IP4 198.51.100.2
        b=CT:128
        t=0 0
        r=7d 1h 0 25h
        a=ice-lite
        a=group:BUNDLE a
        a=group:BUNDLE b c
        m=audio 49170/2 RTP/AVP 0 96
        i=voice
        c=IN IP4 198.51.100.1
        b=AS:64
        a=rtpmap:96 telephone-event/8000
        a=fmtp:96 0-16
        a=x-odd:with:colons
        a=rtcp:49171
        m=text 0 UDP/TLS/RTP/SAVPF 98
        a=rtcp-fb:98 nack
        a=fmtp:98 cps=30
        a=mid:

        """
        let sdp = try SessionDescription(parsing: text)
        #expect(sdp.origin.addressType == "IP6" && sdp.origin.address == "::1" && sdp.sessionName == "Talk")
        #expect(sdp.connection == "IN IP4 198.51.100.1" && sdp.iceLite && sdp.bundleGroups == [["a"], ["b", "c"]])
        #expect(sdp.otherLines.map(\.type) == ["i", "c", "b", "r"])
        let audio = sdp.media[0]
        #expect(audio.numberOfPorts == 2 && audio.port == 49170)
        #expect(audio.codecs.map(\.name) == ["PCMU", "telephone-event"])
        #expect(audio.otherAttributes == [SDPAttribute(name: "rtcp", value: "49171"), SDPAttribute(name: "x-odd", value: "with:colons")])
        let text2 = sdp.media[1]
        #expect(text2.codecs.isEmpty && text2.mid == "")
        #expect(text2.otherAttributes == [SDPAttribute(name: "rtcp-fb", value: "98 nack"), SDPAttribute(name: "fmtp", value: "98 cps=30")])
        let again = try SessionDescription(parsing: sdp.serialized)
        #expect(again == sdp)
        #expect(sdp.serialized.contains("\r\nb=CT:128\r\nt=0 0\r\nr=7d 1h 0 25h\r\n"))
        #expect(sdp.serialized.contains("m=audio 49170/2 RTP/AVP 0 96\r\ni=voice\r\nc=IN IP4 198.51.100.1\r\nb=AS:64\r\na=rtcp:49171\r\n"))
    }
}

/// Inputs `make fuzz` found, kept as regressions.
@Suite struct SessionDescriptionFuzzRegressionTests {
    @Test func aRepeatedMsidSemanticKeepsItsOrder() throws {
        let text = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=msid-semantic:4\r\na=msid-semantic:WMS *\r\n"
            + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=rtpmap:111 opus/48000/2\r\n"
        let description = try SessionDescription(parsing: text)
        #expect(description.msidSemantic == "4")
        #expect(try SessionDescription(parsing: description.serialized) == description)
    }

    @Test func aRepeatedMsidSemanticKeepsItsPlaceAmongOtherSessionAttributes() throws {
        let text = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=msid-semantic:WMS\r\na=msid-semantic: WMS x\r\n"
            + "a=rtcp:9 IN IP4 0.0.0.0\r\na=extmap-allow-mixed\r\n"
        let description = try SessionDescription(parsing: text)
        #expect(description.msidSemantic == "WMS")
        #expect(description.sessionAttributes.map(\.name) == ["msid-semantic", "rtcp", "extmap-allow-mixed"])
        #expect(try SessionDescription(parsing: description.serialized) == description)
        // Without repeats it is still written last, as browsers write it.
        let plain = try SessionDescription(parsing: "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=msid-semantic:WMS\r\na=extmap-allow-mixed\r\n")
        #expect(plain.serialized.hasSuffix("a=extmap-allow-mixed\r\na=msid-semantic: WMS\r\n"))
    }

    /// A tab ends a grapheme cluster, so a value may start with a combining mark; the `:`, `;` or space the serializer
    /// writes before it must still separate it on the next parse.
    @Test func aValueStartingWithACombiningMarkKeepsItsSeparator() throws {
        let text = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 RTP/AVP 0\r\na=mid:\t\u{301}x\r\n"
            + "a=msid:s\t\u{301}t\r\na=fmtp:0 a\r\na=fmtp:0\t\u{301}b\r\na=tool:\u{301}y\r\n"
        let description = try SessionDescription(parsing: text)
        let media = description.media[0]
        #expect(media.mid?.unicodeScalars.elementsEqual("\u{301}x".unicodeScalars) == true)
        #expect(media.msid.count == 1 && media.msid[0].streamId == "s" && media.msid[0].trackId != nil)
        #expect(media.codecs[0].parameters.count == 2)
        #expect(media.otherAttributes.map(\.name) == ["tool"])
        #expect(try SessionDescription(parsing: description.serialized) == description)
    }

    @Test func aLoneCarriageReturnOrNULInsideALineIsRejected() {
        let base = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"
        #expect(throws: SDPError.self) { try SessionDescription(parsing: base + "a=extmap:1 urn:x\ru\r\n") }
        #expect(throws: SDPError.self) { try SessionDescription(parsing: base + "a=tool:x\u{0}y\r\n") }
        #expect(throws: Never.self) { try SessionDescription(parsing: base + "a=tool:x\ty\r\n") }
    }

    @Test func aRepeatedDirectionInADataSectionKeepsItsOrder() throws {
        let text = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"
            + "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:0\r\na=sendrecv\r\na=recvonly\r\n"
        let description = try SessionDescription(parsing: text)
        #expect(description.media[0].direction == .sendrecv)
        #expect(try SessionDescription(parsing: description.serialized) == description)
    }
}
