import CarillonCodecs
import CarillonMedia
import CarillonRTC
import NIOCore
import Testing

@testable import Carillon

/// The client video core's receive side in virtual time: a sending core's packets go straight into a receiving
/// core (no loss), and the receiver decodes only what somebody looks at.
@Suite struct SessionVideoCoreTests {
    static let start = NIODeadline.uptimeNanoseconds(10_000_000_000)
    static let mediaSSRC: UInt32 = 0x0A0A_0001
    static let videoId = 42

    /// A sender of a 320x180 pattern and a receiver of its stream, stepped 66 ms a frame.
    final class Pair {
        let sender = SessionVideoCore()
        let receiver = SessionVideoCore()
        let pattern: VideoTestPattern
        var now = SessionVideoCoreTests.start
        var frame = 0
        /// Everything the receiver handed out, in order.
        var received: [SessionMediaEffect] = []
        /// Key-frame requests the receiver sent.
        var pictureLossIndications = 0

        init(width: Int = 320, height: Int = 180) throws {
            pattern = try VideoTestPattern(width: width, height: height, color: .green)
            _ = sender.configure(send: .init(ssrc: mediaSSRC, rtxSSRC: mediaSSRC + 1, payloadType: 96, rtxPayloadType: 97,
                                             transportCCExtensionId: nil, cname: "sender", maximumBitrate: 0,
                                             screenContent: false),
                                 receive: [], reportSSRC: 1, now: now)
            _ = receiver.configure(send: nil, receive: [.init(mid: "1", streamId: UInt32(videoId), attendeeId: "alice",
                                                               ssrc: mediaSSRC, rtxSSRC: mediaSSRC + 1, payloadType: 96,
                                                               rtxPayloadType: 97)],
                                   reportSSRC: 2, now: now)
        }

        /// Media packets (by their index among those sent) lost on the way; repairs always arrive.
        var loses: (Int) -> Bool = { _ in false }
        /// Media packets (by index) that arrive twice.
        var duplicates: (Int) -> Bool = { _ in false }
        private var mediaPacketsSent = 0
        private var highestDelivered = -1
        /// At each metrics report: media packets numbered up to the highest delivered (what the receiver expected).
        var expectedAtReports: [Int] = []

        /// Sends `count` frames, 66 ms apart, delivering every packet at once and the receiver's RTCP back to the
        /// sender; both cores are ticked at their own deadlines in between.
        func run(frames count: Int, pattern override: VideoTestPattern? = nil) {
            for _ in 0..<count {
                let image = (override ?? pattern).image(frame: frame)
                deliver(sender.send(image, timestampNanoseconds: Int64(frame) * 66_000_000, now: now))
                finishFrame()
            }
        }

        /// Sends frames that are already VP8, 66 ms apart, as ``run(frames:pattern:)`` sends pictures.
        func run(encoded frames: [EncodedVideoFrame]) {
            for encoded in frames {
                deliver(sender.send(encoded: encoded, timestampNanoseconds: Int64(frame) * 66_000_000, now: now))
                finishFrame()
            }
        }

        /// Ticks both cores at their deadlines until the next frame is due.
        private func finishFrame() {
            let frameEnd = now + .milliseconds(66)
            while let due = sender.nextDeadline.earlier(receiver.nextDeadline), due < frameEnd {
                now = max(now, due)
                if let senderDue = sender.nextDeadline, senderDue <= now { deliver(sender.tick(now: now)) }
                if let receiverDue = receiver.nextDeadline, receiverDue <= now { receiverEffects(receiver.tick(now: now)) }
            }
            frame += 1
            now = frameEnd
        }

        func setDecoded(_ decoded: Bool) {
            receiverEffects(receiver.setDecoded(decoded, videoId: videoId, now: now))
        }

        private func deliver(_ effects: [SessionMediaEffect]) {
            for case .sendRTP(let bytes) in effects {
                guard let packet = try? RTPPacket(parsing: bytes) else { continue }
                if packet.ssrc == mediaSSRC {
                    let index = mediaPacketsSent
                    mediaPacketsSent += 1
                    if loses(index) { continue }
                    highestDelivered = max(highestDelivered, index)
                    if duplicates(index) { receiverEffects(receiver.received(rtp: packet, now: now)) }
                }
                receiverEffects(receiver.received(rtp: packet, now: now))
            }
        }

        private func receiverEffects(_ effects: [SessionMediaEffect]) {
            for effect in effects {
                if case .sendRTCP(let bytes) = effect, let packets = try? RTCPPacket.parseCompound(bytes) {
                    let plis = packets.filter { if case .pictureLossIndication = $0 { true } else { false } }
                    pictureLossIndications += plis.count
                    deliver(sender.received(rtcp: packets, now: now))
                } else {
                    if case .videoMetrics = effect { expectedAtReports.append(highestDelivered + 1) }
                    received.append(effect)
                }
            }
        }

        var decodedCounters: [Int?] {
            received.compactMap { effect -> Int?? in
                guard case .remoteVideoFrame(let image?, _, _, _) = effect else { return nil }
                return VideoPatternReading(image).counter
            }
        }

        var arrivals: [(width: Int, height: Int)] {
            received.compactMap {
                guard case .remoteVideoArrived(let width, let height, _, _, _) = $0 else { return nil }
                return (width, height)
            }
        }

        var statistics: RemoteVideoStatistics? { receiver.receiveStatistics.first }

        /// The receive side of each second's metrics.
        var receiveMetrics: [VideoReceiveMetrics] {
            received.compactMap { if case .videoMetrics(let metrics) = $0 { metrics.receive.first } else { nil } }
        }

        var mediaPackets: Int { mediaPacketsSent }
    }

    /// The frame-rate cap counts pictures against a budget, not the gap to the last one: a 15 fps picture that comes
    /// 40 ms late does not cost the next, on-time one (31 ms after it, under the 30 fps cap's 33 ms), while a 60 fps
    /// source is cut to the cap and a 30 fps screen share to 15 fps.
    @Test func theFrameRateCapKeepsAnOnTimePictureAfterALateOne() throws {
        let pattern = try VideoTestPattern(width: 160, height: 90, color: .blue)
        /// Pictures encoded when `count` pictures are captured at `capturedAt(index)` milliseconds.
        func encoded(_ count: Int, screenContent: Bool = false, capturedAt: (Int) -> Int) -> Int {
            let core = SessionVideoCore()
            let send = VideoSendConfiguration(
                ssrc: Self.mediaSSRC, rtxSSRC: Self.mediaSSRC + 1, payloadType: 96, rtxPayloadType: 97,
                transportCCExtensionId: 3, cname: "camera", maximumBitrate: 0, screenContent: screenContent)
            _ = core.configure(send: send, receive: [], reportSSRC: 1, now: Self.start)
            for index in 0..<count {
                let milliseconds = capturedAt(index)
                _ = core.send(pattern.image(frame: index), timestampNanoseconds: Int64(milliseconds) * 1_000_000,
                              now: Self.start + .milliseconds(Int64(milliseconds)))
            }
            return core.framesEncoded
        }
        let onTime = { (index: Int) in index * 200 / 3 }
        #expect(encoded(30, capturedAt: onTime) == 30)
        #expect(encoded(30) { onTime($0) + ($0 == 12 ? 40 : 0) } == 30)
        #expect(encoded(30) { onTime($0) + ($0 % 5 == 2 ? 45 : 0) } == 30)
        // Faster sources: the two-picture budget, then one picture per (1 s / cap - 2 ms) of the 983 ms (1966 ms)
        // between the first picture and the last.
        #expect(encoded(60) { $0 * 50 / 3 } == 2 + 983 * 3 / 94)
        #expect(encoded(60, screenContent: true) { $0 * 100 / 3 } == 2 + 1966 * 3 / 194)
    }

    /// A camera stopped and started again on the same transport sends from the same SSRC: its numbering continues
    /// where it stopped (media and transport-wide), or the server's SRTP replay window would drop the restarted
    /// camera's packets whenever a fresh random start fell behind what it had seen.
    @Test func aRestartedCameraContinuesItsNumbering() throws {
        let core = SessionVideoCore()
        let pattern = try VideoTestPattern(width: 320, height: 180, color: .red)
        let send = VideoSendConfiguration(
            ssrc: Self.mediaSSRC, rtxSSRC: Self.mediaSSRC + 1, payloadType: 96, rtxPayloadType: 97,
            transportCCExtensionId: 3, cname: "camera", maximumBitrate: 0, screenContent: false)
        var now = Self.start
        var frame = 0
        /// Media packets' (sequence, transport-wide sequence) as they leave, over `frames` frames 66 ms apart.
        func run(frames: Int) -> [(UInt16, UInt16)] {
            var sent: [(UInt16, UInt16)] = []
            func collect(_ effects: [SessionMediaEffect]) {
                for case .sendRTP(let bytes) in effects {
                    guard let packet = try? RTPPacket(parsing: bytes), packet.ssrc == Self.mediaSSRC,
                          let value = packet.extensionBytes(id: 3),
                          let transport = RTPHeaderExtensionValue.transportSequenceNumber(value) else { continue }
                    sent.append((packet.sequenceNumber, transport))
                }
            }
            for _ in 0..<frames {
                let frameEnd = now + .milliseconds(66)
                collect(core.send(pattern.image(frame: frame), timestampNanoseconds: Int64(frame) * 66_000_000, now: now))
                while let due = core.nextDeadline, due < frameEnd {
                    now = max(now, due)
                    collect(core.tick(now: now))
                }
                frame += 1
                now = frameEnd
            }
            return sent
        }
        _ = core.configure(send: send, receive: [], reportSSRC: 1, now: now)
        let first = run(frames: 10)
        try #require(first.count >= 10)
        _ = core.configure(send: nil, receive: [], reportSSRC: 1, now: now)
        #expect(run(frames: 3).isEmpty)
        _ = core.configure(send: send, receive: [], reportSSRC: 1, now: now)
        let second = run(frames: 10)
        try #require(!second.isEmpty)
        let last = try #require(first.last), next = try #require(second.first)
        #expect(next.0 == last.0 &+ 1)
        #expect(next.1 == last.1 &+ 1)
        for (previous, packet) in zip(first + second, (first + second).dropFirst()) {
            #expect(packet.0 == previous.0 &+ 1)
        }
    }

    /// Frames that are already VP8 (a bot's prepared video) are packetised and paced as encoded pictures are: the
    /// receiver decodes every one of them, in order, at the source's size, and the sender counts what it sent.
    @Test func preEncodedFramesArriveAndDecodeAsSent() throws {
        let pair = try Pair()
        let encoder = try VP8Encoder(configuration: .init(width: 320, height: 180, bitrate: 300_000, maxFrameRate: 15))
        let frames = try (0..<20).map { index in
            try #require(try encoder.encode(pair.pattern.image(frame: index), timestamp: UInt32(index * 6_000),
                                            forceKeyframe: index == 0))
        }
        pair.setDecoded(true)
        pair.run(encoded: frames)
        #expect(pair.decodedCounters == (0..<20).map { Optional($0) })
        #expect(pair.sender.framesEncoded == 20)
        #expect(pair.sender.packetsSent == pair.mediaPackets)
        let statistics = try #require(pair.statistics)
        #expect(statistics.framesReceived == 20 && statistics.packetsReceived == pair.mediaPackets)
        #expect(statistics.width == 320 && statistics.height == 180)
    }

    /// A simulcast sender scales its own pictures: a frame that is already encoded has no layer to go on.
    @Test func aSimulcastSenderSendsNoPreEncodedFrame() throws {
        let core = SessionVideoCore()
        let layers = [SimulcastLayerSetting(rid: "low", scaleDown: 4, maxBitrateKbps: 100),
                      SimulcastLayerSetting(rid: "hi", scaleDown: 1, maxBitrateKbps: 1_000)]
        var send = VideoSendConfiguration(
            ssrc: Self.mediaSSRC, rtxSSRC: Self.mediaSSRC + 1, payloadType: 96, rtxPayloadType: 97,
            transportCCExtensionId: nil, cname: "camera", maximumBitrate: 0, screenContent: false)
        send.simulcast = SessionVideoCore.simulcastStreams(layers, videoSSRCs: (Self.mediaSSRC, Self.mediaSSRC + 1))
        _ = core.configure(send: send, receive: [], reportSSRC: 1, now: Self.start)
        let frame = EncodedVideoFrame(bytes: [0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a], isKeyframe: true, timestamp: 0,
                                      width: 320, height: 180)
        #expect(core.send(encoded: frame, timestampNanoseconds: 0, now: Self.start).isEmpty)
        #expect(core.framesEncoded == 0)
    }

    @Test func aVideoNobodyLooksAtIsReceivedButNotDecodedAndAnnouncedOnce() throws {
        let pair = try Pair()
        pair.run(frames: 30)
        #expect(pair.decodedCounters.isEmpty)
        #expect(pair.arrivals.count == 1)
        #expect(pair.arrivals.first?.width == 320 && pair.arrivals.first?.height == 180)
        let statistics = try #require(pair.statistics)
        #expect(statistics.framesReceived == 30)
        #expect(statistics.framesDecoded == 0)
        #expect(statistics.width == 320 && statistics.height == 180)
        #expect(pair.pictureLossIndications == 0)
    }

    @Test func decodingAVideoMarkedBeforeItsFirstFrameStartsWithThatFrame() throws {
        let pair = try Pair()
        pair.setDecoded(true)
        pair.run(frames: 20)
        #expect(pair.decodedCounters == (0..<20).map { Optional($0) })
        #expect(pair.arrivals.isEmpty)
        #expect(pair.pictureLossIndications == 0)
    }

    @Test func bindingLaterAsksForAKeyFrameAtOnceAndDecodesFromIt() throws {
        let pair = try Pair()
        pair.run(frames: 10)
        pair.setDecoded(true)
        // The PLI went out with the call, not at a timer.
        #expect(pair.pictureLossIndications == 1)
        pair.run(frames: 10)
        let counters = pair.decodedCounters
        // The key frame answering the PLI is the very next one encoded: nothing from the undecoded part is shown.
        #expect(counters == (10..<20).map { Optional($0) })
        #expect(pair.pictureLossIndications == 1)
        #expect(pair.statistics?.framesReceived == 20)
        #expect(pair.statistics?.framesDecoded == 10)
    }

    @Test func unbindingStopsDecodingAndTheNextFrameAnnouncesTheVideoAgain() throws {
        let pair = try Pair()
        pair.setDecoded(true)
        pair.run(frames: 5)
        pair.setDecoded(false)
        pair.run(frames: 5)
        #expect(pair.decodedCounters.count == 5)
        // Its tile may have gone with the view: the next frame brings it back, once.
        #expect(pair.arrivals.count == 1)
        #expect(pair.statistics?.framesReceived == 10)
    }

    /// A source's tile lives as long as the source: a subscription moved to another of its layers on the same m-line,
    /// or onto another SSRC, keeps the video, its id and its counters; only a source no track carries ends.
    @Test func anotherLayerOrSSRCOfTheSameSourceKeepsTheVideo() throws {
        let pair = try Pair()
        let videoId = Self.videoId
        var track = VideoReceiveTrack(mid: "1", streamId: 7, groupId: UInt32(videoId), attendeeId: "alice",
                                                  ssrc: Self.mediaSSRC, rtxSSRC: Self.mediaSSRC + 1, payloadType: 96,
                                                  rtxPayloadType: 97)
        #expect(pair.receiver.configure(send: nil, receive: [track], reportSSRC: 2, now: pair.now).isEmpty)
        pair.setDecoded(true)
        pair.run(frames: 10)
        // The sender's layers changed: the subscription is now stream 8 of the same source, on the same SSRC.
        track.streamId = 8
        #expect(pair.receiver.configure(send: nil, receive: [track], reportSSRC: 2, now: pair.now).isEmpty)
        pair.run(frames: 5)
        #expect(pair.receiver.framesDecoded == [videoId: 15])
        // The same source on another SSRC: the video continues there with its counters and nothing ends.
        let moved = Self.mediaSSRC + 0x100
        track.ssrc = moved
        track.rtxSSRC = moved + 1
        #expect(pair.receiver.configure(send: nil, receive: [track], reportSSRC: 2, now: pair.now).isEmpty)
        _ = pair.sender.configure(send: .init(ssrc: moved, rtxSSRC: moved + 1, payloadType: 96, rtxPayloadType: 97,
                                              transportCCExtensionId: nil, cname: "sender", maximumBitrate: 0,
                                              screenContent: false),
                                  receive: [], reportSSRC: 1, now: pair.now)
        pair.run(frames: 5)
        #expect(pair.receiver.framesDecoded == [videoId: 20])
        #expect(pair.statistics?.framesReceived == 20)
        #expect(!pair.received.contains { if case .remoteVideoFrame(nil, _, _, _) = $0 { true } else { false } })
        // Gone from the tracks: the video ends, once, under the source's id.
        let ended = pair.receiver.configure(send: nil, receive: [], reportSSRC: 2, now: pair.now)
        #expect(ended.count == 1)
        #expect(ended.contains { if case .remoteVideoFrame(nil, _, videoId, "alice") = $0 { true } else { false } })
    }

    @Test func anUndecodedVideoAnnouncesAKeyFrameOfANewSize() throws {
        let pair = try Pair()
        pair.run(frames: 3)
        pair.run(frames: 3, pattern: try VideoTestPattern(width: 640, height: 360, color: .green))
        #expect(pair.arrivals.map { "\($0.width)x\($0.height)" } == ["320x180", "640x360"])
        #expect(pair.statistics?.width == 640)
    }

    @Test func eachSecondsLossCountsMediaPacketsNotRepairsOrDuplicates() throws {
        let pair = try Pair()
        pair.setDecoded(true)
        // Every tenth media packet is lost once (NACK and RTX repair it); every seventh arrives twice.
        pair.loses = { $0 % 10 == 5 }
        pair.duplicates = { $0 % 7 == 3 }
        pair.run(frames: 32)
        let metrics = pair.receiveMetrics
        #expect(metrics.count == 2)
        let expected = pair.expectedAtReports
        #expect(metrics.map(\.expected) == [expected[0], expected[1] - expected[0]])
        #expect(metrics.allSatisfy { $0.lost == 0 }, "every loss was repaired before its report")
        #expect(pair.statistics?.framesDecoded == 32)
    }

    @Test func anUndecodedVideoPausedAtItsSourceIsAnnouncedAgainWithItsNextFrame() throws {
        let pair = try Pair()
        pair.run(frames: 3)
        _ = pair.receiver.setPausedAtSource([UInt32(Self.videoId)])
        pair.run(frames: 1)
        _ = pair.receiver.setPausedAtSource([])
        pair.run(frames: 2)
        #expect(pair.arrivals.count == 2)
    }
}
