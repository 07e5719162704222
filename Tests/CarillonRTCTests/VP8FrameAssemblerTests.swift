import CarillonMedia
import CarillonRTC
import NIOCore
import Testing

@Suite struct VP8FrameAssemblerTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test func framesLeaveWholeAndInOrderAcrossTheSequenceWrap() {
        var stream = VP8Stream(firstSequenceNumber: 65_533)
        var assembler = VP8FrameAssembler()
        let key = stream.nextFrame(key: true, size: 3_000)
        let delta = stream.nextFrame(key: false, size: 1_500)
        var frames: [VP8FrameAssembler.Frame] = []
        // Reordered within and across frames; the delta frame completes first but must wait for the key frame.
        for packet in [delta[1], key[2], delta[0], key[0]] { frames += assembler.insert(packet, now: start) }
        #expect(frames.isEmpty)
        frames += assembler.insert(key[1], now: start + .milliseconds(3))
        #expect(frames.count == 2)
        #expect(frames.map(\.timestamp) == [1_000, 4_000])
        #expect(frames[0].data == stream.sent[1_000] && frames[1].data == stream.sent[4_000])
        #expect(frames[0].isKeyFrame && !frames[1].isKeyFrame)
        #expect(frames[0].keyFrameSize?.width == 320 && frames[0].keyFrameSize?.height == 180)
        #expect(frames[0].pictureID == 100 && frames[1].pictureID == 101)
        #expect(frames[0].packetCount == 3 && frames[0].firstArrival == start)
        #expect(assembler.bufferedPackets == 0 && !assembler.isWaiting)
        // A duplicate of something already handed out is ignored.
        #expect(assembler.insert(key[1], now: start + .milliseconds(4)).isEmpty)
        #expect(assembler.statistics.packetsDiscarded == 1)
    }

    @Test func aStreamThatDoesNotStartWithAKeyFrameWaitsAndAsksForOne() {
        var stream = VP8Stream()
        var assembler = VP8FrameAssembler(configuration: .init(keyFrameRequestDelay: .milliseconds(300),
                                                               keyFrameRequestInterval: .milliseconds(500)))
        _ = stream.nextFrame(key: true, size: 2_000)  // lost entirely
        for packet in stream.nextFrame(key: false, size: 800) {
            let frames = assembler.insert(packet, now: start)
            #expect(frames.isEmpty)
        }
        #expect(assembler.nextDeadline == start + .milliseconds(300))
        let due299 = assembler.keyFrameRequestDue(now: start + .milliseconds(299))
        #expect(!due299)
        let due300 = assembler.keyFrameRequestDue(now: start + .milliseconds(300))
        #expect(due300)
        #expect(assembler.nextDeadline == start + .milliseconds(800))
        let due799 = assembler.keyFrameRequestDue(now: start + .milliseconds(799))
        #expect(!due799)
        let due800 = assembler.keyFrameRequestDue(now: start + .milliseconds(800))
        #expect(due800)
        let frames = stream.nextFrame(key: true, size: 2_500).flatMap { assembler.insert($0, now: start + .seconds(1)) }
        #expect(frames.count == 1 && frames[0].isKeyFrame)
        #expect(assembler.statistics.framesSkipped == 1)
        #expect(assembler.statistics.keyFrameRequests == 2)
        #expect(assembler.nextDeadline == nil)
    }

    @Test func aGapFilledByRetransmissionLosesNothing() {
        var stream = VP8Stream()
        var assembler = VP8FrameAssembler()
        var frames = stream.nextFrame(key: true, size: 2_000).flatMap { assembler.insert($0, now: start) }
        let lostFrame = stream.nextFrame(key: false, size: 2_000)
        frames += assembler.insert(lostFrame[0], now: start)
        let later = (0..<3).flatMap { _ in stream.nextFrame(key: false, size: 900) }
        for packet in later { frames += assembler.insert(packet, now: start + .milliseconds(30)) }
        #expect(frames.count == 1)
        #expect(assembler.isWaiting)
        frames += assembler.insert(lostFrame[1], now: start + .milliseconds(120))
        #expect(frames.count == 5)
        #expect(frames.map(\.pictureID) == [100, 101, 102, 103, 104])
        #expect(assembler.statistics.framesSkipped == 0 && assembler.statistics.keyFrameRequests == 0)
    }

    @Test func anUnrecoverableGapSkipsToTheNextKeyFrame() {
        var stream = VP8Stream()
        var assembler = VP8FrameAssembler()
        var frames = stream.nextFrame(key: true, size: 2_000).flatMap { assembler.insert($0, now: start) }
        let broken = stream.nextFrame(key: false, size: 2_000)
        frames += assembler.insert(broken[1], now: start)
        for packet in stream.nextFrame(key: false, size: 700) { frames += assembler.insert(packet, now: start) }
        #expect(frames.count == 1)
        for packet in stream.nextFrame(key: true, size: 2_000) {
            frames += assembler.insert(packet, now: start + .milliseconds(400))
        }
        #expect(frames.count == 2 && frames[1].isKeyFrame && frames[1].pictureID == 103)
        // The broken frame and the delta frame after it were skipped.
        #expect(assembler.statistics.framesSkipped == 2)
        #expect(assembler.bufferedPackets == 0)
        // A late retransmission of the skipped frame is discarded, not handed out.
        #expect(assembler.insert(broken[0], now: start + .milliseconds(450)).isEmpty)
    }

    @Test func theBufferIsBounded() {
        var stream = VP8Stream()
        var assembler = VP8FrameAssembler(configuration: .init(maximumBufferedPackets: 16))
        _ = stream.nextFrame(key: true, size: 1_000)
        for _ in 0..<20 {
            for packet in stream.nextFrame(key: false, size: 1_500) { _ = assembler.insert(packet, now: start) }
        }
        #expect(assembler.bufferedPackets == 16)
        #expect(assembler.statistics.packetsEvicted == 24)
        #expect(assembler.insert([0x80, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0x90], now: start).isEmpty)
        #expect(assembler.statistics.packetsDiscarded == 1)
    }
}
