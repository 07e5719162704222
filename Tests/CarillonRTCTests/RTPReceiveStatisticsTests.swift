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

    @Test func reportBlockEchoesTheSenderReportAndGivesTheSenderItsRoundTrip() throws {
        var stats = RTPReceiveStatistics(clockRate: 48_000)
        for sequence: UInt16 in [1, 2, 4, 5] {
            stats.record(sequenceNumber: sequence, rtpTimestamp: UInt32(sequence) * 960, arrival: start)
        }
        // No sender report yet: LSR and DLSR are zero and no round trip can be measured from the block.
        let early = stats.reportBlock(ssrc: 7, now: start)
        #expect(early.ssrc == 7 && early.fractionLost == 51 && early.cumulativeLost == 1)
        #expect(early.extendedHighestSequence == 5 && early.lastSenderReport == 0)
        #expect(early.roundTripTime(arrival: NTPTimestamp.now()) == nil)

        // The sender sent its report at wall time T (seen 15 ms later), the receiver holds it 250 ms, and the block
        // reaches the sender 15 ms after that: 30 ms of round trip.
        let sent = NTPTimestamp(unixNanoseconds: 1_790_000_000_123_000_000)
        stats.senderReportReceived(ntpTimestamp: sent, arrival: start + .milliseconds(15))
        let block = stats.reportBlock(ssrc: 7, now: start + .milliseconds(265))
        #expect(block.lastSenderReport == sent.compact)
        #expect(block.delaySinceLastSenderReport == 250 * 65_536 / 1000)
        #expect(block.fractionLost == 0)
        let arrival = NTPTimestamp(unixNanoseconds: 1_790_000_000_123_000_000 + 280_000_000)
        let rtt = try #require(block.roundTripTime(arrival: arrival))
        #expect(abs(rtt.nanoseconds - 30_000_000) < 100_000)
        // An arrival before the echoed report is not a round trip.
        #expect(block.roundTripTime(arrival: sent) == nil)
    }

    @Test func ntpTimestampsCountFrom1900() {
        let epoch = NTPTimestamp(unixNanoseconds: 0)
        #expect(epoch.value == 2_208_988_800 << 32)
        let half = NTPTimestamp(unixNanoseconds: 500_000_000)
        #expect(half.value & 0xFFFF_FFFF == 0x8000_0000)
        #expect(half.compact == UInt32(truncatingIfNeeded: (2_208_988_800 << 16) | 0x8000))
        let now = NTPTimestamp.now().value >> 32
        // Some time after 2020 (3786825600 s from 1900).
        #expect(now > 3_786_825_600)
    }
}
