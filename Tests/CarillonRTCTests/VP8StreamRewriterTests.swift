import CarillonMedia
import CarillonRTC
import NIOCore
import Testing

@Suite struct VP8StreamRewriterTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    private func forward(_ packets: [[UInt8]], through rewriter: inout VP8StreamRewriter, at now: NIODeadline)
        -> [(VP8StreamRewriter.Verdict, RTPPacket, VP8PayloadDescriptor?)] {
        packets.map { original in
            var packet = original
            let header = try! RTPHeader(reading: packet)
            let verdict = rewriter.rewrite(&packet, header: header, now: now)
            let parsed = try! RTPPacket(parsing: packet)
            return (verdict, parsed, try? VP8PayloadDescriptor(parsing: parsed.payload))
        }
    }

    @Test func aDownlinkStartsAtAKeyFrameWithItsOwnNumbers() {
        var source = VP8Stream(ssrc: 0xAAAA, payloadType: 100, firstSequenceNumber: 500, firstTimestamp: 9_000,
                               firstPictureID: 4_000)
        var rewriter = VP8StreamRewriter(ssrc: 0x5151, payloadType: 96, firstSequenceNumber: 65_535,
                                         firstPictureID: 0x7FFF)
        rewriter.switchSource(to: 0xAAAA)
        let delta = forward(source.nextFrame(key: false, size: 1_500), through: &rewriter, at: start)
        #expect(delta.map(\.0) == [.dropNeedsKeyFrame, .dropNeedsKeyFrame])
        let key = forward(source.nextFrame(key: true, size: 2_500), through: &rewriter, at: start)
        #expect(key.map(\.0) == [.forward, .forward, .forward])
        #expect(key.map(\.1.sequenceNumber) == [65_535, 0, 1])
        #expect(key.allSatisfy { $0.1.ssrc == 0x5151 && $0.1.payloadType == 96 && $0.1.timestamp == 12_000 })
        #expect(key.allSatisfy { $0.2?.pictureID == 0x7FFF })
        let next = forward(source.nextFrame(key: false, size: 500), through: &rewriter, at: start)
        #expect(next[0].1.sequenceNumber == 2 && next[0].1.timestamp == 15_000 && next[0].2?.pictureID == 0)
        // The payload after the descriptor is untouched.
        #expect(Array(next[0].1.payload.dropFirst(4)) == source.sent[15_000])
        // Packets from another SSRC are never forwarded.
        var other = VP8Stream(ssrc: 0xBBBB)
        #expect(forward(other.nextFrame(key: true, size: 300), through: &rewriter, at: start).map(\.0) == [.drop])
    }

    @Test func aSwitchContinuesEveryNumberAndSkipsOneForAnUnfinishedFrame() {
        var first = VP8Stream(ssrc: 0xAAAA, firstSequenceNumber: 100, firstTimestamp: 50_000, firstPictureID: 10)
        var second = VP8Stream(ssrc: 0xBBBB, firstSequenceNumber: 40_000, firstTimestamp: 7, firstPictureID: 30_000)
        var rewriter = VP8StreamRewriter(ssrc: 0x5151, payloadType: 96, firstSequenceNumber: 1_000,
                                         firstPictureID: 200)
        rewriter.switchSource(to: 0xAAAA)
        _ = forward(first.nextFrame(key: true, size: 2_000), through: &rewriter, at: start)
        // The last frame from the first source loses its final packet before the switch.
        let unfinished = first.nextFrame(key: false, size: 2_000)
        let sent = forward([unfinished[0]], through: &rewriter, at: start + .milliseconds(33))
        #expect(sent[0].1.sequenceNumber == 1_002 && sent[0].2?.pictureID == 201)
        rewriter.switchSource(to: 0xBBBB)
        #expect(forward([unfinished[1]], through: &rewriter, at: start + .milliseconds(34)).map(\.0) == [.drop])
        _ = forward(second.nextFrame(key: false, size: 900), through: &rewriter, at: start + .milliseconds(40))
        let switched = forward(second.nextFrame(key: true, size: 2_000), through: &rewriter,
                               at: start + .milliseconds(133))
        #expect(switched.map(\.0) == [.forward, .forward])
        // 1_002 was the last sent and its frame never ended: 1_003 is skipped.
        #expect(switched.map(\.1.sequenceNumber) == [1_004, 1_005])
        #expect(switched.allSatisfy { $0.1.ssrc == 0x5151 && $0.2?.pictureID == 202 })
        // 100 ms passed since the last packet sent: 9_000 ticks at 90 kHz.
        #expect(switched[0].1.timestamp == 53_000 &+ 9_000)
        // A reordered packet of the new source keeps its place.
        let pair = second.nextFrame(key: false, size: 2_000)
        let reordered = forward([pair[1], pair[0]], through: &rewriter, at: start + .milliseconds(170))
        #expect(reordered.map(\.1.sequenceNumber) == [1_007, 1_006])
        #expect(reordered.allSatisfy { $0.1.timestamp == 53_000 &+ 9_000 &+ 3_000 })
    }

    @Test func temporalIndicesContinueAcrossASwitch() throws {
        var rewriter = VP8StreamRewriter(ssrc: 1, payloadType: 96, firstSequenceNumber: 10, firstPictureID: 5)
        func packet(ssrc: UInt32, sequence: UInt16, key: Bool, tl0: UInt8, keyIndex: UInt8) -> [UInt8] {
            var payload: [UInt8] = []
            VP8PayloadDescriptor(startOfPartition: true, pictureID: 77, tl0PictureIndex: tl0, temporalLayer: 0,
                                 layerSync: true, keyIndex: keyIndex).write(to: &payload)
            payload += VP8Stream.frameData(key: key, size: 12, seed: 1)
            return RTPPacket(marker: true, payloadType: 96, sequenceNumber: sequence, timestamp: 0, ssrc: ssrc,
                             payload: payload[...]).serialized()
        }
        rewriter.switchSource(to: 2)
        let first = forward([packet(ssrc: 2, sequence: 1, key: true, tl0: 250, keyIndex: 30)], through: &rewriter,
                            at: start)[0].2!
        rewriter.switchSource(to: 3)
        let second = forward([packet(ssrc: 3, sequence: 9, key: true, tl0: 3, keyIndex: 1)], through: &rewriter,
                             at: start)[0].2!
        #expect(first.tl0PictureIndex.map { $0 &+ 1 } == second.tl0PictureIndex)
        #expect(first.keyIndex.map { ($0 &+ 1) & 0x1F } == second.keyIndex)
        #expect(second.temporalLayer == 0 && second.layerSync)
        #expect(first.pictureID == 5 && second.pictureID == 6)
    }

    @Test func sevenBitPictureIDsWrapModulo128AndALaterFifteenBitSourceContinuesTheCount() {
        var rewriter = VP8StreamRewriter(ssrc: 1, payloadType: 96, firstSequenceNumber: 10, firstPictureID: 0x7FFE)
        func packet(ssrc: UInt32, sequence: UInt16, key: Bool, pictureID: UInt16, long: Bool) -> [UInt8] {
            var payload: [UInt8] = []
            VP8PayloadDescriptor(startOfPartition: true, pictureID: pictureID, hasLongPictureID: long).write(to: &payload)
            payload += VP8Stream.frameData(key: key, size: 12, seed: 1)
            return RTPPacket(marker: true, payloadType: 96, sequenceNumber: sequence, timestamp: UInt32(sequence) * 3_000,
                             ssrc: ssrc, payload: payload[...]).serialized()
        }
        rewriter.switchSource(to: 2)
        // The 7-bit source counts 125, 126, 127, 0, 1, 2; one packet arrives late, after its successor.
        let ids: [UInt16] = [125, 126, 127, 0, 2, 1]
        let sequences: [UInt16] = [1, 2, 3, 4, 6, 5]
        let sent = zip(ids, sequences).map { id, sequence in
            forward([packet(ssrc: 2, sequence: sequence, key: sequence == 1, pictureID: id, long: false)],
                    through: &rewriter, at: start)[0].2!
        }
        #expect(sent.allSatisfy { !$0.hasLongPictureID })
        // The downlink starts at 0x7FFE: modulo 128 that is 126.
        #expect(sent.map(\.pictureID) == [126, 127, 0, 1, 3, 2])
        rewriter.switchSource(to: 3)
        let next = forward([packet(ssrc: 3, sequence: 40, key: true, pictureID: 9_000, long: true)], through: &rewriter,
                           at: start)[0].2!
        // The count went 0x7FFE, 0x7FFF, 0, 1, (2), 3 across the 7-bit wrap; the late packet did not pull it back.
        #expect(next.hasLongPictureID && next.pictureID == 4)
    }

    @Test func aResumeWaitsForAKeyFrameAndDropsWhatCameBefore() {
        var source = VP8Stream(ssrc: 0xAAAA)
        var rewriter = VP8StreamRewriter(ssrc: 9, payloadType: 96, firstSequenceNumber: 0, firstPictureID: 0)
        rewriter.switchSource(to: 0xAAAA)
        let early = source.nextFrame(key: true, size: 1_000)
        _ = forward(early, through: &rewriter, at: start)
        rewriter.switchSource(to: 0xAAAA)
        #expect(forward(source.nextFrame(key: false, size: 500), through: &rewriter, at: start).map(\.0)
                == [.dropNeedsKeyFrame])
        let key = forward(source.nextFrame(key: true, size: 500), through: &rewriter, at: start + .milliseconds(66))
        #expect(key[0].0 == .forward && key[0].1.sequenceNumber == 1 && key[0].2?.pictureID == 1)
        // A retransmission from before the resume point is not forwarded.
        #expect(forward(early, through: &rewriter, at: start + .milliseconds(70)).map(\.0) == [.drop])
    }
}
