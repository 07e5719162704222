import CarillonRTC
import Testing

@Suite struct RTCPPacketTests {
    let block = RTCPPacket.ReportBlock(ssrc: 0x1111_2222, fractionLost: 32, cumulativeLost: -3, extendedHighestSequence: 70_000,
                                       jitter: 45, lastSenderReport: 0xAABB_CCDD, delaySinceLastSenderReport: 65_536)

    @Test func compoundSenderAndReceiverReportsRoundTrip() throws {
        let sr = RTCPPacket.senderReport(ssrc: 1, ntpTimestamp: 0x0102_0304_0506_0708, rtpTimestamp: 960, packetCount: 10,
                                         octetCount: 1600, reports: [block])
        let rr = RTCPPacket.receiverReport(ssrc: 2, reports: [block, block])
        let bytes = sr.serialized() + rr.serialized()
        #expect(bytes.count == 52 + 56)
        #expect(Array(bytes[0..<4]) == [0x81, 200, 0x00, 12])
        #expect(try RTCPPacket.parseCompound(bytes) == [sr, rr])
    }

    @Test func nackPidAndBitmaskExpandAndPack() throws {
        // PID 100 with BLP 0x0005: 100, 101 and 103 lost; a second pair for 200.
        let bytes: [UInt8] = [0x81, 205, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 2, 0x00, 100, 0x00, 0x05, 0x00, 200, 0x00, 0x00]
        let parsed = try RTCPPacket.parseCompound(bytes)
        #expect(parsed == [.nack(senderSSRC: 1, mediaSSRC: 2, lost: [100, 101, 103, 200])])
        #expect(parsed[0].serialized() == bytes)
        // Across the sequence wrap.
        let wrapped = RTCPPacket.nack(senderSSRC: 1, mediaSSRC: 2, lost: [65_535, 0, 3])
        #expect(try RTCPPacket.parseCompound(wrapped.serialized()) == [wrapped])
    }

    @Test func pliAndUnknownPacketsSurvive() throws {
        let pli = RTCPPacket.pictureLossIndication(senderSSRC: 5, mediaSSRC: 6)
        let sdes: [UInt8] = [0x81, 202, 0x00, 0x02, 0, 0, 0, 5, 0x01, 0x01, 0x41, 0x00]
        let parsed = try RTCPPacket.parseCompound(pli.serialized() + sdes)
        #expect(parsed == [pli, .other(packetType: 202, bytes: sdes)])
    }

    @Test func badInputIsRejectedWithoutCrashing() {
        #expect(throws: RTCPError.truncated) { try RTCPPacket.parseCompound([]) }
        #expect(throws: RTCPError.badVersion) { try RTCPPacket.parseCompound([0x00, 201, 0, 1, 0, 0, 0, 0]) }
        #expect(throws: RTCPError.truncated) { try RTCPPacket.parseCompound([0x80, 201, 0, 9, 0, 0, 0, 0]) }
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound([0x81, 201, 0, 1, 0, 0, 0, 0]) }
        var random = SeededRandom(seed: 8)
        let valid = RTCPPacket.receiverReport(ssrc: 2, reports: [block]).serialized()
            + RTCPPacket.nack(senderSSRC: 1, mediaSSRC: 2, lost: [1, 5, 9]).serialized()
        for _ in 0..<5000 {
            var mutated = valid
            for _ in 0..<2 { mutated[Int(random.next() % UInt64(mutated.count))] = UInt8(truncatingIfNeeded: random.next()) }
            _ = try? RTCPPacket.parseCompound(Array(mutated.prefix(Int(random.next() % UInt64(mutated.count + 1)))))
        }
    }
}
