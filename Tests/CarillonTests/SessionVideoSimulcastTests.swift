import CarillonCodecs
import CarillonMedia
import CarillonRTC
import NIOCore
import Testing

@testable import Carillon

/// The client video core sending simulcast: one picture becomes a frame on each layer the table and the bitrate
/// split allow, each on its own SSRC with its rid, scaled ÷4/÷2/÷1; a PLI on one layer's SSRC asks only that layer
/// for a key frame.
@Suite struct SessionVideoSimulcastTests {
    static let start = NIODeadline.uptimeNanoseconds(10_000_000_000)
    static let base: (media: UInt32, rtx: UInt32) = (0x0B0B_0001, 0x0C0C_0001)
    static let ridId: UInt8 = 10
    static let repairedRidId: UInt8 = 11

    /// What one layer sent: frames (key or not) with their size, in order.
    struct LayerFrames: Equatable {
        var rids: Set<String> = []
        var frames: [(key: Bool, size: [Int]?)] = []
        static func == (lhs: LayerFrames, rhs: LayerFrames) -> Bool {
            lhs.rids == rhs.rids && lhs.frames.map(\.key) == rhs.frames.map(\.key)
                && lhs.frames.map(\.size) == rhs.frames.map(\.size)
        }
    }

    /// A sender of `layers` for a 640×360 pattern capped at `maximumBitrate`.
    static func sender(_ layers: [SimulcastLayerSetting], maximumBitrate: Int = 0,
                       now: NIODeadline = start) -> SessionVideoCore {
        let core = SessionVideoCore()
        var send = VideoSendConfiguration(
            ssrc: base.media, rtxSSRC: base.rtx, payloadType: 96, rtxPayloadType: 97, transportCCExtensionId: nil,
            cname: "sender", maximumBitrate: maximumBitrate, screenContent: false)
        send.simulcast = SessionVideoCore.simulcastStreams(layers, videoSSRCs: base)
        send.ridExtensionId = ridId
        send.repairedRidExtensionId = repairedRidId
        _ = core.configure(send: send, receive: [], reportSSRC: 1, now: now)
        return core
    }

    /// Sends `count` pictures 66 ms apart from `frame` on and sorts every RTP packet by SSRC into frames; returns
    /// the packets.
    @discardableResult
    static func run(_ core: SessionVideoCore, pattern: VideoTestPattern, frames count: Int, from frame: Int = 0,
                    now: inout NIODeadline, into sent: inout [UInt32: LayerFrames]) throws -> [RTPPacket] {
        var packets: [RTPPacket] = []
        for index in frame..<(frame + count) {
            var effects = core.send(pattern.image(frame: index), timestampNanoseconds: Int64(index) * 66_000_000, now: now)
            let end = now + .milliseconds(66)
            while let due = core.nextDeadline, due < end {
                now = max(now, due)
                effects += core.tick(now: now)
            }
            now = end
            for case .sendRTP(let bytes) in effects {
                let packet = try RTPPacket(parsing: bytes)
                packets.append(packet)
                var layer = sent[packet.ssrc] ?? LayerFrames()
                if let rid = packet.extensionBytes(id: ridId) { layer.rids.insert(String(decoding: rid, as: UTF8.self)) }
                let descriptor = try VP8PayloadDescriptor(parsing: packet.payload)
                if descriptor.startOfPartition, descriptor.partitionIndex == 0 {
                    let key = VP8PayloadDescriptor.isKeyFrame(payload: packet.payload, descriptorLength: descriptor.length)
                    let size = VP8PayloadDescriptor.keyFrameSize(payload: packet.payload, descriptorLength: descriptor.length)
                    layer.frames.append((key, size.map { [$0.width, $0.height] }))
                }
                sent[packet.ssrc] = layer
            }
        }
        return packets
    }

    /// Seven publishers: low (÷4, 200 kbps) and mid (÷2, 360 kbps), which the start estimate (600 kbps) covers.
    static let lowAndMid = SimulcastUplinkPolicy.layers(participants: 9, publishers: 7, highResolution: false)
    static let ssrcs = SessionMediaPlan.layerSSRCs(base)

    @Test func eachActiveLayerIsSentOnItsOwnSSRCWithItsRidAndScale() throws {
        let core = Self.sender(Self.lowAndMid)
        let pattern = try VideoTestPattern(width: 640, height: 360, color: .blue)
        var now = Self.start
        var sent: [UInt32: LayerFrames] = [:]
        try Self.run(core, pattern: pattern, frames: 5, now: &now, into: &sent)
        #expect(core.layerBitrates == [200_000, 360_000, 0])
        #expect(core.layerFramesEncoded == [5, 5, 0])
        #expect(Set(sent.keys) == [Self.ssrcs[0].media, Self.ssrcs[1].media])
        let low = try #require(sent[Self.ssrcs[0].media])
        let mid = try #require(sent[Self.ssrcs[1].media])
        #expect(low.rids == ["low"] && mid.rids == ["mid"])
        #expect(low.frames.map(\.key) == [true, false, false, false, false])
        #expect(low.frames.first?.size == [160, 90])
        #expect(mid.frames.map(\.key) == [true, false, false, false, false])
        #expect(mid.frames.first?.size == [320, 180])
    }

    @Test func aPictureLossOnOneLayerAsksOnlyThatLayerForAKeyFrame() throws {
        let core = Self.sender(Self.lowAndMid)
        let pattern = try VideoTestPattern(width: 640, height: 360, color: .blue)
        var now = Self.start
        var sent: [UInt32: LayerFrames] = [:]
        try Self.run(core, pattern: pattern, frames: 3, now: &now, into: &sent)
        _ = core.received(rtcp: [.pictureLossIndication(senderSSRC: 1, mediaSSRC: Self.ssrcs[1].media)], now: now)
        try Self.run(core, pattern: pattern, frames: 2, from: 3, now: &now, into: &sent)
        #expect(sent[Self.ssrcs[0].media]?.frames.map(\.key) == [true, false, false, false, false])
        #expect(sent[Self.ssrcs[1].media]?.frames.map(\.key) == [true, false, false, true, false])
    }

    @Test func aNackIsRepairedOnTheLayersRTXStreamWithTheRepairedRid() throws {
        let core = Self.sender(Self.lowAndMid)
        let pattern = try VideoTestPattern(width: 640, height: 360, color: .blue)
        var now = Self.start
        var sent: [UInt32: LayerFrames] = [:]
        let packets = try Self.run(core, pattern: pattern, frames: 2, now: &now, into: &sent)
        let lost = try #require(packets.first { $0.ssrc == Self.ssrcs[1].media })
        let effects = core.received(rtcp: [.nack(senderSSRC: 1, mediaSSRC: Self.ssrcs[1].media,
                                                 lost: [lost.sequenceNumber])], now: now + .milliseconds(50))
        let repairs = effects.compactMap { effect -> RTPPacket? in
            guard case .sendRTP(let bytes) = effect else { return nil }
            return try? RTPPacket(parsing: bytes)
        }
        #expect(repairs.map(\.ssrc) == [Self.ssrcs[1].rtx])
        let repair = try #require(repairs.first)
        #expect(repair.payloadType == 97)
        #expect(repair.extensionBytes(id: Self.repairedRidId).map { Array($0) } == Array("mid".utf8))
        #expect(repair.extensionBytes(id: Self.ridId) == nil)
        let original = try #require(RTXStream.unwrap(repair, mediaSSRC: Self.ssrcs[1].media, mediaPayloadType: 96))
        #expect(original.sequenceNumber == lost.sequenceNumber && original.payload == lost.payload)
    }

    @Test func aNewTableTurnsLayersOffAndOnWithKeyFrames() throws {
        let core = Self.sender(Self.lowAndMid)
        let pattern = try VideoTestPattern(width: 640, height: 360, color: .blue)
        var now = Self.start
        var sent: [UInt32: LayerFrames] = [:]
        try Self.run(core, pattern: pattern, frames: 2, now: &now, into: &sent)
        // Two participants: mid only, unscaled, at the hi target (the estimate gives it 600 kbps).
        var send = VideoSendConfiguration(
            ssrc: Self.base.media, rtxSSRC: Self.base.rtx, payloadType: 96, rtxPayloadType: 97,
            transportCCExtensionId: nil, cname: "sender", maximumBitrate: 0, screenContent: false)
        send.simulcast = SessionVideoCore.simulcastStreams(
            SimulcastUplinkPolicy.layers(participants: 2, publishers: 2, highResolution: false), videoSSRCs: Self.base)
        send.ridExtensionId = Self.ridId
        send.repairedRidExtensionId = Self.repairedRidId
        _ = core.configure(send: send, receive: [], reportSSRC: 1, now: now)
        try Self.run(core, pattern: pattern, frames: 2, from: 2, now: &now, into: &sent)
        #expect(core.layerBitrates == [0, 600_000, 0])
        #expect(sent[Self.ssrcs[0].media]?.frames.count == 2)
        #expect(sent[Self.ssrcs[1].media]?.frames.map(\.key) == [true, false, true, false])
        #expect(sent[Self.ssrcs[1].media]?.frames.map(\.size) == [[320, 180], nil, [640, 360], nil])
        // Back to low + mid: low starts again with a key frame.
        send.simulcast = SessionVideoCore.simulcastStreams(Self.lowAndMid, videoSSRCs: Self.base)
        _ = core.configure(send: send, receive: [], reportSSRC: 1, now: now)
        try Self.run(core, pattern: pattern, frames: 1, from: 4, now: &now, into: &sent)
        #expect(sent[Self.ssrcs[0].media]?.frames.map(\.key) == [true, false, true])
    }

    @Test func theBitrateSplitDropsTheUpperLayerUnderACap() throws {
        // Capped at 300 kbps: low takes 200, and the 100 left is under mid's minimum (150 kbps).
        let core = Self.sender(Self.lowAndMid, maximumBitrate: 300_000)
        let pattern = try VideoTestPattern(width: 640, height: 360, color: .blue)
        var now = Self.start
        var sent: [UInt32: LayerFrames] = [:]
        try Self.run(core, pattern: pattern, frames: 2, now: &now, into: &sent)
        #expect(core.layerBitrates == [200_000, 0, 0])
        #expect(Set(sent.keys) == [Self.ssrcs[0].media])
    }
}
