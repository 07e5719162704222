import CarillonRTC
import NIOCore
import Testing

@Suite struct RTPReceiveStatisticsTests {
    let start = NIODeadline.uptimeNanoseconds(10_000_000_000)

    @Test func countsLossAcrossTheSequenceWrap() {
        var stats = RTPReceiveStatistics(clockRate: 48_000)
        // 65530 ... 65535, 0 ... 9 with 65534 and 3 lost: 16 expected, 14 received.
        var sequence: UInt16 = 65_530
        for i in 0..<16 {
            defer { sequence &+= 1 }
            if sequence == 65_534 || sequence == 3 { continue }
            stats.record(sequenceNumber: sequence, rtpTimestamp: UInt32(i * 960), arrival: start + .milliseconds(Int64(i * 20)))
        }
        #expect(stats.extendedHighestSequence == 65_536 + 9)
        #expect(stats.packetsExpected == 16)
        #expect(stats.packetsReceived == 14)
        #expect(stats.cumulativeLost == 2)
        // 2 of 16 lost = 0.125 = 32/256.
        #expect(stats.takeFractionLost() == 32)
        #expect(stats.takeFractionLost() == 0)
    }

    @Test func lateAndReorderedPacketsDoNotMoveTheHighestSequence() {
        var stats = RTPReceiveStatistics(clockRate: 90_000)
        for sequence: UInt16 in [100, 101, 103, 102, 104] {
            stats.record(sequenceNumber: sequence, rtpTimestamp: UInt32(sequence) * 3000, arrival: start)
        }
        #expect(stats.extendedHighestSequence == 104)
        #expect(stats.cumulativeLost == 0)
    }

    @Test func steadyPacketsHaveNoJitterAndDelayedOnesAddIt() {
        var steady = RTPReceiveStatistics(clockRate: 48_000)
        for i in 0..<50 {
            steady.record(sequenceNumber: UInt16(i), rtpTimestamp: UInt32(i * 960), arrival: start + .milliseconds(Int64(i * 20)))
        }
        #expect(steady.jitter == 0)
        var bumpy = RTPReceiveStatistics(clockRate: 48_000)
        bumpy.record(sequenceNumber: 0, rtpTimestamp: 0, arrival: start)
        // 10 ms late: transit grows by 480 units, jitter = 480 / 16 = 30.
        bumpy.record(sequenceNumber: 1, rtpTimestamp: 960, arrival: start + .milliseconds(30))
        #expect(bumpy.jitter == 30)
        #expect(abs(bumpy.jitterSeconds - 30.0 / 48_000) < 1e-12)
    }
}
