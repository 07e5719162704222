import CarillonRTC
import Testing

@Suite struct RTPPacketTests {
    @Test func parsesAHandMadePacketWithCsrcsOneByteExtensionsAndPadding() throws {
        let bytes: [UInt8] = [
            0xB1, 0xE0, 0x12, 0x34,  // V=2, P=1, X=1, CC=1; M=1, PT=96; seq 0x1234
            0x00, 0x00, 0x03, 0xC0,  // timestamp 960
            0xDE, 0xAD, 0xBE, 0xEF,  // SSRC
            0x01, 0x02, 0x03, 0x04,  // CSRC
            0xBE, 0xDE, 0x00, 0x02,  // one-byte extensions, 2 words
            0x10, 0x7F,              // id 1, 1 byte: audio level (voice, 127)
            0x21, 0x00, 0x05,        // id 2, 2 bytes: transport-wide sequence 5
            0x00, 0x00, 0x00,        // padding
            0xAA, 0xBB, 0xCC,        // payload
            0x00, 0x00, 0x03,        // 3 bytes of RTP padding
        ]
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.marker && packet.payloadType == 96)
        #expect(packet.sequenceNumber == 0x1234 && packet.timestamp == 960 && packet.ssrc == 0xDEAD_BEEF)
        #expect(packet.csrcs == [0x0102_0304])
        #expect(packet.extensionValue(id: 1) == [0x7F])
        #expect(packet.extensionValue(id: 2) == [0x00, 0x05])
        #expect(Array(packet.payload) == [0xAA, 0xBB, 0xCC])
    }

    @Test func roundTripsBothExtensionForms() throws {
        let short = RTPPacket(payloadType: 111, sequenceNumber: 7, timestamp: 48_000, ssrc: 1,
                              extensions: [(1, [0x85]), (3, Array("0".utf8))], payload: [1, 2, 3][...])
        let shortBytes = short.serialized()
        #expect(Array(shortBytes[12..<14]) == [0xBE, 0xDE])
        #expect(try RTPPacket(parsing: shortBytes) == short)
        // A 20-byte value needs the two-byte form.
        let long = RTPPacket(payloadType: 96, sequenceNumber: 8, timestamp: 90_000, ssrc: 2,
                             extensions: [(4, [UInt8](repeating: 9, count: 20))], payload: [4][...])
        let longBytes = long.serialized()
        #expect(Array(longBytes[12..<14]) == [0x10, 0x00])
        #expect(try RTPPacket(parsing: longBytes) == long)
    }

    @Test func readsExtensionsInPlaceAndSerializesThemAsReceived() throws {
        let bytes: [UInt8] = [
            0x90, 0x60, 0x00, 0x01,  // V=2, X=1; PT=96; seq 1
            0x00, 0x00, 0x00, 0x01,  // timestamp 1
            0x00, 0x00, 0x00, 0x02,  // SSRC 2
            0x10, 0x00, 0x00, 0x02,  // two-byte extensions, 2 words
            0x05, 0x02, 0xAB, 0xCD,  // id 5, 2 bytes
            0x00,                    // padding between elements
            0x07, 0x00,              // id 7, empty (only the two-byte form has empty values)
            0x00,                    // padding
            0x42,                    // payload
        ]
        var packet = try RTPPacket(parsing: bytes)
        let value = try #require(packet.extensionBytes(id: 5))
        // A slice of the datagram, at the value's place in it: nothing was copied.
        #expect(value.startIndex == 18 && Array(value) == [0xAB, 0xCD])
        #expect(packet.extensionBytes(id: 7)?.isEmpty == true)
        #expect(packet.extensionBytes(id: 9) == nil)
        #expect(packet.extensions.map(\.id) == [5, 7] && packet.extensions.map(\.value) == [[0xAB, 0xCD], []])
        #expect(packet.serialized() == bytes)

        packet.extensions = [(1, [0x85])]
        let reencoded = packet.serialized()
        #expect(Array(reencoded[12..<20]) == [0xBE, 0xDE, 0x00, 0x01, 0x10, 0x85, 0x00, 0x00])
        #expect(try RTPPacket(parsing: reencoded).audioLevel(extensionId: 1) == 5)

        // In the one-byte form, id 15 ends the list (RFC 8285 §4.2): what follows is not read.
        var reserved = bytes
        reserved.replaceSubrange(12..<24, with: [0xBE, 0xDE, 0x00, 0x02, 0x10, 0x85, 0xF0, 0x21, 0x00, 0x05, 0x00, 0x00])
        let stopped = try RTPPacket(parsing: reserved)
        #expect(stopped.extensionValue(id: 1) == [0x85] && stopped.extensionBytes(id: 2) == nil)
    }

    @Test func rejectsBadInputWithoutCrashing() {
        #expect(throws: RTPError.truncated) { try RTPPacket(parsing: [0x80, 0, 0]) }
        #expect(throws: RTPError.badVersion) { try RTPPacket(parsing: [UInt8](repeating: 0, count: 12)) }
        #expect(throws: RTPError.badPadding) { try RTPPacket(parsing: [0xA0] + [UInt8](repeating: 0, count: 11) + [0x00]) }
        #expect(throws: RTPError.truncated) { try RTPPacket(parsing: [0x8F] + [UInt8](repeating: 0, count: 11)) }
        var random = SeededRandom(seed: 5)
        let valid = RTPPacket(payloadType: 111, sequenceNumber: 7, timestamp: 1, ssrc: 1, extensions: [(1, [0x85])],
                              payload: [1, 2, 3][...]).serialized()
        for _ in 0..<5000 {
            var mutated = valid
            for _ in 0..<2 { mutated[Int(random.next() % UInt64(mutated.count))] = UInt8(truncatingIfNeeded: random.next()) }
            _ = try? RTPPacket(parsing: Array(mutated.prefix(Int(random.next() % UInt64(mutated.count + 1)))))
        }
    }
}

@Suite struct RTPHeaderExtensionValueTests {
    @Test func decodesTheWebRTCExtensions() {
        #expect(RTPHeaderExtensionValue.audioLevel([0x85])! == (true, 5))
        #expect(RTPHeaderExtensionValue.audioLevel(RTPHeaderExtensionValue.audioLevelValue(voice: false, level: 200))! == (false, 127))
        #expect(RTPHeaderExtensionValue.audioLevel([]) == nil)
        #expect(RTPHeaderExtensionValue.absoluteSendTime([0x01, 0x02, 0x03]) == 0x010203)
        #expect(RTPHeaderExtensionValue.absoluteSendTime([0x01]) == nil)
        #expect(RTPHeaderExtensionValue.transportSequenceNumber([0xFF, 0xFE]) == 65_534)
        #expect(RTPHeaderExtensionValue.identifier(Array("hi".utf8) + [0]) == "hi")
        #expect(RTPHeaderExtensionValue.identifier([0xC3, 0xA9]) == nil)
    }
}
