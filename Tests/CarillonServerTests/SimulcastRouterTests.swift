import CarillonMedia
import CarillonRTC
import NIOCore
import Testing

@testable import CarillonServer

/// Simulcast through ``MeetingVideoRouter``: layers told apart by rid or SIM group, one layer per downlink, and
/// switches at the target's key frame with continuous numbering (`video.md` §2).
@Suite struct SimulcastRouterTests {
    let start = NIODeadline.uptimeNanoseconds(10_000_000_000)
    let publisher = SignalingConnectionID(1), receiver = SignalingConnectionID(2)
    let certificate = try! DTLSCertificate.generate()
    let candidate = STUNAddress(address: [127, 0, 0, 1], port: 4000)!
    /// The publisher's stream ids, lowest layer first.
    static let streamIds: [UInt32] = [11, 12, 13]
    static let ridExtension: UInt8 = 10

    /// A camera offer with rid simulcast (no SSRC lines, as Chromium), or with a SIM group of SSRCs.
    static func offer(sim: Bool, camera direction: String = "sendrecv") -> String {
        var text = VideoOffer.make(camera: direction, cameraSSRCs: nil, receiveMids: [])
        var camera = "a=mid:1\r\n"
        if sim {
            camera += "a=ssrc-group:SIM 100 200 300\r\n"
            for ssrc in [100, 200, 300] {
                camera += "a=ssrc-group:FID \(ssrc) \(ssrc + 1)\r\na=ssrc:\(ssrc) cname:x\r\na=ssrc:\(ssrc + 1) cname:x\r\n"
            }
        } else {
            camera += "a=extmap:\(ridExtension) urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id\r\n"
            camera += "a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id\r\n"
            camera += "a=rid:low send\r\na=rid:mid send\r\na=rid:hi send\r\na=simulcast:send low;mid;hi\r\n"
        }
        text = text.replacingOccurrences(of: "a=mid:1\r\n", with: camera)
        return text
    }

    func source(_ streamId: UInt32) -> VideoSourceReference {
        VideoSourceReference(publisher: publisher, streamId: streamId, groupId: 1, attendeeId: "pub")
    }

    /// A meeting of the simulcast publisher and a receiver of `streamId` on mid 2; `preferences` puts the receiver in
    /// server-side adaptation (mode 4), so its allocation picks the layer.
    func meeting(sim: Bool = false, receiving streamId: UInt32 = 13,
                 preferences: [String: VideoDownlinkPreference]? = nil) throws
        -> (MeetingMediaCore, MeetingMediaNegotiation, MeetingMediaNegotiation) {
        let core = MeetingMediaCore(now: start)
        let sending = try MeetingMediaNegotiation(
            offer: Self.offer(sim: sim), certificate: certificate, candidate: candidate,
            video: .init(sending: .allowed, receive: [nil], sendStreamIds: Self.streamIds))
        _ = core.add(publisher, attendeeId: "pub", negotiation: sending, now: start)
        let receiving = try MeetingMediaNegotiation(
            offer: VideoOffer.make(ufrag: "Rcv1", camera: "inactive", receiveMids: ["2"], vp8PayloadType: 100),
            certificate: certificate, candidate: candidate,
            video: .init(sending: .none, receive: [nil, source(streamId)], preferences: preferences))
        _ = core.add(receiver, attendeeId: "rcv", negotiation: receiving, now: start)
        _ = core.connected(publisher, muted: false, now: start)
        _ = core.connected(receiver, muted: false, now: start)
        return (core, sending, receiving)
    }

    /// One layer of the simulcast camera: its own SSRC, sequence, PictureID and RTP clock base, and its rid on
    /// every packet (when rid simulcast).
    struct Layer {
        let rid: String?
        let ssrc: UInt32
        let base: UInt32
        var packetizer: VP8Packetizer
        var sequence: UInt16
        var frameIndex = 0

        init(rid: String?, ssrc: UInt32, base: UInt32, pictureID: UInt16, sequence: UInt16) {
            self.rid = rid
            self.ssrc = ssrc
            self.base = base
            packetizer = VP8Packetizer(maximumPayloadSize: 1_000, firstPictureID: pictureID)
            self.sequence = sequence
        }

        /// The RTP timestamp of frame `index` (15 fps).
        func timestamp(_ index: Int) -> UInt32 { base &+ UInt32(index * 6_000) }

        mutating func frame(key: Bool, size: Int = 1_500) -> [RTPPacket] {
            var data = [UInt8](repeating: 0x33, count: size)
            data[0] = key ? 0x50 : 0x51
            if key { data[3] = 0x9D; data[4] = 0x01; data[5] = 0x2A }
            defer { frameIndex += 1 }
            return packets(data)
        }

        /// The packets of one encoded frame (`frameIndex` gives its timestamp).
        mutating func packets(_ data: [UInt8]) -> [RTPPacket] {
            let payloads = packetizer.payloads(for: data[...])
            let timestamp = timestamp(frameIndex)
            let extensions: [(id: UInt8, value: [UInt8])] = rid.map { [(SimulcastRouterTests.ridExtension, Array($0.utf8))] } ?? []
            return payloads.enumerated().map { index, payload in
                defer { sequence &+= 1 }
                return RTPPacket(marker: index == payloads.count - 1, payloadType: 96, sequenceNumber: sequence,
                                 timestamp: timestamp, ssrc: ssrc, extensions: extensions, payload: payload[...])
            }
        }
    }

    static func layers(sim: Bool) -> [Layer] {
        [Layer(rid: sim ? nil : "low", ssrc: sim ? 100 : 0xA1, base: 1_000, pictureID: 10, sequence: 100),
         Layer(rid: sim ? nil : "mid", ssrc: sim ? 200 : 0xA2, base: 500_000, pictureID: 2_000, sequence: 20_000),
         Layer(rid: sim ? nil : "hi", ssrc: sim ? 300 : 0xA3, base: 3_000_000_000, pictureID: 30_000, sequence: 65_500)]
    }

    func rtp(_ outputs: [MeetingMediaOutput]) -> [RTPPacket] {
        outputs.compactMap { output -> RTPPacket? in
            guard case .rtp(receiver, let bytes) = output else { return nil }
            return try? RTPPacket(parsing: bytes)
        }
    }

    func pictureLossRequests(_ outputs: [MeetingMediaOutput]) -> [UInt32] {
        outputs.flatMap { output -> [UInt32] in
            guard case .rtcp(publisher, let bytes) = output else { return [] }
            return ((try? RTCPPacket.parseCompound(bytes)) ?? []).compactMap {
                if case .pictureLossIndication(_, let ssrc) = $0 { ssrc } else { nil }
            }
        }
    }

    static func pictureID(_ packet: RTPPacket) -> UInt16? { try? VP8PayloadDescriptor(parsing: packet.payload).pictureID }

    @Test func theAnswerReceivesTheOfferedRidsAndTheLayersGetTheirStreamIds() throws {
        let (_, sending, _) = try meeting()
        let camera = try SessionDescription(parsing: sending.answer).media[1]
        #expect(camera.rids == ["low", "mid", "hi"].map { SDPRid(id: $0, direction: .recv) })
        #expect(camera.simulcast?.receiveRids == ["low", "mid", "hi"])
        #expect(camera.extensions.contains { $0.uri == SDPExtension.ridURI && $0.id == Self.ridExtension })
        let uplink = try #require(sending.videoUplink)
        #expect(uplink.layers.map(\.rid) == ["low", "mid", "hi"] && uplink.layers.map(\.streamId) == Self.streamIds)
        #expect(uplink.ridExtensionId == Self.ridExtension && uplink.repairedRidExtensionId == 11)
        let sim = try MeetingMediaNegotiation(offer: Self.offer(sim: true), certificate: certificate, candidate: candidate,
                                              video: .init(sending: .allowed, receive: [nil], sendStreamIds: Self.streamIds))
        #expect(sim.videoUplink?.layers.map(\.ssrc) == [100, 200, 300])
        #expect(sim.videoUplink?.layers.map(\.rtxSSRC) == [101, 201, 301])
    }

    /// A camera offered with its rids while it is off (inactive, as a browser that joined without it offers), or
    /// while sending is refused, gets them answered all the same: a browser refuses its own later offer that turns the
    /// camera on when the answer before had no rid extension.
    @Test(arguments: ["inactive", "sendrecv"]) func aCameraThatIsOffOrRefusedHasItsRidsAnswered(direction: String) throws {
        let offer = Self.offer(sim: false, camera: direction)
        let negotiation = try MeetingMediaNegotiation(offer: offer, certificate: certificate, candidate: candidate,
                                                      video: .init(sending: .none, receive: [nil]))
        let camera = try SessionDescription(parsing: negotiation.answer).media[1]
        #expect(camera.direction == .inactive && negotiation.videoUplink == nil)
        #expect(camera.rids == ["low", "mid", "hi"].map { SDPRid(id: $0, direction: .recv) })
        #expect(camera.simulcast?.receiveRids == ["low", "mid", "hi"])
        #expect(camera.extensions.contains { $0.uri == SDPExtension.ridURI && $0.id == Self.ridExtension })
        #expect(camera.extensions.contains { $0.uri == SDPExtension.repairedRidURI && $0.id == 11 })
    }

    /// Firefox under `max-bundle` offers every section after the first at port 0 with `a=bundle-only`: such a camera
    /// is taken (its rids and layers too), while a section at port 0 without it is rejected, still with a connection
    /// line (Firefox refuses an answer with a media section that has none).
    @Test func aBundleOnlyCameraIsTakenAndARejectedSectionKeepsItsConnectionLine() throws {
        let offer = Self.offer(sim: false).replacingOccurrences(of: "m=video 9 ", with: "m=video 0 ")
        #expect(offer.contains("m=video 0 "))
        let bundleOnly = try MeetingMediaNegotiation(
            offer: offer.replacingOccurrences(of: "a=mid:1\r\n", with: "a=mid:1\r\na=bundle-only\r\n"),
            certificate: certificate, candidate: candidate,
            video: .init(sending: .allowed, receive: [nil], sendStreamIds: Self.streamIds))
        let taken = try SessionDescription(parsing: bundleOnly.answer)
        #expect(taken.media[1].port == 4000 && taken.media[1].direction == .sendrecv)
        #expect(taken.bundleGroups == [["0", "1"]])
        #expect(bundleOnly.videoUplink?.layers.map(\.rid) == ["low", "mid", "hi"])

        let stopped = try MeetingMediaNegotiation(offer: offer, certificate: certificate, candidate: candidate,
                                                  video: .init(sending: .allowed, receive: [nil], sendStreamIds: Self.streamIds))
        let rejected = try SessionDescription(parsing: stopped.answer)
        #expect(rejected.media[1].port == 0 && stopped.videoUplink == nil)
        #expect(rejected.media[1].connection == "IN IP4 0.0.0.0")
        #expect(rejected.bundleGroups == [["0"]])
    }

    /// Layers learned from their rids: the downlink carries only the layer it wants; a switch to the lowest layer (a
    /// REMOTE_VIDEO_UPDATE) asks for its key frame, keeps the old layer flowing until it comes, then continues the
    /// sequence, PictureID and timeline (mapped through the layers' sender reports) on the same SSRC.
    @Test(arguments: [false, true]) func aDownlinkSwitchesLayersAtTheTargetsKeyFrame(sim: Bool) throws {
        let (core, _, receiving) = try meeting(sim: sim)
        let downlinkSSRC = try #require(receiving.tracks.first).ssrc
        var layers = Self.layers(sim: sim)
        var now = start + .milliseconds(100)
        var forwarded: [RTPPacket] = []
        // Frame 0 of every layer, key frames: only the top layer's packets go out.
        for index in layers.indices {
            forwarded += rtp(layers[index].frame(key: true).flatMap { core.receive($0, from: publisher, now: now) })
        }
        #expect(forwarded.count == 2 && forwarded.allSatisfy { $0.ssrc == downlinkSSRC && $0.payloadType == 100 })
        #expect(forwarded.map(\.timestamp) == [layers[2].timestamp(0), layers[2].timestamp(0)])
        // Sender reports of every layer, each at its own instant, all saying frame 0 was captured at one instant.
        for (index, layer) in layers.enumerated() {
            let later = NTPTimestamp(unixNanoseconds: 1_700_000_000_000_000_000 + UInt64(index) * 250_000_000)
            let report = RTCPPacket.senderReport(ssrc: layer.ssrc, ntpTimestamp: later.value,
                                                 rtpTimestamp: layer.base &+ UInt32(index * 22_500), packetCount: 2,
                                                 octetCount: 3_000, reports: [])
            _ = core.receive([report], from: publisher, now: now)
        }
        // The receiver asks for the lowest layer: a PLI for that layer's SSRC only.
        now = now + .milliseconds(400)
        #expect(pictureLossRequests(core.selectVideoLayer(11, mid: "2", for: receiver, now: now)) == [layers[0].ssrc])
        // Frame 1: the top layer still flows, the low layer's delta frame does not.
        forwarded += rtp(layers[2].frame(key: false).flatMap { core.receive($0, from: publisher, now: now) })
        #expect(rtp(layers[0].frame(key: false).flatMap { core.receive($0, from: publisher, now: now) }).isEmpty)
        #expect(forwarded.count == 4)
        // Frame 2: the low layer's key frame, 10 ms after the top layer's last packet, switches the downlink.
        _ = layers[2].frame(key: false)
        now = now + .milliseconds(10)
        let switched = rtp(layers[0].frame(key: true).flatMap { core.receive($0, from: publisher, now: now) })
        #expect(switched.count == 2)
        forwarded += switched
        // The top layer no longer goes to this receiver.
        #expect(rtp(layers[2].frame(key: false).flatMap { core.receive($0, from: publisher, now: now) }).isEmpty)
        forwarded += rtp(layers[0].frame(key: false).flatMap { core.receive($0, from: publisher, now: now) })
        #expect(forwarded.count == 8 && forwarded.allSatisfy { $0.ssrc == downlinkSSRC })
        // Continuous: sequence +1 each, PictureID +1 per picture, timestamps on the top layer's timeline.
        for pair in zip(forwarded, forwarded.dropFirst()) {
            #expect(pair.1.sequenceNumber == pair.0.sequenceNumber &+ 1)
        }
        let pictures = stride(from: 0, to: forwarded.count, by: 2).compactMap { Self.pictureID(forwarded[$0]) }
        let first = pictures[0]
        #expect(pictures == [first, first &+ 1, first &+ 2, first &+ 3].map { $0 & 0x7FFF })
        let timestamps = stride(from: 0, to: forwarded.count, by: 2).map { forwarded[$0].timestamp }
        #expect(timestamps == [0, 1, 2, 3].map { layers[2].timestamp($0) })
    }

    /// A layer change on a downlink the allocation paused asks the publisher for nothing (nothing is forwarded to wait
    /// for); once served again it does.
    @Test func anAllocationPausedDownlinkAsksForNoKeyFrameWhenItsLayerChanges() throws {
        let (core, _, _) = try meeting(sim: true, preferences: ["2": .unconfigured])
        let downlink = try #require(core.video.members[receiver]?.downlinks.first)
        downlink.pausedByAllocator = true
        #expect(pictureLossRequests(core.selectVideoLayer(11, mid: "2", for: receiver, now: start + .seconds(1))).isEmpty)
        #expect(downlink.selection.target == 11)
        downlink.pausedByAllocator = false
        #expect(pictureLossRequests(core.selectVideoLayer(12, mid: "2", for: receiver, now: start + .seconds(1))) == [200])
    }

    /// Sender reports of `layers` at `now`, all saying their frame `frame` was captured at one instant.
    func senderReports(_ layers: [Layer], frame: Int, core: MeetingMediaCore, now: NIODeadline) {
        let ntp = NTPTimestamp(unixNanoseconds: 1_700_000_000_000_000_000)
        for layer in layers {
            let report = RTCPPacket.senderReport(ssrc: layer.ssrc, ntpTimestamp: ntp.value, rtpTimestamp: layer.timestamp(frame),
                                                 packetCount: 2, octetCount: 3_000, reports: [])
            _ = core.receive([report], from: publisher, now: now)
        }
    }

    /// A downlink wanting the top layer while its sender sends only low and mid (the app's cap leaves no room for hi,
    /// INDEX still lists it): nothing while hi may still start (``MeetingVideoRouter/layerSilenceTimeout`` from the
    /// connection), then mid, the best flowing layer below hi, from its key frame (asked for); when hi starts, the
    /// downlink moves up to it at its first key frame after both layers' sender reports (asked for too), on one SSRC
    /// with continuous numbers.
    @Test func aDownlinkWantingASilentLayerGetsTheBestFlowingLayerBelowIt() throws {
        let (core, _, receiving) = try meeting(receiving: 13)
        let downlinkSSRC = try #require(receiving.tracks.first).ssrc
        var layers = Self.layers(sim: false)
        var forwardedBy: [[Int]] = [[], [], []]
        var requests: [(tick: Int, ssrcs: [UInt32])] = []
        var sent: [RTPPacket] = []
        // Ticks of 100 ms from the connection; hi (layer 2) starts at tick 20 with a key frame, the sender reports
        // come at tick 21, hi's next key frame at tick 22.
        for tick in 1...24 {
            let now = start + .milliseconds(Int64(100 * tick))
            if tick == 21 { senderReports(layers, frame: layers[0].frameIndex, core: core, now: now) }
            for index in layers.indices where index < 2 || tick >= 20 {
                let key = layers[index].frameIndex == 0 || (index == 1 && tick == 11) || (index == 2 && tick == 22)
                let outputs = layers[index].frame(key: key).flatMap { core.receive($0, from: publisher, now: now) }
                let packets = rtp(outputs)
                sent += packets
                if !packets.isEmpty { forwardedBy[index].append(tick) }
                let plis = pictureLossRequests(outputs)
                if !plis.isEmpty { requests.append((tick, plis)) }
            }
        }
        // Nothing within the first second; mid from its key frame at tick 11 up to hi's key frame at tick 22 (mid's
        // frame of that tick comes first).
        #expect(forwardedBy[0].isEmpty)
        #expect(forwardedBy[1] == Array(11...22))
        #expect(forwardedBy[2] == Array(22...24))
        // Mid's key frame asked for as the second ended (hi's SSRC unknown before it sent), hi's once it flows.
        #expect(requests.first.map { [$0.tick] + $0.ssrcs.map(Int.init) } == [10, Int(layers[1].ssrc)])
        #expect(requests.first { $0.ssrcs.contains(layers[2].ssrc) }?.tick == 20)
        #expect(sent.allSatisfy { $0.ssrc == downlinkSSRC })
        for pair in zip(sent, sent.dropFirst()) { #expect(pair.1.sequenceNumber == pair.0.sequenceNumber &+ 1) }
    }

    /// A downlink wanting the lowest layer while it sends nothing gets the lowest flowing layer above it.
    @Test func aDownlinkWantingASilentLowestLayerGetsTheLowestFlowingLayerAboveIt() throws {
        let (core, _, _) = try meeting(receiving: 11)
        var layers = Self.layers(sim: false)
        var forwardedBy: [[Int]] = [[], [], []]
        for tick in 1...14 {
            let now = start + .milliseconds(Int64(100 * tick))
            for index in 1...2 {
                let key = layers[index].frameIndex == 0 || tick == 11
                if !rtp(layers[index].frame(key: key).flatMap { core.receive($0, from: publisher, now: now) }).isEmpty {
                    forwardedBy[index].append(tick)
                }
            }
        }
        #expect(forwardedBy[1] == Array(11...14))
        #expect(forwardedBy[2].isEmpty)
    }
}

