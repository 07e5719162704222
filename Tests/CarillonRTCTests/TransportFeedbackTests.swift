import CarillonRTC
import Testing

@Suite struct TransportFeedbackTests {
    func feedback(_ bytes: [UInt8]) throws -> TransportFeedback {
        let parsed = try RTCPPacket.parseCompound(bytes)
        guard parsed.count == 1, case .transportFeedback(let feedback) = parsed[0] else {
            Issue.record("not transport feedback: \(parsed)")
            return TransportFeedback(senderSSRC: 0, mediaSSRC: 0, baseSequenceNumber: 0, referenceTime: 0, feedbackPacketCount: 0)
        }
        return feedback
    }

    func add(_ feedback: inout TransportFeedback, sequenceNumber: UInt16, arrivalTicks: Int64) -> Bool {
        feedback.addReceived(sequenceNumber: sequenceNumber, arrivalTicks: arrivalTicks)
    }

    @Test func twoBitVectorWithLargeAndNegativeDeltas() throws {
        // Written from the draft's layout: base 100, 5 statuses, reference 0x000102, feedback count 7; one 2-bit vector
        // chunk (small, lost, large, small, large) = 0b11_01_00_10_01_10_00_00; deltas 4, 300, 0, -8 ticks.
        let bytes: [UInt8] = [0x8F, 205, 0x00, 0x06,
                              0x01, 0x02, 0x03, 0x04,
                              0x05, 0x06, 0x07, 0x08,
                              0x00, 0x64, 0x00, 0x05,
                              0x00, 0x01, 0x02, 0x07,
                              0xD2, 0x60, 0x04, 0x01,
                              0x2C, 0x00, 0xFF, 0xF8]
        let parsed = try feedback(bytes)
        #expect(parsed.senderSSRC == 0x0102_0304)
        #expect(parsed.mediaSSRC == 0x0506_0708)
        #expect(parsed.baseSequenceNumber == 100)
        #expect(parsed.referenceTime == 0x102)
        #expect(parsed.feedbackPacketCount == 7)
        #expect(parsed.packets.map(\.sequenceNumber) == [100, 101, 102, 103, 104])
        #expect(parsed.packets.map(\.arrivalTicks) == [4, nil, 304, 304, 296])
        #expect(parsed.packets[2].arrivalOffset == .microseconds(76_000))
        #expect(RTCPPacket.transportFeedback(parsed).serialized() == bytes)
    }

    @Test func runLengthAndOneBitVectorAcrossTheWrapWithPadding() throws {
        // Base 0xFFFE, 16 statuses: a run of 14 small deltas (0x200E), then a 1-bit vector [lost, received] (0x9000);
        // deltas 10, 1 x 13, then 2; 35 bytes after the header, so one padding byte counted by itself, P bit set.
        let bytes: [UInt8] = [0xAF, 205, 0x00, 0x09,
                              0x00, 0x00, 0x00, 0x01,
                              0x00, 0x00, 0x00, 0x00,
                              0xFF, 0xFE, 0x00, 0x10,
                              0x12, 0x34, 0x56, 0xFF,
                              0x20, 0x0E, 0x90, 0x00,
                              0x0A] + [UInt8](repeating: 0x01, count: 13) + [0x02, 0x01]
        let parsed = try feedback(bytes)
        #expect(parsed.baseSequenceNumber == 0xFFFE)
        #expect(parsed.referenceTime == 0x12_3456)
        #expect(parsed.feedbackPacketCount == 0xFF)
        #expect(parsed.packets.count == 16)
        #expect(parsed.packets.map(\.sequenceNumber) == [0xFFFE, 0xFFFF] + Array(0...13))
        #expect(parsed.packets.compactMap(\.arrivalTicks) == Array(10...23) + [25])
        #expect(parsed.packets.filter { !$0.isReceived }.map(\.sequenceNumber) == [12])
        #expect(RTCPPacket.transportFeedback(parsed).serialized() == bytes)
    }

    @Test func builderFillsGapsAndRefusesWhatDoesNotFit() {
        var built = TransportFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 10, referenceTime: 0x1FF_FFFF,
                                      feedbackPacketCount: 0)
        #expect(built.referenceTime == 0xFF_FFFF)
        #expect(add(&built, sequenceNumber: 12, arrivalTicks: 5))
        #expect(built.packets.map(\.isReceived) == [false, false, true])
        // Not ahead of the last result.
        #expect(!add(&built, sequenceNumber: 12, arrivalTicks: 6))
        #expect(!add(&built, sequenceNumber: 11, arrivalTicks: 6))
        // A delta beyond 16 signed bits.
        #expect(!add(&built, sequenceNumber: 13, arrivalTicks: 5 + 32_768))
        #expect(!add(&built, sequenceNumber: 13, arrivalTicks: 5 - 32_769))
        #expect(add(&built, sequenceNumber: 13, arrivalTicks: 5 - 32_768))
        #expect(built.packets.count == 4)
        #expect(built.nextSequenceNumber == 14)
    }

    @Test func randomFeedbackRoundTripsCompactly() throws {
        var random = SeededRandom(seed: 42)
        for round in 0..<300 {
            var built = TransportFeedback(senderSSRC: UInt32(round), mediaSSRC: 9, baseSequenceNumber: UInt16(truncatingIfNeeded: random.next()),
                                          referenceTime: UInt32(truncatingIfNeeded: random.next()), feedbackPacketCount: UInt8(round & 0xFF))
            var sequence = built.baseSequenceNumber
            var ticks: Int64 = Int64(random.next() % 256)
            let count = 1 + Int(random.next() % 400)
            for _ in 0..<count {
                sequence &+= UInt16(random.next() % 100 < 80 ? 0 : random.next() % 30)
                switch random.next() % 10 {
                case 0: ticks -= Int64(random.next() % 2000)
                case 1: ticks += 256 + Int64(random.next() % 20_000)
                default: ticks += Int64(random.next() % 40)
                }
                #expect(add(&built, sequenceNumber: sequence, arrivalTicks: ticks))
                sequence &+= 1
            }
            let bytes = RTCPPacket.transportFeedback(built).serialized()
            #expect(bytes.count % 4 == 0)
            #expect(try RTCPPacket.parseCompound(bytes) == [.transportFeedback(built)])
        }
        // Long runs cost one chunk each: 1000 lost between two received packets is 3 chunks, not 72 vectors.
        var sparse = TransportFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, referenceTime: 0, feedbackPacketCount: 0)
        sparse.addReceived(sequenceNumber: 0, arrivalTicks: 1)
        sparse.addReceived(sequenceNumber: 1001, arrivalTicks: 2)
        #expect(RTCPPacket.transportFeedback(sparse).serialized().count == 20 + 6 + 2)
    }

    @Test func malformedTransportFeedbackIsRejected() {
        let header: [UInt8] = [0, 0, 0, 1, 0, 0, 0, 2]
        func packet(_ rest: [UInt8], padding: Bool = false) -> [UInt8] {
            let body = header + rest
            return [padding ? 0xAF : 0x8F, 205, 0x00, UInt8(body.count / 4)] + body
        }
        // No statuses.
        #expect(throws: RTCPError.badField) { try RTCPPacket.parseCompound(packet([0, 1, 0, 0, 0, 0, 0, 0])) }
        // Reserved symbol in a run and in a 2-bit vector.
        #expect(throws: RTCPError.badField) { try RTCPPacket.parseCompound(packet([0, 1, 0, 1, 0, 0, 0, 0, 0x60, 0x01, 0, 0])) }
        #expect(throws: RTCPError.badField) { try RTCPPacket.parseCompound(packet([0, 1, 0, 1, 0, 0, 0, 0, 0xF0, 0x00, 0, 0])) }
        // A run longer than the status count.
        #expect(throws: RTCPError.badField) { try RTCPPacket.parseCompound(packet([0, 1, 0, 2, 0, 0, 0, 0, 0x20, 0x03, 0, 0])) }
        // Chunks missing; deltas missing.
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound(packet([0, 1, 0, 20, 0, 0, 0, 0, 0x20, 0x03, 0, 0])) }
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound(packet([0, 1, 0, 3, 0, 0, 0, 0, 0x40, 0x03, 1, 2])) }
        // A whole spare word after the deltas; non-zero alignment bytes.
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound(packet([0, 1, 0, 1, 0, 0, 0, 0, 0x20, 0x01, 5, 0, 0, 0, 0, 0])) }
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound(packet([0, 1, 0, 1, 0, 0, 0, 0, 0x20, 0x01, 5, 9])) }
        // Shorter than the fixed part.
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound(packet([0, 1, 0, 1])) }
        // The same with a valid zero-padded tail is accepted.
        #expect(throws: Never.self) { try RTCPPacket.parseCompound(packet([0, 1, 0, 1, 0, 0, 0, 0, 0x20, 0x01, 5, 0])) }
    }
}
