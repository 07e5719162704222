import CarillonMeasurement
import CarillonMedia
import CarillonRTC
import NIOCore
import Testing

/// A VP8 sender and receiver over lossy simulated links in virtual time, repaired with NACK, RTX and key-frame
/// requests: what the receiver hands out must be exactly what was sent, decodable in order, and nearly complete.
@Suite struct VP8LossRecoveryTests {
    struct Outcome {
        var framesSent = 0
        var framesReceived = 0
        var longestFreeze = TimeAmount.zero
        var retransmissions = 0
        var keyFrameRequests = 0
        var corrupt = 0
        var outOfChain = 0
    }

    static func run(loss: Double, seed: UInt64, duration: TimeAmount = .seconds(20)) -> Outcome {
        let conditions = LinkConditions(lossRate: loss, delay: .milliseconds(40), jitter: .milliseconds(10),
                                        allowsReordering: true)
        var forward = SimulatedLink(conditions: conditions, seed: seed)
        var backward = SimulatedLink(conditions: conditions, seed: seed &+ 1)
        var stream = VP8Stream(ssrc: 0x1111, payloadType: 96)
        var rtx = RTXStream(ssrc: 0x2222, payloadTypes: [96: 97], firstSequenceNumber: 7)
        var history = RTPSendHistory()
        var nack = NackGenerator()
        var assembler = VP8FrameAssembler()
        var outcome = Outcome()
        var keyFramePending = true
        var lastPicture: UInt16?
        let start = NIODeadline.uptimeNanoseconds(5_000_000_000)
        var lastHandOut = start
        var nextFrameAt = start
        var frameIndex = 0
        var now = start
        while now < start + duration {
            // Sender: a frame every 33 ms, a key frame when one was asked for.
            if now >= nextFrameAt {
                let key = keyFramePending
                keyFramePending = false
                let size = key ? 6_000 : 1_200 + (frameIndex * 577) % 1_300
                for packet in stream.nextFrame(key: key, size: size) {
                    history.store(sequenceNumber: try! RTPHeader(reading: packet).sequenceNumber, packet: packet, now: now)
                    forward.send(packet, now: now)
                }
                outcome.framesSent += 1
                frameIndex += 1
                nextFrameAt = nextFrameAt + .milliseconds(33)
            }
            // Sender: feedback. A NACK is [0x4E, seq...] and a key-frame request [0x50] in this toy wire format.
            for message in backward.receive(now: now) {
                if message == [0x50] {
                    keyFramePending = true
                    continue
                }
                for index in stride(from: 1, to: message.count - 1, by: 2) {
                    let sequence = UInt16(message[index]) << 8 | UInt16(message[index + 1])
                    if let original = history.packet(sequenceNumber: sequence, now: now), let repair = rtx.wrap(original) {
                        forward.send(repair, now: now)
                        outcome.retransmissions += 1
                    }
                }
            }
            // Receiver.
            for datagram in forward.receive(now: now) {
                var packet = datagram
                if try! RTPHeader(reading: datagram).payloadType == 97 {
                    guard let original = RTXStream.unwrap(datagram, mediaSSRC: 0x1111, mediaPayloadTypes: [97: 96])
                    else { continue }
                    packet = original
                }
                let parsed = try! RTPPacket(parsing: packet)
                nack.received(sequenceNumber: parsed.sequenceNumber, now: now)
                for frame in assembler.insert(sequenceNumber: parsed.sequenceNumber, timestamp: parsed.timestamp,
                                              marker: parsed.marker, payload: parsed.payload, now: now) {
                    outcome.framesReceived += 1
                    if frame.data != stream.sent[frame.timestamp] { outcome.corrupt += 1 }
                    if !frame.isKeyFrame, let lastPicture, frame.pictureID != (lastPicture &+ 1) & 0x7FFF {
                        outcome.outOfChain += 1
                    }
                    lastPicture = frame.pictureID
                    outcome.longestFreeze = max(outcome.longestFreeze, now - lastHandOut)
                    lastHandOut = now
                }
            }
            let missing = nack.due(now: now, roundTrip: .milliseconds(90))
            if !missing.isEmpty {
                backward.send([0x4E] + missing.flatMap { [UInt8($0 >> 8), UInt8(truncatingIfNeeded: $0)] }, now: now)
            }
            if assembler.keyFrameRequestDue(now: now) {
                backward.send([0x50], now: now)
                outcome.keyFrameRequests += 1
            }
            now = now + .milliseconds(1)
        }
        return outcome
    }

    @Test(arguments: [(0.05, 0.99), (0.10, 0.98), (0.20, 0.95)])
    func framesSurviveLossWithNackAndRTX(loss: Double, minimumDelivered: Double) {
        let outcome = Self.run(loss: loss, seed: 7)
        #expect(outcome.corrupt == 0)
        #expect(outcome.outOfChain == 0)
        // The last few frames may still be in flight when the run stops.
        let delivered = Double(outcome.framesReceived) / Double(outcome.framesSent - 3)
        #expect(delivered >= minimumDelivered, "delivered \(delivered) of the frames at \(loss) loss")
        #expect(outcome.retransmissions > 0)
        #expect(outcome.longestFreeze <= .milliseconds(500), "freeze of \(outcome.longestFreeze) at \(loss) loss")
        print("VP8 over \(Int(loss * 100)) % loss: \(outcome)")
    }

    @Test func equalSeedsGiveEqualRuns() {
        let first = Self.run(loss: 0.1, seed: 3, duration: .seconds(3))
        let second = Self.run(loss: 0.1, seed: 3, duration: .seconds(3))
        #expect(first.framesReceived == second.framesReceived && first.retransmissions == second.retransmissions)
        #expect(first.longestFreeze == second.longestFreeze)
    }
}
