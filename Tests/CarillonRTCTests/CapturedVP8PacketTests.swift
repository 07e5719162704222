import CarillonCodecs
import CarillonMedia
import CarillonRTC
import NIOCore
import Testing

/// The VP8 receive path against packets other stacks really sent (``CapturedVP8Stream``): descriptors parse, frames
/// reassemble and decode at the announced size, and re-packetising them with ``VP8Packetizer`` gives back the same
/// frames.
@Suite struct CapturedVP8PacketTests {
    static let captures = [CapturedVP8Stream.chromium, CapturedVP8Stream.aiortc]
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    /// The packets of a capture, parsed.
    static func parsed(_ capture: CapturedVP8Stream) throws -> [RTPPacket] {
        try capture.packets.map { try RTPPacket(parsing: $0) }
    }

    /// The capture's frames through a fresh assembler, one packet a millisecond.
    func assembled(_ packets: [RTPPacket]) -> [VP8FrameAssembler.Frame] {
        var assembler = VP8FrameAssembler()
        var frames: [VP8FrameAssembler.Frame] = []
        for (index, packet) in packets.enumerated() {
            frames += assembler.insert(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                                       marker: packet.marker, payload: packet.payload,
                                       now: start + .milliseconds(Int64(index)))
        }
        return frames
    }

    @Test(arguments: captures)
    func descriptorsDescribeOneStreamOfWholeFrames(_ capture: CapturedVP8Stream) throws {
        let packets = try Self.parsed(capture)
        #expect(Set(packets.map(\.ssrc)).count == 1)
        #expect(packets.allSatisfy { $0.payloadType == capture.payloadType })
        // Consecutive sequence numbers: nothing was lost or reordered on the way into the capture.
        for (previous, next) in zip(packets, packets.dropFirst()) {
            #expect(next.sequenceNumber == previous.sequenceNumber &+ 1)
        }
        #expect(packets.filter(\.marker).count == capture.frameCount)
        #expect(packets.last?.marker == true)
        var pictureIDs: [UInt16] = []
        var startsFrame = true
        for packet in packets {
            let descriptor = try VP8PayloadDescriptor(parsing: packet.payload)
            // A frame's first packet starts partition 0; its others continue it.
            #expect(descriptor.isStartOfFrame == startsFrame)
            #expect(descriptor.partitionIndex == 0)
            // Both stacks write 15-bit PictureIDs (aiortc 1.16 too, also below 128), and no temporal layers.
            #expect(descriptor.hasLongPictureID)
            #expect(descriptor.tl0PictureIndex == nil && descriptor.temporalLayer == nil && descriptor.keyIndex == nil)
            let pictureID = try #require(descriptor.pictureID)
            if startsFrame { pictureIDs.append(pictureID) } else { #expect(pictureID == pictureIDs.last) }
            startsFrame = packet.marker
        }
        // One PictureID per frame, each one more than the last.
        #expect(pictureIDs.count == capture.frameCount)
        for (previous, next) in zip(pictureIDs, pictureIDs.dropFirst()) { #expect(next == (previous + 1) & 0x7FFF) }
    }

    @Test func aiortcCrossesPictureID127In15BitForm() throws {
        let pictureIDs = try Self.parsed(.aiortc).filter { packet in
            try VP8PayloadDescriptor(parsing: packet.payload).isStartOfFrame
        }.map { try VP8PayloadDescriptor(parsing: $0.payload).pictureID }
        #expect(pictureIDs == [125, 126, 127, 128, 129])
    }

    @Test(arguments: captures)
    func framesReassembleAndDecodeAtTheAnnouncedSize(_ capture: CapturedVP8Stream) throws {
        let packets = try Self.parsed(capture)
        let frames = assembled(packets)
        #expect(frames.count == capture.frameCount)
        #expect(frames.map(\.isKeyFrame) == [true] + Array(repeating: false, count: capture.frameCount - 1))
        #expect(frames.first?.keyFrameSize?.width == capture.width)
        #expect(frames.first?.keyFrameSize?.height == capture.height)
        #expect(frames.map(\.packetCount).reduce(0, +) == packets.count)
        // Each frame is its packets' payloads without their descriptors, in order.
        var next = packets[...]
        for frame in frames {
            let own = next.prefix(frame.packetCount)
            next = next.dropFirst(frame.packetCount)
            #expect(own.allSatisfy { $0.timestamp == frame.timestamp })
            let data = try own.flatMap { packet in
                packet.payload.dropFirst(try VP8PayloadDescriptor(parsing: packet.payload).length)
            }
            #expect(frame.data == data)
        }
        let decoder = try VP8Decoder()
        for frame in frames {
            let image = try #require(try decoder.decode(frame.data))
            #expect(image.width == capture.width && image.height == capture.height)
        }
        #expect(!decoder.needsKeyframe)
    }

    @Test func chromiumPicturesShowItsCanvasPattern() throws {
        let decoder = try VP8Decoder()
        let readings = try assembled(try Self.parsed(.chromium)).map { frame in
            VideoPatternReading(try #require(try decoder.decode(frame.data)))
        }
        // The page paints cyan and a counter that goes up one per canvas frame (captureStream may skip one).
        // Chromium's canvas-to-I420 conversion lands about 18 levels brighter than libyuv's BT.601 value, and the
        // first key frame, at Chromium's start bitrate, some levels further in V: cyan is still nearest by far.
        #expect(readings.allSatisfy { $0.nearestColor(tolerance: 32) == .cyan }, "\(readings)")
        let counters = readings.compactMap(\.counter)
        #expect(counters.count == readings.count)
        for (previous, next) in zip(counters, counters.dropFirst()) { #expect(next > previous) }
    }

    @Test func aiortcPicturesKeepTheirChroma() throws {
        let decoder = try VP8Decoder()
        for frame in assembled(try Self.parsed(.aiortc)) {
            let reading = VideoPatternReading(try #require(try decoder.decode(frame.data)))
            // The capture's pictures are flat U 110, V 150 under grey noise.
            #expect(abs(reading.meanU - 110) < 3 && abs(reading.meanV - 150) < 3, "\(reading)")
        }
    }

    @Test(arguments: captures)
    func repacketisingGivesTheSameFrames(_ capture: CapturedVP8Stream) throws {
        let original = assembled(try Self.parsed(capture))
        // Smaller packets than either sender used, so every frame is split differently than it arrived.
        var packetizer = VP8Packetizer(maximumPayloadSize: 300, firstPictureID: 0x7FFE)
        var sequenceNumber: UInt16 = 65_530
        var packets: [RTPPacket] = []
        for frame in original {
            let payloads = packetizer.payloads(for: frame.data[...])
            for (index, payload) in payloads.enumerated() {
                packets.append(RTPPacket(marker: index == payloads.count - 1, payloadType: 96,
                                         sequenceNumber: sequenceNumber, timestamp: frame.timestamp, ssrc: 0x5EED,
                                         payload: payload[...]))
                sequenceNumber &+= 1
            }
        }
        #expect(packets.count > capture.packets.count)
        // The re-packetised stream, serialised and parsed as a receiver would get it.
        let received = try packets.map { try RTPPacket(parsing: $0.serialized()) }
        for packet in received { _ = try VP8PayloadDescriptor(parsing: packet.payload) }
        let again = assembled(received)
        #expect(again.map(\.data) == original.map(\.data))
        #expect(again.map(\.timestamp) == original.map(\.timestamp))
        #expect(again.map(\.isKeyFrame) == original.map(\.isKeyFrame))
        #expect(again.first?.keyFrameSize?.width == capture.width)
        // PictureIDs follow the packetizer, across the 15-bit wrap.
        #expect(again.map(\.pictureID) == [0x7FFE, 0x7FFF, 0, 1, 2])
        // And they decode to the same pictures.
        let first = try VP8Decoder(), second = try VP8Decoder()
        for (frame, copy) in zip(original, again) {
            let image = try #require(try first.decode(frame.data))
            let repacketised = try #require(try second.decode(copy.data))
            #expect(image == repacketised)
        }
    }

    @Test(arguments: captures)
    func reorderedArrivalGivesTheSameFrames(_ capture: CapturedVP8Stream) throws {
        let packets = try Self.parsed(capture)
        let inOrder = assembled(packets)
        // Every packet swapped with its neighbour: each frame completes only when its late packet comes.
        var shuffled = packets
        for index in stride(from: 0, to: shuffled.count - 1, by: 2) { shuffled.swapAt(index, index + 1) }
        #expect(assembled(shuffled).map(\.data) == inOrder.map(\.data))
    }
}
