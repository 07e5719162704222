import CarillonRTC
import NIOCore
import Testing

@testable import Carillon

/// The public metric names and the sans-IO collector on a virtual clock.
@Suite struct ClientMetricsCollectorTests {
    func at(_ ms: Int64) -> NIODeadline { .uptimeNanoseconds(7_000_000_000) + .milliseconds(ms) }

    func values(_ metrics: [ObservableMetric: Double]?) -> [String: Double]? {
        metrics.map { metrics in Dictionary(uniqueKeysWithValues: metrics.map { ($0.key.description, $0.value) }) }
    }

    @Test func observableMetricRawValuesAndNames() {
        let expected: [(Int, String)] = [
            (0, "audioReceivePacketLossPercent"), (1, "audioSendPacketLossPercent"),
            (2, "videoAvailableSendBandwidth"), (3, "videoAvailableReceiveBandwidth"), (4, "videoSendBitrate"),
            (5, "videoSendPacketLossPercent"), (6, "videoSendFps"), (7, "videoSendRttMs"), (8, "videoReceiveBitrate"),
            (9, "videoReceivePacketLossPercent"), (10, "contentShareVideoSendBitrate"),
            (11, "contentShareVideoSendPacketLossPercent"), (12, "contentShareVideoSendFps"),
            (13, "contentShareVideoSendRttMs"),
        ]
        #expect(ObservableMetric.allCases.map(\.rawValue) == expected.map(\.0))
        #expect(ObservableMetric.allCases.map(\.description) == expected.map(\.1))
        #expect(ObservableMetric.allCases.filter(\.isContentShareMetric).map(\.rawValue) == [10, 11, 12, 13])
        #expect(ObservableMetric(rawValue: 14) == nil)
    }

    @Test func receiveLossIsComputedPerSecond() {
        var collector = ClientMetricsCollector(start: at(0))
        #expect(collector.nextDeadline == at(1000))
        collector.addAudioReceiveCounts(expected: 50, lost: 1)
        collector.addAudioReceiveCounts(expected: 30, lost: 3)
        #expect(collector.advance(to: at(999)) == nil)
        // (1 + 3) / (50 + 30) = 5 %.
        #expect(values(collector.advance(to: at(1000))) == ["audioReceivePacketLossPercent": 5])
        #expect(collector.nextDeadline == at(2000))
        collector.addAudioReceiveCounts(expected: 40, lost: 1)
        #expect(values(collector.advance(to: at(2000))) == ["audioReceivePacketLossPercent": 2.5])
        // A second with nothing expected omits the metric; with nothing else to say, there is no report.
        #expect(collector.advance(to: at(3000)) == nil)
        #expect(collector.nextDeadline == at(4000))
    }

    @Test func lossIsClampedToZeroThroughOneHundred() {
        var collector = ClientMetricsCollector(start: at(0))
        collector.addAudioReceiveCounts(expected: 10, lost: 25)
        #expect(values(collector.advance(to: at(1000))) == ["audioReceivePacketLossPercent": 100])
        collector.addAudioReceiveCounts(expected: 10, lost: -2)  // duplicates make RTP's "lost" negative
        #expect(values(collector.advance(to: at(2000))) == ["audioReceivePacketLossPercent": 0])
    }

    @Test func sendLossComesFromTheLatestReceiverReportUntilItIsStale() {
        var collector = ClientMetricsCollector(start: at(0))
        #expect(collector.advance(to: at(1000)) == nil)
        collector.addAudioSendReport(expected: 250, lost: 10, at: at(1500))
        for second in Int64(2)...6 {
            #expect(values(collector.advance(to: at(second * 1000))) == ["audioSendPacketLossPercent": 4], "at \(second) s")
        }
        // At 7 s the report is 5.5 s old.
        #expect(collector.advance(to: at(7000)) == nil)
        collector.addAudioSendReport(expected: 200, lost: 3, at: at(7200))
        collector.addAudioReceiveCounts(expected: 50, lost: 0)
        #expect(values(collector.advance(to: at(8000))) == ["audioSendPacketLossPercent": 1.5, "audioReceivePacketLossPercent": 0])
        // A report covering no packets clears the value.
        collector.addAudioSendReport(expected: 0, lost: 0, at: at(8500))
        #expect(collector.advance(to: at(9000)) == nil)
    }

    @Test func aLateCallProducesOneReportAndKeepsTheGrid() {
        var collector = ClientMetricsCollector(start: at(0))
        collector.addAudioReceiveCounts(expected: 100, lost: 7)
        #expect(values(collector.advance(to: at(3700))) == ["audioReceivePacketLossPercent": 7])
        #expect(collector.nextDeadline == at(4000))
        #expect(collector.advance(to: at(3999)) == nil)
    }

    @Test func sendLossFromReportBlocks() {
        var collector = ClientMetricsCollector(start: at(0))
        func block(ssrc: UInt32 = 9, fraction: UInt8, cumulative: Int32, highest: UInt32) -> RTCPPacket.ReportBlock {
            RTCPPacket.ReportBlock(ssrc: ssrc, fractionLost: fraction, cumulativeLost: cumulative,
                                   extendedHighestSequence: highest, jitter: 0)
        }
        // The first block counts by its fraction: 64/256 = 25 %.
        collector.addAudioSendReport(block(fraction: 64, cumulative: 5, highest: 1000), at: at(500))
        #expect(values(collector.advance(to: at(1000))) == ["audioSendPacketLossPercent": 25])
        // Then by deltas: 50 more packets, 2 more lost = 4 % (the fraction field is not used).
        collector.addAudioSendReport(block(fraction: 200, cumulative: 7, highest: 1050), at: at(1500))
        #expect(values(collector.advance(to: at(2000))) == ["audioSendPacketLossPercent": 4])
        // Across the sequence wrap of the extended counter.
        collector.addAudioSendReport(block(fraction: 0, cumulative: 7, highest: 1050 &+ 100), at: at(2500))
        #expect(values(collector.advance(to: at(3000))) == ["audioSendPacketLossPercent": 0])
        // A new stream starts over from its own fraction.
        collector.addAudioSendReport(block(ssrc: 10, fraction: 128, cumulative: 0, highest: 7), at: at(3500))
        #expect(values(collector.advance(to: at(4000))) == ["audioSendPacketLossPercent": 50])
    }
}
