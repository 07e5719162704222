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

    @Test func aFeedbackCompoundStartsWithAnEmptyReceiverReportFromTheSender() throws {
        let pli = RTCPPacket.pictureLossIndication(senderSSRC: 7, mediaSSRC: 9)
        let nack = RTCPPacket.nack(senderSSRC: 7, mediaSSRC: 9, lost: [100, 102])
        #expect(try RTCPPacket.parseCompound(RTCPPacket.feedbackCompound(from: 7, pli, nack))
                    == [.receiverReport(ssrc: 7, reports: []), pli, nack])
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
        let app: [UInt8] = [0x80, 204, 0x00, 0x02, 0, 0, 0, 5, 0x6E, 0x61, 0x6D, 0x65]
        // PT 206 FMT 15 without the "REMB" identifier is some other application feedback.
        let afb: [UInt8] = [0x8F, 206, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 0, 0x47, 0x4F, 0x4F, 0x47]
        let parsed = try RTCPPacket.parseCompound(pli.serialized() + app + afb)
        #expect(parsed == [pli, .other(packetType: 204, bytes: app), .other(packetType: 206, bytes: afb)])
        #expect(parsed.flatMap { $0.serialized() } == pli.serialized() + app + afb)
    }

    @Test func badInputIsRejectedWithoutCrashing() throws {
        #expect(throws: RTCPError.truncated) { try RTCPPacket.parseCompound([]) }
        #expect(throws: RTCPError.badVersion) { try RTCPPacket.parseCompound([0x00, 201, 0, 1, 0, 0, 0, 0]) }
        #expect(throws: RTCPError.truncated) { try RTCPPacket.parseCompound([0x80, 201, 0, 9, 0, 0, 0, 0]) }
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound([0x81, 201, 0, 1, 0, 0, 0, 0]) }
        var random = SeededRandom(seed: 8)
        var feedback = TransportFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 65_530, referenceTime: 9,
                                         feedbackPacketCount: 3)
        for (sequence, ticks) in [(65_530, 3), (65_533, 400), (2, 390), (3, 391)] as [(UInt16, Int64)] {
            feedback.addReceived(sequenceNumber: sequence, arrivalTicks: ticks)
        }
        let valid = RTCPPacket.receiverReport(ssrc: 2, reports: [block]).serialized()
            + RTCPPacket.nack(senderSSRC: 1, mediaSSRC: 2, lost: [1, 5, 9]).serialized()
            + RTCPPacket.sourceDescription(chunks: [.init(ssrc: 7, items: [.cname("abc"), .init(type: 6, text: "tool")])]).serialized()
            + RTCPPacket.goodbye(ssrcs: [7], reason: "done").serialized()
            + RTCPPacket.fullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 7, sequenceNumber: 4)]).serialized()
            + RTCPPacket.receiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 1_000_000, ssrcs: [7]).serialized()
            + RTCPPacket.transportFeedback(feedback).serialized()
        #expect(try RTCPPacket.parseCompound(valid).count == 7)
        var accepted = 0
        for _ in 0..<20_000 {
            var mutated = valid
            for _ in 0..<2 { mutated[Int(random.next() % UInt64(mutated.count))] = UInt8(truncatingIfNeeded: random.next()) }
            guard let packets = try? RTCPPacket.parseCompound(Array(mutated.prefix(Int(random.next() % UInt64(mutated.count + 1)))))
            else { continue }
            accepted += 1
            // Whatever is accepted serialises to bytes that parse back to the same packets (NACK lists are
            // normalised on the way, so they are left out).
            let comparable = packets.filter { if case .nack = $0 { false } else { true } }
            #expect(try RTCPPacket.parseCompound(comparable.flatMap { $0.serialized() }) == comparable)
        }
        #expect(accepted > 100)
    }

    // MARK: SDES, BYE, FIR, REMB

    @Test func sourceDescriptionFromHandBuiltBytes() throws {
        let bytes: [UInt8] = [0x82, 202, 0x00, 0x06,
                              0x00, 0x00, 0x00, 0x0A, 0x01, 0x03, 0x61, 0x62, 0x63, 0x00, 0x00, 0x00,
                              0x00, 0x00, 0x00, 0x0B, 0x01, 0x01, 0x78, 0x06, 0x02, 0x68, 0x69, 0x00]
        let parsed = try RTCPPacket.parseCompound(bytes)
        guard case .sourceDescription(let chunks) = parsed.first else {
            Issue.record("not SDES: \(parsed)")
            return
        }
        #expect(chunks.map(\.ssrc) == [10, 11])
        #expect(chunks.map(\.cname) == ["abc", "x"])
        #expect(chunks[1].items[1] == RTCPPacket.SourceDescriptionItem(type: 6, text: "hi"))
        #expect(parsed[0].serialized() == bytes)
        // A chunk whose item list already ends on a boundary still gets four zero bytes.
        let aligned = RTCPPacket.sourceDescription(chunks: [.init(ssrc: 1, items: [.cname("ab")])])
        #expect(aligned.serialized() == [0x81, 202, 0x00, 0x03, 0, 0, 0, 1, 0x01, 0x02, 0x61, 0x62, 0, 0, 0, 0])
        #expect(try RTCPPacket.parseCompound(aligned.serialized()) == [aligned])
        let empty = RTCPPacket.sourceDescription(chunks: [])
        #expect(try RTCPPacket.parseCompound(empty.serialized()) == [empty])
    }

    @Test func goodbyeFromHandBuiltBytes() throws {
        let bytes: [UInt8] = [0x82, 203, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x03, 0x62, 0x79, 0x65]
        let parsed = try RTCPPacket.parseCompound(bytes)
        #expect(parsed == [.goodbye(ssrcs: [1, 2], reason: "bye")])
        #expect(parsed[0].serialized() == bytes)
        for packet in [RTCPPacket.goodbye(ssrcs: [9], reason: nil), .goodbye(ssrcs: [], reason: "ünïcode ok"),
                       .goodbye(ssrcs: [1, 2, 3], reason: "")] {
            #expect(try RTCPPacket.parseCompound(packet.serialized()) == [packet])
        }
        // Reasons are cut to 255 bytes without splitting a character.
        let long = RTCPPacket.goodbye(ssrcs: [1], reason: String(repeating: "é", count: 200))
        #expect(try RTCPPacket.parseCompound(long.serialized()) == [.goodbye(ssrcs: [1], reason: String(repeating: "é", count: 127))])
    }

    @Test func fullIntraRequestFromHandBuiltBytes() throws {
        let bytes: [UInt8] = [0x84, 206, 0x00, 0x06, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
                              0x00, 0x00, 0x00, 0x07, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0xFF, 0x00, 0x00, 0x00]
        let parsed = try RTCPPacket.parseCompound(bytes)
        #expect(parsed == [.fullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 7, sequenceNumber: 5), .init(ssrc: 8, sequenceNumber: 255)])])
        #expect(parsed[0].serialized() == bytes)
    }

    @Test func rembFromHandBuiltBytes() throws {
        // Exponent 3, mantissa 150 000: 1.2 Mbit/s for one SSRC.
        let bytes: [UInt8] = [0x8F, 206, 0x00, 0x05, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
                              0x52, 0x45, 0x4D, 0x42, 0x01, 0x0E, 0x49, 0xF0, 0x00, 0x00, 0x00, 0x07]
        let parsed = try RTCPPacket.parseCompound(bytes)
        #expect(parsed == [.receiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 1_200_000, ssrcs: [7])])
        #expect(parsed[0].serialized() == bytes)
        // Values beyond 18 bits lose their low bits, never gain.
        let rounded = try RTCPPacket.parseCompound(RTCPPacket.receiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 1_234_567, ssrcs: []).serialized())
        guard case .receiverEstimatedMaximumBitrate(_, let bitrate, let ssrcs) = rounded.first else {
            Issue.record("not REMB")
            return
        }
        #expect(bitrate <= 1_234_567 && bitrate > 1_234_567 - 8)
        #expect(ssrcs.isEmpty)
    }

    @Test func malformedNewPacketsAreRejected() {
        // SDES: item runs past the end; terminator missing; non-zero padding.
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound([0x81, 202, 0x00, 0x02, 0, 0, 0, 1, 0x01, 0x09, 0x61, 0x62]) }
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound([0x81, 202, 0x00, 0x02, 0, 0, 0, 1, 0x01, 0x02, 0x61, 0x62]) }
        #expect(throws: RTCPError.badField) { try RTCPPacket.parseCompound([0x81, 202, 0x00, 0x02, 0, 0, 0, 1, 0x01, 0x00, 0x00, 0x07]) }
        // SDES: more chunks announced than present; bytes left over after the chunks.
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound([0x82, 202, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 0]) }
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound([0x81, 202, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]) }
        // BYE: too many SSRCs announced; reason longer than the packet; reason not UTF-8; reason plus a spare word.
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound([0x82, 203, 0x00, 0x01, 0, 0, 0, 1]) }
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound([0x81, 203, 0x00, 0x02, 0, 0, 0, 1, 0x05, 0x61, 0x62, 0x63]) }
        #expect(throws: RTCPError.badField) { try RTCPPacket.parseCompound([0x81, 203, 0x00, 0x02, 0, 0, 0, 1, 0x02, 0xC3, 0x28, 0x00]) }
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound([0x81, 203, 0x00, 0x03, 0, 0, 0, 1, 0x01, 0x61, 0, 0, 0, 0, 0, 0]) }
        // FIR: no entries; half an entry.
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound([0x84, 206, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 0]) }
        #expect(throws: RTCPError.badLength) { try RTCPPacket.parseCompound([0x84, 206, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7]) }
        // REMB: SSRC count disagrees with the length; bitrate beyond 64 bits.
        #expect(throws: RTCPError.badLength) {
            try RTCPPacket.parseCompound([0x8F, 206, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 0, 0x52, 0x45, 0x4D, 0x42, 0x01, 0x0E, 0x49, 0xF0])
        }
        #expect(throws: RTCPError.badField) {
            try RTCPPacket.parseCompound([0x8F, 206, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 0, 0x52, 0x45, 0x4D, 0x42, 0x00, 0xFF, 0xFF, 0xFF])
        }
    }
}
