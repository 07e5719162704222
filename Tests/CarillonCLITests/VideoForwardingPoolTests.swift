import CarillonRTC
import CarillonServer
import NIOCore
import Testing

@testable import carillon

/// The meeting's datagrams (forwarded video, the audio mix) are built in the media core's bounded
/// ``DatagramBufferPool`` and come back to it once sent: in steady state every array comes from the pool; without the
/// way back it would allocate one per packet and receiver.
@Suite struct VideoForwardingPoolTests {
    @Test func steadyStateForwardingTakesEveryArrayFromThePool() throws {
        let receivers = 4
        let benchmark = try VideoForwardingBenchmark(receivers: receivers, packetCount: 2_000, profile: .aeadAES128GCM)
        var forwarded = 0
        for index in 0..<500 {
            forwarded += benchmark.forward(index)
            forwarded += benchmark.runTimers()
        }
        let warm = benchmark.poolMisses.freshAllocations
        // What is in flight at once: a packet per receiver, plus what the pacers hold.
        #expect(warm >= receivers && warm <= MeetingMediaCore.datagramPoolLimit)
        for index in 500..<2_000 {
            forwarded += benchmark.forward(index)
            forwarded += benchmark.runTimers()
        }
        #expect(forwarded == 2_000 * receivers)
        #expect(benchmark.poolMisses.freshAllocations == warm)
    }

    @Test func withoutTheWayBackEveryForwardedPacketIsANewArray() throws {
        let receivers = 3
        let benchmark = try VideoForwardingBenchmark(receivers: receivers, packetCount: 200, profile: nil)
        let core = benchmark.core
        let publisher = SignalingConnectionID(1)
        var now = NIODeadline.uptimeNanoseconds(2_000_000_000)
        var outputs: [MeetingMediaOutput] = []
        var sent = 0
        var mixed = 0
        // The core's timer also sends the audio mix to every attendee, built in arrays of the same pool.
        func video(_ output: MeetingMediaOutput) -> Bool {
            if case .rtp(_, let packet) = output { packet[1] & 0x7F != VideoForwardingBenchmark.audioPayloadType } else { false }
        }
        func audio(_ output: MeetingMediaOutput) -> Bool {
            if case .rtp(_, let packet) = output { packet[1] & 0x7F == VideoForwardingBenchmark.audioPayloadType } else { false }
        }
        for packet in benchmark.packets {
            now = now + .milliseconds(4)
            core.receive(packet, from: publisher, now: now, into: &outputs)
            sent += outputs.count(where: video)
            outputs.removeAll(keepingCapacity: true)  // dropped, never recycled
            if let due = core.nextDeadline, due <= now {
                let ticked = core.tick(now: now)
                sent += ticked.count(where: video)
                mixed += ticked.count(where: audio)
            }
        }
        #expect(sent == 200 * receivers)
        #expect(mixed > 0)
        #expect(core.datagramPool.freshAllocations == sent + mixed)
        #expect(core.datagramPool.reused == 0)
    }
}
