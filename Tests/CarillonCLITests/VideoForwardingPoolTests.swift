import CarillonRTC
import CarillonServer
import NIOCore
import Testing

@testable import carillon

/// The SFU's downlink packets are built in the router's bounded ``DatagramBufferPool`` and come back to it once sent:
/// in steady state forwarding takes every array from the pool; without the way back it would allocate one per
/// packet and receiver.
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
        #expect(warm >= receivers && warm <= MeetingVideoRouter.datagramPoolLimit)
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
        // Video only: the core's timer also sends the audio mix to every attendee.
        func video(_ output: MeetingMediaOutput) -> Bool {
            if case .rtp(_, let packet) = output { packet[1] & 0x7F != VideoForwardingBenchmark.audioPayloadType } else { false }
        }
        for packet in benchmark.packets {
            now = now + .milliseconds(4)
            core.receive(packet, from: publisher, now: now, into: &outputs)
            sent += outputs.count(where: video)
            outputs.removeAll(keepingCapacity: true)  // dropped, never recycled
            if let due = core.nextDeadline, due <= now {
                sent += core.tick(now: now).count(where: video)
            }
        }
        #expect(sent == 200 * receivers)
        #expect(core.video.datagramPool.freshAllocations == sent)
        #expect(core.video.datagramPool.reused == 0)
    }
}
