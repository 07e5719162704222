import CarillonRTC
import Testing

/// The in-place header reader agrees with the full parser, and rewriting changes only the fixed fields.
@Suite struct RTPHeaderTests {
    @Test func agreesWithTheFullParserOnBothExtensionForms() throws {
        let packets = [
            RTPPacket(marker: true, payloadType: 111, sequenceNumber: 65_535, timestamp: 0xFFFF_FFF0, ssrc: 0xCAFE_F00D,
                      csrcs: [1, 2], extensions: [(1, [0x85]), (3, Array("mid".utf8))], payload: [1, 2, 3][...]),
            RTPPacket(payloadType: 96, sequenceNumber: 8, timestamp: 90_000, ssrc: 2,
                      extensions: [(4, [UInt8](repeating: 9, count: 20)), (5, [7, 7])], payload: [4][...]),
            RTPPacket(payloadType: 0, sequenceNumber: 1, timestamp: 2, ssrc: 3, payload: [][...]),
        ]
        for packet in packets {
            let bytes = packet.serialized()
            let header = try RTPHeader(reading: bytes)
            #expect(header.marker == packet.marker && header.payloadType == packet.payloadType)
            #expect(header.sequenceNumber == packet.sequenceNumber && header.timestamp == packet.timestamp)
            #expect(header.ssrc == packet.ssrc)
            #expect(Array(bytes[header.payloadRange]) == Array(packet.payload))
            for (id, value) in packet.extensions {
                let range = try #require(header.extensionRange(id: id, in: bytes))
                #expect(Array(bytes[range]) == value)
            }
            #expect(header.extensionRange(id: 13, in: bytes) == nil)
        }
    }

    @Test func rewritesOnlyTheFixedFields() throws {
        let original = RTPPacket(payloadType: 111, sequenceNumber: 10, timestamp: 960, ssrc: 1,
                                 extensions: [(1, [0x90])], payload: [9, 8, 7][...]).serialized()
        var bytes = original
        var header = try RTPHeader(reading: bytes)
        header.ssrc = 0xDEAD_BEEF
        header.sequenceNumber = 0xABCD
        header.payloadType = 109
        header.marker = true
        header.timestamp = 123_456
        header.write(into: &bytes)
        let parsed = try RTPPacket(parsing: bytes)
        #expect(parsed.ssrc == 0xDEAD_BEEF && parsed.sequenceNumber == 0xABCD && parsed.payloadType == 109)
        #expect(parsed.marker && parsed.timestamp == 123_456)
        #expect(parsed.extensionValue(id: 1) == [0x90])
        #expect(bytes[12...] == original[12...])
    }

    @Test func rejectsWhatTheFullParserRejects() {
        var random = SeededRandom(seed: 11)
        let valid = RTPPacket(payloadType: 111, sequenceNumber: 7, timestamp: 1, ssrc: 1, csrcs: [5],
                              extensions: [(1, [0x85]), (2, [1, 2])], payload: [1, 2, 3][...]).serialized()
        for _ in 0..<5000 {
            var mutated = valid
            for _ in 0..<2 { mutated[Int(random.next() % UInt64(mutated.count))] = UInt8(truncatingIfNeeded: random.next()) }
            let input = Array(mutated.prefix(Int(random.next() % UInt64(mutated.count + 1))))
            let full = try? RTPPacket(parsing: input)
            let header = try? RTPHeader(reading: input)
            #expect((full == nil) == (header == nil))
            if let full, let header {
                #expect(full.ssrc == header.ssrc && full.sequenceNumber == header.sequenceNumber)
                #expect(Array(input[header.payloadRange]) == Array(full.payload))
            }
        }
    }
}

/// Inputs the fuzzer found, kept as regressions.
@Suite struct RTPFuzzRegressionTests {
    @Test func aOneByteElementWithIDZeroIsPaddingAndSurvivesARoundTrip() throws {
        // Found by `make fuzz`: 0x02 (ID 0, length nibble 2) was read as an extension with ID 0, which serialised
        // into a form that did not parse back.
        let bytes: [UInt8] = [0xB1, 0xE0, 0x12, 0x34, 0, 0, 3, 0xC0, 0xDE, 0xAD, 0xBE, 0xEF, 1, 2, 3, 4,
                              0xBE, 0xDE, 0, 2, 0x02, 0x03, 0x10, 0x7F, 0, 0x21, 0x05, 0,
                              0x90, 0, 0, 0, 0xAA, 0xBB, 0xCC, 0, 0, 3]
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.extensions.allSatisfy { $0.id != 0 })
        let reparsed = try RTPPacket(parsing: packet.serialized())
        #expect(reparsed == packet)
        let header = try RTPHeader(reading: bytes)
        #expect(header.extensionRange(id: 0, in: bytes) == nil)
    }
}
