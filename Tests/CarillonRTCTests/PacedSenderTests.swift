import CarillonRTC
import NIOCore
import Testing

@Suite struct PacedSenderTests {
    let start = NIODeadline.uptimeNanoseconds(5_000_000_000)
    let extensionId: UInt8 = 3

    /// A video packet with a zeroed transport-wide number (extension `id`), as the SDK and the forwarder queue them.
    func packet(sequence: UInt16, id: UInt8? = 3, payload: Int = 1_000) -> [UInt8] {
        RTPPacket(payloadType: 96, sequenceNumber: sequence, timestamp: 9_000, ssrc: 0x1234,
                  extensions: id.map { [(id: $0, value: [0, 0])] } ?? [], payload: ArraySlice(repeating: 7, count: payload))
            .serialized()
    }

    func transportNumber(_ bytes: [UInt8], id: UInt8 = 3) throws -> UInt16? {
        guard let value = try RTPPacket(parsing: bytes).extensions.first(where: { $0.id == id })?.value else { return nil }
        return UInt16(value[0]) << 8 | UInt16(value[1])
    }

    @Test func numbersEachPacketAsItLeavesAndContinuesANumbering() throws {
        let sender = PacedSender(estimator: .init(startBitrate: 10_000_000), transportCCExtensionId: extensionId,
                                 firstTransportSequenceNumber: 65_534)
        for sequence in UInt16(100)..<103 { sender.enqueue(packet(sequence: sequence), priority: .video) }
        var sent: [[UInt8]] = []
        sender.send(now: start) { sent.append($0) }
        #expect(try sent.map { try RTPPacket(parsing: $0).sequenceNumber } == [100, 101, 102])
        #expect(try sent.map { try transportNumber($0) } == [65_534, 65_535, 0])
        #expect(sender.transportSequenceNumber == 1)
        #expect(sender.nextDeadline == nil)
    }

    @Test func withoutTransportCCPacketsArePacedButNotNumberedAndNothingIsProbed() throws {
        let sender = PacedSender(estimator: .init(startBitrate: 10_000_000), transportCCExtensionId: nil)
        sender.enqueue(packet(sequence: 1), priority: .video)
        var sent: [[UInt8]] = []
        sender.send(now: start) { sent.append($0) }
        #expect(try sent.map { try transportNumber($0) } == [0])
        #expect(sender.transportSequenceNumber == 0)
        sender.startProbe(bitrate: 1_200_000, now: start)
        #expect(sender.nextProbePadding == nil)
        #expect(!sender.estimator.isProbing)
    }

    /// A 1.2 Mbit/s probe over its 50 ms window: 27 padding-only RTX packets of 275 bytes (7 425 bytes, about the
    /// 7 500 the rate gives), topped up every 2 ms, numbered on from the media before them, on the RTX SSRC.
    @Test func aProbeIsToppedUpWithNumberedPaddingUntilItsWindowCloses() throws {
        let sender = PacedSender(estimator: .init(startBitrate: 600_000), transportCCExtensionId: extensionId,
                                 firstTransportSequenceNumber: 10)
        var rtx = RTXStream(ssrc: 0x5678, payloadTypes: [96: 97], firstSequenceNumber: 0)
        sender.startProbe(bitrate: 1_200_000, now: start)
        #expect(sender.nextDeadline == start)
        var padding: [[UInt8]] = []
        var now = start
        var topUps = 0
        while let due = sender.nextProbePadding {
            #expect(due == now)
            sender.sendProbePadding(from: &rtx, mediaPayloadType: 96, timestamp: 9_000, now: now) { padding.append($0) }
            topUps += 1
            now = now + PacedSender.probePaddingInterval
        }
        #expect(topUps == 26)   // 0, 2, ..., 50 ms
        #expect(padding.count == 27)
        #expect(padding.allSatisfy { $0.count == 275 })
        let numbers = try padding.map { try #require(try transportNumber($0)) }
        #expect(numbers == Array(10..<37))
        #expect(try padding.allSatisfy { try RTPPacket(parsing: $0).ssrc == 0x5678 && RTPPacket(parsing: $0).payloadType == 97 })
        #expect(sender.transportSequenceNumber == 37)
    }

    /// Feedback that shows the queueing delay growing makes the estimator call overuse; then a forwarder's packets
    /// leave at the target itself, unless what waits would take longer than `congestedQueueLimit` at that rate. An
    /// encoder's sender keeps its factor.
    @Test(arguments: [true, false]) func pacesAtTheTargetWhileTheLinkIsOverusedUnlessTheQueueGrowsLong(forwarder: Bool) throws {
        let sender = PacedSender(estimator: .init(minimumBitrate: 50_000, startBitrate: 960_000, maximumBitrate: 2_000_000),
                                 transportCCExtensionId: extensionId, paceAtTargetWhenOverused: forwarder)
        var generator = TransportFeedbackGenerator()
        // 960 kbit/s into an 800 kbit/s path: each packet lands 2 ms later than the one before would have.
        var index = 0
        while sender.estimator.bandwidthUsage != .overusing, index < 300 {
            let sendTime = start + .milliseconds(10 * Int64(index))
            sender.enqueue(packet(sequence: UInt16(index), payload: 1_100), priority: .video)
            var numbers: [UInt16] = []
            sender.send(now: sendTime) { numbers.append((try? transportNumber($0)).flatMap { $0 } ?? 0) }
            #expect(sender.pacer.pacingFactor == PacedSender.pacingFactor)
            let arrival = start + .milliseconds(30 + 12 * Int64(index))
            for number in numbers { generator.received(transportSequenceNumber: number, arrival: arrival) }
            if let deadline = generator.nextDeadline, deadline <= arrival {
                for feedback in generator.poll(now: arrival) {
                    sender.transportFeedbackReceived(feedback, now: arrival + .milliseconds(30))
                }
            }
            index += 1
        }
        #expect(sender.estimator.bandwidthUsage == .overusing)
        sender.setRate(targetBitrate: sender.estimator.targetBitrate)
        let now = start + .milliseconds(10 * Int64(index))
        sender.enqueue(packet(sequence: 1_000), priority: .video)
        sender.send(now: now) { _ in }
        #expect(sender.pacer.pacingFactor == (forwarder ? PacedSender.congestedPacingFactor : PacedSender.pacingFactor))
        // 200 ms worth at the target waiting: over the limit, the usual factor again.
        let waiting = sender.estimator.targetBitrate / 8 / 5 / 1_012 + 1
        for sequence in 0..<waiting { sender.enqueue(packet(sequence: UInt16(2_000 + sequence)), priority: .video) }
        sender.send(now: now) { _ in }
        #expect(sender.pacer.pacingFactor == PacedSender.pacingFactor)
    }
}
