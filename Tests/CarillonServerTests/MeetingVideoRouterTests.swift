import CarillonMedia
import CarillonRTC
import NIOCore
import Testing

@testable import CarillonServer

/// Offers as a browser makes them for Chime: audio, the camera m-line, then one recvonly m-line per remote video.
enum VideoOffer {
    static let fingerprint = "sha-256 7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08"

    static func make(ufrag: String = "Fq3z", camera: String = "sendrecv", cameraSSRCs: (UInt32, UInt32)? = (1_111, 2_222),
                     receiveMids: [String] = ["2"], vp8PayloadType: Int = 96) -> String {
        let transport = "a=ice-ufrag:\(ufrag)\r\na=ice-pwd:Vx9sQ3kL8mP2nR7tY4wZ6bC1\r\na=fingerprint:\(fingerprint)\r\na=setup:actpass\r\n"
        var text = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
        text += "a=group:BUNDLE \((["0", "1"] + receiveMids).joined(separator: " "))\r\n"
        text += "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n" + transport
        text += "a=mid:0\r\na=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\r\na=sendrecv\r\na=rtcp-mux\r\n"
        text += "a=rtpmap:111 opus/48000/2\r\na=fmtp:111 minptime=10;useinbandfec=1\r\na=ssrc:5 cname:x\r\n"
        func video(mid: String, direction: String, ssrcs: (UInt32, UInt32)?) -> String {
            var section = "m=video 9 UDP/TLS/RTP/SAVPF 98 99 \(vp8PayloadType) \(vp8PayloadType + 1)\r\nc=IN IP4 0.0.0.0\r\n"
            section += transport + "a=mid:\(mid)\r\n"
            section += "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r\n"
            section += "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\na=extmap:14 urn:ietf:params:rtp-hdrext:toffset\r\n"
            section += "a=\(direction)\r\na=rtcp-mux\r\na=rtcp-rsize\r\n"
            section += "a=rtpmap:98 VP9/90000\r\na=rtcp-fb:98 nack\r\na=rtpmap:99 rtx/90000\r\na=fmtp:99 apt=98\r\n"
            section += "a=rtpmap:\(vp8PayloadType) VP8/90000\r\n"
            for feedback in ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"] {
                section += "a=rtcp-fb:\(vp8PayloadType) \(feedback)\r\n"
            }
            section += "a=fmtp:\(vp8PayloadType) x-google-start-bitrate=1000\r\n"
            section += "a=rtpmap:\(vp8PayloadType + 1) rtx/90000\r\na=fmtp:\(vp8PayloadType + 1) apt=\(vp8PayloadType)\r\n"
            if let (media, rtx) = ssrcs {
                section += "a=ssrc-group:FID \(media) \(rtx)\r\na=ssrc:\(media) cname:x\r\na=ssrc:\(rtx) cname:x\r\n"
            }
            return section
        }
        text += video(mid: "1", direction: camera, ssrcs: camera == "sendrecv" ? cameraSSRCs : nil)
        for mid in receiveMids { text += video(mid: mid, direction: "recvonly", ssrcs: nil) }
        return text
    }
}

@Suite struct MeetingVideoRouterTests {
    let start = NIODeadline.uptimeNanoseconds(10_000_000_000)
    let publisher = SignalingConnectionID(1), receiver = SignalingConnectionID(2)
    let certificate = try! DTLSCertificate.generate()
    let candidate = STUNAddress(address: [127, 0, 0, 1], port: 4000)!

    var source: VideoSourceReference {
        VideoSourceReference(publisher: publisher, streamId: 1, groupId: 1, attendeeId: "pub")
    }

    /// A meeting with a publisher sending VP8 (PT 96, SSRC 1111, RTX 2222) and a receiver whose m-line `2` carries it
    /// with its own payload type 100.
    func meeting() throws -> (MeetingMediaCore, MeetingMediaNegotiation) {
        let core = MeetingMediaCore(now: start)
        let sending = try MeetingMediaNegotiation(offer: VideoOffer.make(receiveMids: []), certificate: certificate,
                                                  candidate: candidate, video: .init(sending: .allowed, receive: [nil]))
        _ = core.add(publisher, attendeeId: "pub", negotiation: sending, now: start)
        let receiving = try MeetingMediaNegotiation(
            offer: VideoOffer.make(ufrag: "Rcv1", camera: "inactive", receiveMids: ["2"], vp8PayloadType: 100),
            certificate: certificate, candidate: candidate, video: .init(sending: .none, receive: [nil, source]))
        _ = core.add(receiver, attendeeId: "rcv", negotiation: receiving, now: start)
        _ = core.connected(publisher, muted: false, now: start)
        _ = core.connected(receiver, muted: false, now: start)
        return (core, receiving)
    }

    /// Plain RTP packets of one VP8 frame from the publisher.
    struct Camera {
        var packetizer = VP8Packetizer(maximumPayloadSize: 1_000, firstPictureID: 500)
        var sequence: UInt16 = 40_000
        var timestamp: UInt32 = 90_000

        mutating func frame(key: Bool, size: Int = 1_500) -> [RTPPacket] {
            var data = [UInt8](repeating: 0x33, count: size)
            data[0] = key ? 0x50 : 0x51
            if key { data[3] = 0x9D; data[4] = 0x01; data[5] = 0x2A }
            let payloads = packetizer.payloads(for: data[...])
            defer { timestamp &+= 6_000 }
            return payloads.enumerated().map { index, payload in
                defer { sequence &+= 1 }
                return RTPPacket(marker: index == payloads.count - 1, payloadType: 96, sequenceNumber: sequence,
                                 timestamp: timestamp, ssrc: 1_111, payload: payload[...])
            }
        }
    }

    func rtp(_ outputs: [MeetingMediaOutput], to id: SignalingConnectionID) -> [RTPPacket] {
        outputs.compactMap { output -> RTPPacket? in
            guard case .rtp(id, let bytes) = output else { return nil }
            return try? RTPPacket(parsing: bytes)
        }
    }

    func rtcp(_ outputs: [MeetingMediaOutput], to id: SignalingConnectionID) -> [RTCPPacket] {
        outputs.flatMap { output -> [RTCPPacket] in
            guard case .rtcp(id, let bytes) = output else { return [] }
            return (try? RTCPPacket.parseCompound(bytes)) ?? []
        }
    }

    func pictureLossRequests(_ outputs: [MeetingMediaOutput]) -> Int {
        rtcp(outputs, to: publisher).filter { if case .pictureLossIndication(_, 1_111) = $0 { true } else { false } }.count
    }

    @Test func theAnswerCarriesVP8AndRTXOnlyWithTheReceiversOwnSSRCs() throws {
        let (_, receiving) = try meeting()
        let answer = try SessionDescription(parsing: receiving.answer)
        #expect(answer.media.map(\.mid) == ["0", "1", "2"])
        #expect(answer.bundleGroups == [["0", "1", "2"]])
        let camera = answer.media[1], remote = answer.media[2]
        #expect(camera.direction == .inactive)
        #expect(remote.direction == .sendonly)
        #expect(remote.codecs.map(\.name) == ["VP8", "rtx"] && remote.codecs[0].payloadType == 100)
        #expect(Set(remote.codecs[0].feedback) == ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"])
        #expect(remote.codecs[0].parameter("x-google-start-bitrate") == nil)
        #expect(remote.extensions.map(\.uri).allSatisfy(VideoSessionDescription.acceptedExtensions.contains))
        #expect(remote.msid.first?.streamId == "v_2")
        let track = try #require(receiving.tracks.first)
        #expect(receiving.tracks.count == 1 && track.mid == "2" && track.streamId == 1)
        #expect(remote.retransmissionSSRCs?.media == track.ssrc)
        // The publisher's camera m-line is answered sendrecv (the JS client reads its send codec from it).
        let sending = try MeetingMediaNegotiation(offer: VideoOffer.make(receiveMids: []), certificate: certificate,
                                                  candidate: candidate, video: .init(sending: .allowed, receive: [nil]))
        let publisherAnswer = try SessionDescription(parsing: sending.answer)
        #expect(publisherAnswer.media[1].direction == .sendrecv && publisherAnswer.media[1].codecs.map(\.name) == ["VP8", "rtx"])
        #expect(sending.videoUplink?.ssrc == 1_111 && sending.videoUplink?.rtxSSRC == 2_222)
        // Refused as a sender: the camera m-line is inactive.
        let refused = try MeetingMediaNegotiation(offer: VideoOffer.make(receiveMids: []), certificate: certificate,
                                                  candidate: candidate, video: .init(sending: .refused, receive: [nil]))
        #expect(try SessionDescription(parsing: refused.answer).media[1].direction == .inactive)
        #expect(refused.videoUplink == nil)
    }

    @Test func aRenegotiationOnTheSameTransportKeepsCredentialsAndSSRCs() throws {
        let (_, first) = try meeting()
        let again = try MeetingMediaNegotiation(
            offer: VideoOffer.make(ufrag: "Rcv1", camera: "inactive", receiveMids: ["2", "3"], vp8PayloadType: 100),
            certificate: certificate, candidate: candidate,
            video: .init(sending: .none, receive: [nil, source, source]), previous: first)
        #expect(again.continuesTransport)
        #expect(again.configuration.localICE == first.configuration.localICE && again.ssrc == first.ssrc)
        #expect(again.tracks.first == first.tracks.first && again.tracks.count == 2)
        let restarted = try MeetingMediaNegotiation(
            offer: VideoOffer.make(ufrag: "New1", camera: "inactive", receiveMids: ["2"], vp8PayloadType: 100),
            certificate: certificate, candidate: candidate, video: .init(sending: .none, receive: [nil, source]),
            previous: first)
        #expect(!restarted.continuesTransport && restarted.configuration.localICE != first.configuration.localICE)
    }

    @Test func forwardingStartsAtAKeyFrameWithTheDownlinksNumbersAndPayloadType() throws {
        let (core, receiving) = try meeting()
        let downlinkSSRC = try #require(receiving.tracks.first).ssrc
        var camera = Camera()
        var outputs = camera.frame(key: false).flatMap { core.receive($0, from: publisher, now: start) }
        #expect(rtp(outputs, to: receiver).isEmpty)
        // Connecting already asked for a key frame; the next request waits out the interval.
        #expect(pictureLossRequests(outputs) == 0)
        let later = start + MeetingVideoRouter.keyFrameRequestInterval
        outputs = camera.frame(key: false).flatMap { core.receive($0, from: publisher, now: later) }
        #expect(pictureLossRequests(outputs) == 1)
        outputs = camera.frame(key: true, size: 2_500).flatMap { core.receive($0, from: publisher, now: later) }
        let forwarded = rtp(outputs, to: receiver)
        #expect(forwarded.count == 3)
        #expect(forwarded.allSatisfy { $0.ssrc == downlinkSSRC && $0.payloadType == 100 })
        #expect(forwarded.map(\.marker) == [false, false, true])
        let sequences = forwarded.map(\.sequenceNumber)
        #expect(sequences[1] == sequences[0] &+ 1 && sequences[2] == sequences[1] &+ 1)
        #expect(try VP8PayloadDescriptor(parsing: forwarded[0].payload).isStartOfFrame)
        // The receiver negotiated transport-cc and the MID: the downlink's own transport-wide numbers from 0, and its
        // m-line's mid on every packet.
        #expect(forwarded.map { $0.extensions.map(\.id) } == [[3, 4], [3, 4], [3, 4]])
        #expect(forwarded.compactMap(Self.transportSequenceNumber) == [0, 1, 2])
        #expect(forwarded.allSatisfy { $0.extensionValue(id: 4).map { Array($0) } == Array("2".utf8) })
        let next = rtp(camera.frame(key: false).flatMap { core.receive($0, from: publisher, now: later) }, to: receiver)
        #expect(next.first?.sequenceNumber == sequences[2] &+ 1)
        #expect(next.first?.timestamp == forwarded[0].timestamp &+ 6_000)
    }

    /// The downlink's header extensions in the one-byte form, padded to whole words: the MID alone, after the
    /// transport-wide number, or left out when over 16 bytes (the form's limit).
    @Test func aDownlinkPacketCarriesItsMidInTheOneByteForm() throws {
        let media = RTPPacket(marker: true, payloadType: 96, sequenceNumber: 7, timestamp: 9, ssrc: 5,
                              payload: [1, 2, 3][...])
        var bytes: [UInt8] = []
        MeetingVideoRouter.writeDownlinkPacket(media, payloadType: 100, transportCCExtensionId: nil, mid: (4, "10"),
                                               into: &bytes)
        #expect(Array(bytes[12...]) == [0xBE, 0xDE, 0, 1, 0x41, 0x31, 0x30, 0, 1, 2, 3])
        MeetingVideoRouter.writeDownlinkPacket(media, payloadType: 100, transportCCExtensionId: 3, mid: (4, "2"),
                                               into: &bytes)
        #expect(Array(bytes[12...]) == [0xBE, 0xDE, 0, 2, 0x31, 0, 0, 0x40, 0x32, 0, 0, 0, 1, 2, 3])
        let parsed = try RTPPacket(parsing: bytes)
        #expect(parsed.payloadType == 100 && parsed.marker && Array(parsed.payload) == [1, 2, 3])
        #expect(parsed.extensionValue(id: 4).map { Array($0) } == [0x32])
        MeetingVideoRouter.writeDownlinkPacket(media, payloadType: 100, transportCCExtensionId: nil,
                                               mid: (4, String(repeating: "m", count: 17)), into: &bytes)
        #expect(bytes[0] == 0x80 && Array(bytes[12...]) == [1, 2, 3])
    }

    @Test func onlyANewOrSwitchedDownlinkAsksThePublisherForAKeyFrame() throws {
        let (core, first) = try meeting()
        let later = start + .seconds(1)
        // The same receive m-line again (a renegotiation that changes nothing for it): its stream carries on.
        let same = try MeetingMediaNegotiation(
            offer: VideoOffer.make(ufrag: "Rcv1", camera: "inactive", receiveMids: ["2"], vp8PayloadType: 100),
            certificate: certificate, candidate: candidate, video: .init(sending: .none, receive: [nil, source]),
            previous: first)
        #expect(pictureLossRequests(core.renegotiated(receiver, negotiation: same, now: later)) == 0)
        // A second m-line for the stream starts a downlink, which needs a key frame.
        let added = try MeetingMediaNegotiation(
            offer: VideoOffer.make(ufrag: "Rcv1", camera: "inactive", receiveMids: ["2", "3"], vp8PayloadType: 100),
            certificate: certificate, candidate: candidate, video: .init(sending: .none, receive: [nil, source, source]),
            previous: same)
        #expect(pictureLossRequests(core.renegotiated(receiver, negotiation: added, now: later)) == 1)
        // A session not connected yet is asked for when it connects, not when negotiated.
        let late = SignalingConnectionID(3)
        let negotiated = try MeetingMediaNegotiation(
            offer: VideoOffer.make(ufrag: "Rcv2", camera: "inactive", receiveMids: ["2"], vp8PayloadType: 100),
            certificate: certificate, candidate: candidate, video: .init(sending: .none, receive: [nil, source]))
        let atAdd = later + .seconds(1)
        #expect(pictureLossRequests(core.add(late, attendeeId: "late", negotiation: negotiated, now: atAdd)) == 0)
        #expect(pictureLossRequests(core.connected(late, muted: false, now: atAdd)) == 1)
    }

    @Test func receiverFeedbackIsAnsweredFromTheDownlinksHistoryAndThrottled() throws {
        let (core, receiving) = try meeting()
        let downlinkSSRC = try #require(receiving.tracks.first).ssrc
        var camera = Camera()
        let later = start + .seconds(1)
        let forwarded = rtp(camera.frame(key: true, size: 2_500).flatMap { core.receive($0, from: publisher, now: later) },
                            to: receiver)
        let lost = forwarded[1]
        let nack = RTCPPacket.nack(senderSSRC: 9, mediaSSRC: downlinkSSRC, lost: [lost.sequenceNumber, 1])
        let repairs = rtp(core.receive([nack], from: receiver, now: later + .milliseconds(50)), to: receiver)
        #expect(repairs.count == 1)
        let rtxSSRC = try #require(receiving.videoDownlinks.first?.rtxSSRC)
        #expect(repairs[0].ssrc == rtxSSRC && repairs[0].payloadType == 101)
        #expect(Array(repairs[0].payload.prefix(2)) == [UInt8(lost.sequenceNumber >> 8), UInt8(lost.sequenceNumber & 0xFF)])
        #expect(Array(repairs[0].payload.dropFirst(2)) == Array(lost.payload))
        // A receiver's PLI becomes one PLI to the publisher; a second one within the interval does not.
        let pli = RTCPPacket.pictureLossIndication(senderSSRC: 9, mediaSSRC: downlinkSSRC)
        #expect(pictureLossRequests(core.receive([pli], from: receiver, now: later + .milliseconds(100))) == 1)
        #expect(pictureLossRequests(core.receive([pli], from: receiver, now: later + .milliseconds(200))) == 0)
        let fir = RTCPPacket.fullIntraRequest(senderSSRC: 9, entries: [.init(ssrc: downlinkSSRC, sequenceNumber: 1)])
        #expect(pictureLossRequests(core.receive([fir], from: receiver, now: later + .milliseconds(400))) == 1)
    }

    @Test func uplinkLossIsNackedAndRTXIsUnwrappedAndForwarded() throws {
        let (core, _) = try meeting()
        var camera = Camera()
        let later = start + .seconds(1)
        var packets = camera.frame(key: true, size: 2_500)
        let missing = packets.remove(at: 1)
        var outputs = packets.flatMap { core.receive($0, from: publisher, now: later) }
        // Packets are forwarded as they come: the receiver sees the same gap and NACKs it itself.
        let sent = rtp(outputs, to: receiver)
        #expect(sent.count == 2 && sent[1].sequenceNumber == sent[0].sequenceNumber &+ 2)
        let due = try #require(core.nextDeadline)
        #expect(due <= later + MeetingVideoRouter.feedbackInterval)
        outputs = core.tick(now: later + MeetingVideoRouter.feedbackInterval)
        let nacks = rtcp(outputs, to: publisher).compactMap { if case .nack(_, 1_111, let lost) = $0 { lost } else { nil } }
        #expect(nacks == [[missing.sequenceNumber]])
        // The publisher repairs over RTX: the original sequence number leads the payload.
        let repair = RTPPacket(marker: missing.marker, payloadType: 97, sequenceNumber: 7, timestamp: missing.timestamp,
                               ssrc: 2_222, payload: ([UInt8(missing.sequenceNumber >> 8), UInt8(missing.sequenceNumber & 0xFF)]
                                                      + missing.payload)[...])
        let forwarded = rtp(core.receive(repair, from: publisher, now: later + .milliseconds(60)), to: receiver)
        #expect(forwarded.count == 1)
        #expect(forwarded.first?.sequenceNumber == sent[0].sequenceNumber &+ 1)
        // The descriptor's PictureID is the downlink's; the VP8 data after it is the original.
        #expect(forwarded.first.map { Array($0.payload.dropFirst(4)) } == Array(missing.payload.dropFirst(4)))
    }

    @Test func aPausedDownlinkSendsNothingAndResumesAtAKeyFrame() throws {
        let (core, _) = try meeting()
        var camera = Camera()
        let later = start + .seconds(1)
        _ = camera.frame(key: true).flatMap { core.receive($0, from: publisher, now: later) }
        _ = core.setVideoPaused(true, streamIds: [1], for: receiver, now: later)
        #expect(rtp(camera.frame(key: false).flatMap { core.receive($0, from: publisher, now: later) }, to: receiver).isEmpty)
        let resumed = core.setVideoPaused(false, streamIds: [1], for: receiver, now: later + .seconds(1))
        #expect(pictureLossRequests(resumed) == 1)
        #expect(rtp(camera.frame(key: false).flatMap { core.receive($0, from: publisher, now: later + .seconds(1)) },
                    to: receiver).isEmpty)
        #expect(rtp(camera.frame(key: true).flatMap { core.receive($0, from: publisher, now: later + .seconds(1)) },
                    to: receiver).count == 2)
    }

    static func transportSequenceNumber(_ packet: RTPPacket) -> UInt16? {
        packet.extensionValue(id: 3).map { UInt16($0[0]) << 8 | UInt16($0[1]) }
    }

    /// The publisher's REMB is what its slowest receiver can take: the receiver's own REMB when lower, else the
    /// receiver's transport-wide estimate (its start value here, once it gave feedback) shared among its streams.
    @Test func thePublishersREMBIsTheSmallerOfItsReceiversREMBAndEstimate() throws {
        let (core, receiving) = try meeting()
        let downlinkSSRC = try #require(receiving.tracks.first).ssrc
        var camera = Camera()
        let sent = start + .milliseconds(300)
        let forwarded = rtp(camera.frame(key: true, size: 2_500).flatMap { core.receive($0, from: publisher, now: sent) },
                            to: receiver)
        var feedback = TransportFeedbackGenerator(senderSSRC: 9, mediaSSRC: downlinkSSRC)
        for number in forwarded.compactMap(Self.transportSequenceNumber) {
            feedback.received(transportSequenceNumber: number, arrival: sent + .milliseconds(10))
        }
        let messages = feedback.poll(now: sent + .milliseconds(100))
        #expect(messages.count == 1)
        _ = core.receive(messages.map { .transportFeedback($0) }, from: receiver, now: sent + .milliseconds(100))
        func remb(at time: NIODeadline) -> UInt64? {
            rtcp(core.tick(now: time), to: publisher).compactMap {
                if case .receiverEstimatedMaximumBitrate(_, let bitrate, [1_111]) = $0 { bitrate } else { nil }
            }.first
        }
        // REMB carries an 18-bit mantissa: 2.5 Mbit/s comes out rounded up by under 0.1 %.
        let estimate = try #require(remb(at: start + .seconds(1)))
        #expect(estimate >= 2_500_000 && estimate < 2_502_500)
        let low = RTCPPacket.receiverEstimatedMaximumBitrate(senderSSRC: 9, bitrate: 300_000, ssrcs: [downlinkSSRC])
        _ = core.receive([low], from: receiver, now: start + .milliseconds(1_500))
        #expect(remb(at: start + .seconds(2)) == 300_000)
        let tiny = RTCPPacket.receiverEstimatedMaximumBitrate(senderSSRC: 9, bitrate: 20_000, ssrcs: [downlinkSSRC])
        _ = core.receive([tiny], from: receiver, now: start + .milliseconds(2_500))
        #expect(remb(at: start + .seconds(3)) == MeetingVideoRouter.minimumRemoteEstimate)
    }

    @Test func reportsGoOutEverySecond() throws {
        let (core, receiving) = try meeting()
        var camera = Camera()
        _ = camera.frame(key: true).flatMap { core.receive($0, from: publisher, now: start + .milliseconds(500)) }
        let outputs = core.tick(now: start + MeetingVideoRouter.reportInterval)
        let toReceiver = rtcp(outputs, to: receiver)
        let downlinkSSRC = try #require(receiving.tracks.first).ssrc
        #expect(toReceiver.contains { if case .senderReport(downlinkSSRC, _, _, 2, _, _) = $0 { true } else { false } })
        let toPublisher = rtcp(outputs, to: publisher)
        #expect(toPublisher.contains {
            if case .receiverReport(_, let blocks) = $0 { blocks.first?.ssrc == 1_111 } else { false }
        })
    }
}
