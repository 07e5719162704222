import CarillonRTC
import NIOCore
import Testing

/// NACKed packets come back from the send history through an RTX stream and are restored intact.
@Suite struct RTXStreamTests {
    let now = NIODeadline.uptimeNanoseconds(1_000_000_000)

    func original(_ sequence: UInt16, padded: Bool = false) -> [UInt8] {
        var bytes = RTPPacket(marker: true, payloadType: 96, sequenceNumber: sequence, timestamp: 90_000, ssrc: 0xAAAA,
                              csrcs: [9], extensions: [(3, [1, 2])], payload: [1, 2, 3, 4, 5][...]).serialized()
        if padded {
            bytes[0] |= 0x20
            bytes += [0, 0, 3]
        }
        return bytes
    }

    @Test func wrapsWithTheRTXIdentityAndRestoresTheOriginal() throws {
        var stream = RTXStream(ssrc: 0xBBBB, payloadTypes: [96: 97], firstSequenceNumber: 65_535)
        let wrappedFirst = stream.wrap(original(100))
        let first = try #require(wrappedFirst)
        let parsed = try RTPPacket(parsing: first)
        #expect(parsed.ssrc == 0xBBBB && parsed.payloadType == 97 && parsed.sequenceNumber == 65_535)
        #expect(parsed.timestamp == 90_000 && parsed.marker && parsed.csrcs == [9])
        #expect(parsed.extensionValue(id: 3) == [1, 2])
        #expect(Array(parsed.payload) == [0, 100, 1, 2, 3, 4, 5])
        // RTX sequence numbers advance and wrap on their own.
        let wrappedSecond = stream.wrap(original(7))
        let second = try #require(wrappedSecond)
        #expect(try RTPPacket(parsing: second).sequenceNumber == 0)
        #expect(RTXStream.unwrap(first, mediaSSRC: 0xAAAA, mediaPayloadTypes: [97: 96]) == original(100))
        #expect(RTXStream.unwrap(second, mediaSSRC: 0xAAAA, mediaPayloadTypes: [97: 96]) == original(7))
    }

    @Test func dropsPaddingAndRefusesUnpairedOrMalformedPackets() throws {
        var stream = RTXStream(ssrc: 0xBBBB, payloadTypes: [96: 97])
        let wrappedPadded = stream.wrap(original(5, padded: true))
        let wrapped = try #require(wrappedPadded)
        #expect(RTXStream.unwrap(wrapped, mediaSSRC: 0xAAAA, mediaPayloadTypes: [97: 96]) == original(5))
        #expect(stream.wrap(RTPPacket(payloadType: 111, sequenceNumber: 1, timestamp: 1, ssrc: 1, payload: [1][...])
            .serialized()) == nil)
        #expect(stream.wrap([0x80, 96]) == nil)
        #expect(RTXStream.unwrap(wrapped, mediaSSRC: 0xAAAA, mediaPayloadTypes: [98: 96]) == nil)
        let probe = RTPPacket(payloadType: 97, sequenceNumber: 1, timestamp: 1, ssrc: 0xBBBB, payload: [][...]).serialized()
        #expect(RTXStream.unwrap(probe, mediaSSRC: 0xAAAA, mediaPayloadTypes: [97: 96]) == nil)
    }

    @Test func nackedPacketsAreRetransmittedFromTheHistory() throws {
        var history = RTPSendHistory(capacity: 64)
        for sequence in UInt16(0)..<20 { history.store(sequenceNumber: sequence, packet: original(sequence), now: now) }
        let nack = RTCPPacket.nack(senderSSRC: 1, mediaSSRC: 0xAAAA, lost: [3, 4, 17])
        guard case .nack(_, _, let lost) = try RTCPPacket.parseCompound(nack.serialized()).first else {
            Issue.record("NACK did not parse back")
            return
        }
        var stream = RTXStream(ssrc: 0xBBBB, payloadTypes: [96: 97])
        let repaired = lost.compactMap { history.packet(sequenceNumber: $0, now: now + .milliseconds(50)) }
            .compactMap { stream.wrap($0) }
            .compactMap { RTXStream.unwrap($0, mediaSSRC: 0xAAAA, mediaPayloadTypes: [97: 96]) }
        #expect(repaired == [original(3), original(4), original(17)])
        // Too old to be worth resending.
        #expect(history.packet(sequenceNumber: 3, now: now + .seconds(2)) == nil)
    }

    @Test func aParsedRTXPacketUnwrapsWithoutItsPayloadCopied() throws {
        var stream = RTXStream(ssrc: 0x2222, payloadTypes: [96: 97], firstSequenceNumber: 40)
        let original = RTPPacket(marker: true, payloadType: 96, sequenceNumber: 1_234, timestamp: 99, ssrc: 0x1111,
                                 extensions: [(id: 3, value: [0, 7])], payload: [9, 8, 7, 6][...])
        let wrapping = stream.wrap(original.serialized())
        let wrapped = try #require(wrapping)
        let parsed = try RTPPacket(parsing: wrapped)
        let restored = try #require(RTXStream.unwrap(parsed, mediaSSRC: 0x1111, mediaPayloadType: 96))
        #expect(restored == original)
        // Padding (a payload of the sequence number only) restores nothing.
        let padding = RTPPacket(payloadType: 97, sequenceNumber: 41, timestamp: 99, ssrc: 0x2222, payload: [4, 210][...])
        #expect(RTXStream.unwrap(padding, mediaSSRC: 0x1111, mediaPayloadType: 96) == nil)
    }
}
