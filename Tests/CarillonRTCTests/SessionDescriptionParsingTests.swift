import CarillonRTC
import Testing

@Suite struct SessionDescriptionParsingTests {
    @Test func chromiumSessionLevel() throws {
        let sdp = try SessionDescription(parsing: SDPFixtures.chromium)
        #expect(sdp.origin == SDPOrigin(username: "-", sessionId: 4_611_731_400_430_051_336, sessionVersion: 2,
                                        address: "127.0.0.1"))
        #expect(sdp.sessionName == "-")
        #expect(!sdp.iceLite)
        #expect(sdp.bundleGroups == [["0", "1", "2", "3", "4"]])
        #expect(sdp.msidSemantic == "WMS 7a6b9d2c-1f3e-4c5a-9b8d-2e4f6a8c0d1e")
        #expect(sdp.sessionAttributes == [SDPAttribute(name: "extmap-allow-mixed")])
        #expect(sdp.fingerprint == nil && sdp.setup == nil && sdp.iceUsernameFragment == nil)
        #expect(sdp.media.map(\.mid) == ["0", "1", "2", "3", "4"])
        #expect(sdp.media.map(\.kind) == ["audio", "video", "video", "video", "application"])
        #expect(sdp.media.map(\.direction) == [.sendrecv, .sendrecv, .sendonly, .recvonly, .sendrecv])
        for section in sdp.media {
            #expect(section.iceUsernameFragment == "Fq3z" && section.icePassword == "Vx9sQ3kL8mP2nR7tY4wZ6bC1")
            #expect(section.iceOptions == ["trickle"])
            #expect(section.setup == .actpass)
            #expect(section.fingerprint == DTLSFingerprintLine(
                algorithm: "SHA-256",
                value: "7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08"))
            #expect(sdp.isBundled(mid: section.mid ?? ""))
        }
        #expect(sdp.media(mid: "3")?.direction == .recvonly)
        #expect(sdp.effectiveICECredentials(of: sdp.media[1])! == ("Fq3z", "Vx9sQ3kL8mP2nR7tY4wZ6bC1"))
    }

    @Test func chromiumAudioSection() throws {
        let audio = try SessionDescription(parsing: SDPFixtures.chromium).media[0]
        #expect(audio.port == 50123 && audio.proto == "UDP/TLS/RTP/SAVPF" && audio.isRTP)
        #expect(audio.formats == ["63", "111", "9", "0", "8", "13", "110", "126"])
        #expect(audio.connection == "IN IP4 192.0.2.10")
        #expect(audio.rtcpMux && audio.rtcpReducedSize)
        #expect(audio.otherAttributes == [SDPAttribute(name: "rtcp", value: "9 IN IP4 0.0.0.0")])
        #expect(audio.codecs.map(\.payloadType) == [63, 111, 9, 0, 8, 13, 110, 126])
        let red = try #require(audio.codec(payloadType: 63))
        #expect(red.name == "red" && red.clockRate == 48000 && red.channels == 2)
        #expect(red.parameters == [SDPCodec.Parameter(key: "111/111")] && red.fmtpText == "111/111")
        let opus = try #require(audio.codec(payloadType: 111))
        #expect(opus.name == "opus" && opus.clockRate == 48000 && opus.channels == 2)
        #expect(opus.parameters == [SDPCodec.Parameter(key: "minptime", value: "10"),
                                    SDPCodec.Parameter(key: "useinbandfec", value: "1")])
        #expect(opus.parameter("useinbandfec") == "1" && opus.parameter("stereo") == nil)
        #expect(opus.feedback == ["transport-cc"])
        #expect(audio.codec(payloadType: 9)?.channels == nil)
        #expect(audio.codec(payloadType: 126)?.clockRate == 8000)
        #expect(audio.extensions == [
            SDPExtension(id: 1, uri: SDPExtension.audioLevelURI),
            SDPExtension(id: 2, uri: SDPExtension.absoluteSendTimeURI),
            SDPExtension(id: 3, uri: SDPExtension.transportWideCCURI),
            SDPExtension(id: 4, uri: SDPExtension.midURI),
        ])
        #expect(audio.msid == [SDPMediaStreamID(streamId: "7a6b9d2c-1f3e-4c5a-9b8d-2e4f6a8c0d1e",
                                                trackId: "0c3f2a1e-9d8b-4c7a-b6e5-f4d3c2b1a098")])
        #expect(audio.ssrcs.count == 1)
        #expect(audio.ssrcs[0].ssrc == 1_001_923_412 && audio.ssrcs[0].cname == "k8Jd2mQ7pX4vR9sT")
        #expect(audio.ssrcs[0].attribute("msid") == "7a6b9d2c-1f3e-4c5a-9b8d-2e4f6a8c0d1e 0c3f2a1e-9d8b-4c7a-b6e5-f4d3c2b1a098")
    }

    @Test func chromiumCandidates() throws {
        let audio = try SessionDescription(parsing: SDPFixtures.chromium).media[0]
        #expect(audio.candidates.count == 4 && !audio.endOfCandidates)
        let host = audio.candidates[0]
        #expect(host.foundation == "2999745851" && host.component == 1 && host.transport == "udp")
        #expect(host.priority == 2_122_260_223 && host.address == "192.0.2.10" && host.port == 50123 && host.type == "host")
        #expect(host.relatedAddress == nil && host.relatedPort == nil && host.generation == 0)
        #expect(host.extensions.map(\.name) == ["generation", "network-id", "network-cost"])
        let mdns = audio.candidates[1]
        #expect(mdns.address == "3a1f9c2e-5b7d-4e8a-a0c1-6d2b8f4e9a37.local" && mdns.port == 53211)
        let tcp = audio.candidates[2]
        #expect(tcp.transport == "tcp" && tcp.port == 9 && tcp.tcpType == "active")
        let srflx = audio.candidates[3]
        #expect(srflx.type == "srflx" && srflx.relatedAddress == "192.0.2.10" && srflx.relatedPort == 50123)
        #expect(srflx.extensionValue("network-cost") == "10")
        for section in try SessionDescription(parsing: SDPFixtures.chromium).media.dropFirst() {
            #expect(section.candidates.isEmpty)
        }
    }

    @Test func chromiumSimulcastCamera() throws {
        let camera = try SessionDescription(parsing: SDPFixtures.chromium).media[1]
        #expect(camera.port == 9 && camera.connection == "IN IP4 0.0.0.0")
        #expect(camera.codecs.map(\.payloadType) == [98, 99, 102, 103, 96, 97, 45, 46, 114, 115, 116])
        #expect(camera.codecs.map(\.name) == ["VP9", "rtx", "H264", "rtx", "VP8", "rtx", "AV1", "rtx", "red", "rtx", "ulpfec"])
        #expect(camera.codecs.allSatisfy { $0.clockRate == 90000 && $0.channels == nil })
        #expect(camera.retransmissionPairs.map(\.rtx) == [99, 103, 97, 46, 115])
        #expect(camera.retransmissionPairs.map(\.apt) == [98, 102, 96, 45, 114])
        let vp9 = try #require(camera.codec(payloadType: 98))
        #expect(vp9.feedback == ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"])
        #expect(vp9.parameter("profile-id") == "0")
        let h264 = try #require(camera.codec(payloadType: 102))
        #expect(h264.parameter("profile-level-id") == "42001f" && h264.parameter("packetization-mode") == "1")
        #expect(camera.codec(payloadType: 45)?.fmtpText == "level-idx=5;profile=0;tier=0")
        #expect(camera.codec(payloadType: 99)?.feedback == [])
        #expect(camera.codec(payloadType: 116)?.parameters == [])
        #expect(camera.extensions.count == 12)
        #expect(camera.extensionId(for: SDPExtension.ridURI) == 10)
        #expect(camera.extensionId(for: SDPExtension.repairedRidURI) == 11)
        #expect(camera.extensionId(for: SDPExtension.midURI) == 4)
        #expect(camera.extensionId(for: SDPExtension.videoLayersAllocationURI) == 9)
        #expect(camera.extensions.first == SDPExtension(id: 14, uri: SDPExtension.transmissionOffsetURI))
        #expect(camera.rids == [SDPRid(id: "low", direction: .send), SDPRid(id: "mid", direction: .send),
                                SDPRid(id: "hi", direction: .send)])
        #expect(camera.simulcast == SDPSimulcast(sendRids: ["low", "mid", "hi"]))
        #expect(camera.simulcast?.sendRids == ["low", "mid", "hi"] && camera.simulcast?.receive == [])
        #expect(camera.ssrcs.isEmpty && camera.ssrcGroups.isEmpty)
    }

    @Test func chromiumContentShareRecvonlyAndDataChannel() throws {
        let sdp = try SessionDescription(parsing: SDPFixtures.chromium)
        let content = sdp.media[2]
        #expect(content.direction == .sendonly)
        #expect(content.codecs.map(\.payloadType) == [45, 46, 98, 99, 102, 103, 96, 97])
        #expect(content.codec(payloadType: 96)?.parameters == [SDPCodec.Parameter(key: "x-google-start-bitrate", value: "1000")])
        #expect(content.codec(payloadType: 102)?.parameter("x-google-start-bitrate") == "1000")
        #expect(content.extensionId(for: SDPExtension.dependencyDescriptorURI) == 12)
        #expect(content.ssrcGroups == [SDPSSRCGroup(semantics: "FID", ssrcs: [3_735_928_559, 2_882_400_001])])
        #expect(content.retransmissionSSRCs! == (3_735_928_559, 2_882_400_001))
        #expect(content.ssrcs.map(\.ssrc) == [3_735_928_559, 2_882_400_001])
        #expect(content.ssrcs.allSatisfy { $0.cname == "k8Jd2mQ7pX4vR9sT" && $0.attributes.count == 2 })
        let receive = sdp.media[3]
        #expect(receive.direction == .recvonly && receive.msid.isEmpty && receive.ssrcs.isEmpty)
        #expect(receive.codecs.count == 6)
        let data = sdp.media[4]
        #expect(data.kind == "application" && data.proto == "UDP/DTLS/SCTP" && !data.isRTP)
        #expect(data.formats == ["webrtc-datachannel"] && data.codecs.isEmpty)
        #expect(data.attributeValues("sctp-port") == ["5000"])
        #expect(data.otherAttributes == [SDPAttribute(name: "sctp-port", value: "5000"),
                                         SDPAttribute(name: "max-message-size", value: "262144")])
    }

    @Test func aiortcOffer() throws {
        let sdp = try SessionDescription(parsing: SDPFixtures.aiortc)
        #expect(sdp.origin.sessionId == 3_913_224_373 && sdp.origin.sessionVersion == 3_913_224_373)
        #expect(sdp.origin.address == "0.0.0.0")
        #expect(sdp.bundleGroups == [["0", "1"]] && sdp.msidSemantic == "WMS *")
        #expect(sdp.media.count == 2)
        let audio = sdp.media[0], video = sdp.media[1]
        for section in sdp.media {
            #expect(section.connection == "IN IP4 192.168.1.23" && section.port == 54321)
            #expect(section.iceUsernameFragment == "Yk7q" && section.icePassword == "3Hh9Qm2Vx8ZpL4tN6rB1cD5e")
            #expect(section.fingerprint?.algorithm == "sha-256")
            #expect(section.fingerprint?.value.hasPrefix("1C:6E:0B") == true)
            #expect(section.setup == .actpass && section.rtcpMux && !section.rtcpReducedSize)
            #expect(section.endOfCandidates && section.candidates.count == 2)
            #expect(section.candidates.allSatisfy { $0.usernameFragment == nil && $0.extensions.isEmpty })
            #expect(section.iceOptions == [])
            #expect(section.otherAttributes == [SDPAttribute(name: "rtcp", value: "9 IN IP4 0.0.0.0")])
        }
        #expect(audio.candidates[0].foundation == "6e2e7b1b7a8a4c0f1a9b3d5e7f2c4a6b")
        #expect(audio.candidates[1].type == "srflx" && audio.candidates[1].relatedPort == 54321)
        #expect(audio.codecs.map(\.name) == ["opus", "PCMU", "PCMA"])
        #expect(audio.codecs[0] == SDPCodec(payloadType: 96, name: "opus", clockRate: 48000, channels: 2))
        #expect(audio.ssrcs == [SDPSSRC(ssrc: 2_865_134_731, cname: "0a3b7c1e-9f2d-4e6a-8b5c-1d7e3f9a2c4b")])
        #expect(audio.extensions.map(\.uri) == [SDPExtension.midURI, SDPExtension.audioLevelURI])
        #expect(video.codecs.map(\.payloadType) == [97, 98, 99, 100, 101, 102])
        #expect(video.retransmissionPairs.map(\.apt) == [97, 99, 101])
        #expect(video.codec(payloadType: 97)?.feedback == ["nack", "nack pli", "goog-remb"])
        #expect(video.codec(payloadType: 101)?.parameter("profile-level-id") == "42e01f")
        #expect(video.ssrcGroups == [SDPSSRCGroup(semantics: "FID", ssrcs: [1_442_917_286, 3_298_347_029])])
        #expect(video.ssrcs.map(\.cname) == ["0a3b7c1e-9f2d-4e6a-8b5c-1d7e3f9a2c4b", "0a3b7c1e-9f2d-4e6a-8b5c-1d7e3f9a2c4b"])
    }

    @Test func firefoxOffer() throws {
        let sdp = try SessionDescription(parsing: SDPFixtures.firefox)
        #expect(sdp.origin.username == "mozilla...THIS_IS_SDPARTA-128.0")
        #expect(sdp.origin.sessionId == 6_549_003_437_442_366_839 && sdp.origin.sessionVersion == 0)
        #expect(sdp.fingerprint?.algorithm == "sha-256" && sdp.fingerprint?.value.hasPrefix("2E:4B") == true)
        #expect(sdp.iceOptions == ["trickle"] && sdp.msidSemantic == "WMS *")
        #expect(sdp.bundleGroups == [["0", "1", "2"]] && sdp.sessionAttributes.isEmpty)
        #expect(sdp.media.allSatisfy { $0.fingerprint == nil && $0.setup == .actpass })
        #expect(sdp.effectiveFingerprint(of: sdp.media[1]) == sdp.fingerprint)

        let audio = sdp.media[0]
        #expect(audio.endOfCandidates && audio.candidates.map(\.transport) == ["udp", "tcp", "udp"])
        #expect(audio.candidates[1].tcpType == "active" && audio.candidates[2].relatedAddress == "198.51.100.20")
        #expect(audio.extensions[1] == SDPExtension(id: 2, uri: "urn:ietf:params:rtp-hdrext:csrc-audio-level", direction: .recvonly))
        #expect(audio.codecs.map(\.payloadType) == [109, 9, 0, 8, 101])
        #expect(audio.codec(payloadType: 109)?.parameter("stereo") == "1")
        #expect(audio.codec(payloadType: 9)?.channels == 1)
        #expect(audio.codec(payloadType: 101)?.parameters == [SDPCodec.Parameter(key: "0-15")])
        #expect(audio.msid.first?.streamId == "{5a0e6b2c-7d8f-4e1a-9b3c-2d4e6f8a0b1c}")
        #expect(audio.iceUsernameFragment == "7d1a2b3c")

        let video = sdp.media[1]
        #expect(video.extensions.first { $0.id == 6 }?.direction == .sendonly)
        #expect(video.codecs.map(\.payloadType) == [120, 124, 121, 125, 126, 127, 97, 98])
        #expect(video.retransmissionPairs.map(\.rtx) == [124, 125, 127, 98])
        #expect(video.retransmissionPairs.map(\.apt) == [120, 121, 126, 97])
        #expect(video.codec(payloadType: 120)?.parameters == [SDPCodec.Parameter(key: "max-fs", value: "12288"),
                                                              SDPCodec.Parameter(key: "max-fr", value: "60")])
        #expect(video.codec(payloadType: 126)?.feedback == ["nack", "nack pli", "ccm fir", "goog-remb", "transport-cc"])
        #expect(video.codec(payloadType: 124)?.feedback == [])
        #expect(video.ssrcs.map(\.ssrc) == [2_389_455_281, 1_953_427_710])
        #expect(video.ssrcGroups.first?.ssrcs == [2_389_455_281, 1_953_427_710])

        let data = sdp.media[2]
        #expect(data.direction == .sendrecv && data.attributeValues("max-message-size") == ["1073741823"])
    }

    @Test func toleratesCRLFTrailingWhitespaceAndBrowserQuirks() throws {
        #expect(try SessionDescription(parsing: SDPFixtures.crlf(SDPFixtures.chromium))
            == SessionDescription(parsing: SDPFixtures.chromium))
        let text = """
        v=0 \r
        o=- 1 1 IN IP4 0.0.0.0\t
        s=
        t=0 0
        a=x-unknown-session:keep me
        i=session information
        m=video 0 RTP/AVPF 96 97 0
        a=rtcp-fb:* nack
        a=rtcp-fb:* nack
        a=rtcp-fb:96 goog-remb
        a=rtcp-fb:* ccm   fir
        a=fmtp:97 apt=96
        a=rtpmap:97 rtx/90000
        a=fmtp:100 ignored=1
        a=rtcp-fb:101 nack
        a=rtpmap:101 H265/90000
        a=rtpmap:96 VP8/90000
        a=x-unknown
        a=inactive
        b=AS:500
        """
        let sdp = try SessionDescription(parsing: text)
        #expect(sdp.sessionName == "-")
        #expect(sdp.sessionAttributes == [SDPAttribute(name: "x-unknown-session", value: "keep me")])
        #expect(sdp.otherLines == [SDPLine(type: "i", value: "session information")])
        let video = sdp.media[0]
        #expect(video.isRejected && video.connection == nil && video.direction == .inactive)
        #expect(video.codecs.map(\.payloadType) == [96, 97, 0])
        #expect(video.codec(payloadType: 96)?.feedback == ["nack", "goog-remb", "ccm fir"])
        #expect(video.codec(payloadType: 97)?.feedback == ["nack", "ccm fir"])
        #expect(video.codec(payloadType: 97)?.apt == 96)
        #expect(video.codec(payloadType: 0) == SDPCodec(payloadType: 0, name: "PCMU", clockRate: 8000,
                                                       feedback: ["nack", "ccm fir"]))
        #expect(video.otherAttributes == [SDPAttribute(name: "x-unknown")])
        #expect(video.otherLines == [SDPLine(type: "b", value: "AS:500")])
    }

    @Test func keepsDuplicatesOfSingleValuedAttributesAsText() throws {
        let text = """
        v=0
        o=- 1 1 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:LS 0 1
        m=audio 9 UDP/TLS/RTP/SAVPF 111 98
        a=mid:0
        a=mid:1
        a=fingerprint:sha-256 AA:BB
        a=fingerprint:sha-512 CC:DD
        a=recvonly
        a=sendonly
        a=fmtp:98 x=1
        a=rtpmap:111 opus/48000/2
        """
        let audio = try SessionDescription(parsing: text).media[0]
        #expect(audio.mid == "0" && audio.direction == .recvonly)
        #expect(audio.fingerprint == DTLSFingerprintLine(algorithm: "sha-256", value: "AA:BB"))
        #expect(audio.codecs.map(\.payloadType) == [111])
        #expect(audio.otherAttributes == [SDPAttribute(name: "mid", value: "1"), SDPAttribute(name: "fingerprint", value: "sha-512 CC:DD"),
                                          SDPAttribute(name: "sendonly"), SDPAttribute(name: "fmtp", value: "98 x=1")])
        #expect(try SessionDescription(parsing: text).sessionAttributes == [SDPAttribute(name: "group", value: "LS 0 1")])
    }

    /// A meeting offer with one recvonly video section per subscribed stream stays within the default limits.
    @Test func largeMeetingOffer() throws {
        let lines = SDPFixtures.chromium.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex(of: "a=mid:3")), mLine = start - 8
        let end = try #require(lines.firstIndex { $0.hasPrefix("m=application") })
        var text = lines[..<end].joined(separator: "\n") + "\n"
        for index in 5..<85 {
            text += lines[mLine..<end].map { $0 == "a=mid:3" ? "a=mid:\(index)" : $0 }.joined(separator: "\n") + "\n"
        }
        #expect(text.utf8.count > 96 * 1024)  // well over 64 KiB
        let sdp = try SessionDescription(parsing: text)
        #expect(sdp.media.count == 84 && sdp.media.last?.mid == "84" && sdp.media.last?.codecs.count == 6)
        #expect(try SessionDescription(parsing: sdp.serialized) == sdp)
    }

    @Test func standaloneCandidates() throws {
        let line = "candidate:842163049 1 udp 1686052607 198.51.100.7 50123 typ srflx raddr 192.0.2.10 rport 50123 generation 0 ufrag Fq3z"
        let bare = try ICECandidate(parsing: line)
        #expect(try ICECandidate(parsing: "a=" + line) == bare)
        #expect(try ICECandidate(parsing: String(line.dropFirst("candidate:".count))) == bare)
        #expect(bare.usernameFragment == "Fq3z" && bare.sdpValue == line)
        #expect(try ICECandidate(parsing: bare.sdpValue) == bare)
        let relay = try ICECandidate(parsing: "candidate:3 1 UDP 92217087 203.0.113.77 61000 typ RELAY raddr 0.0.0.0 rport 0")
        #expect(relay.transport == "udp" && relay.type == "relay" && relay.relatedPort == 0)
        #expect(Set([bare, bare, relay]).count == 2)
        let ipv6 = try ICECandidate(parsing: "candidate:1 1 udp 2122262783 2001:db8::1 50000 typ host")
        #expect(ipv6.address == "2001:db8::1")
    }
}
