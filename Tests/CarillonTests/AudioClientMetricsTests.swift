import CarillonProtocol
import Testing

@testable import Carillon

/// The CLIENT_METRIC frame built from a second of audio measurements, and when the session sends it.
@Suite struct AudioClientMetricsTests {
    let sample = AudioClientMetrics(
        micPacketsPerSecond: 50, micLossPercent: 2.5, micJitterMilliseconds: 1.25, micRoundTripMilliseconds: 31,
        speakerPacketsPerSecond: 49, speakerLossPercent: 2, speakerJitterMilliseconds: .nan, jitterBufferMilliseconds: 40)

    func values(_ frame: SdkStreamMetricFrame) -> [SdkMetric.TypeEnum: Double] {
        Dictionary(uniqueKeysWithValues: frame.metrics.map { ($0.type, $0.value) })
    }

    @Test func microphoneAndSpeakerGoIntoTheirStreamFrames() {
        let frame = sample.frame
        #expect(frame.streamMetricFrames.count == 2)
        #expect(values(frame.streamMetricFrames[0]) == [
            .rtcMicPps: 50, .rtcMicFractionPacketLostPercent: 2.5, .rtcMicJitterMs: 1.25, .rtcMicRttMs: 31,
        ])
        // A measurement that is not a number is left out, like a missing one.
        #expect(values(frame.streamMetricFrames[1]) == [
            .rtcSpkPps: 49, .rtcSpkFractionPacketLostPercent: 2, .rtcSpkJitterBufferMs: 40,
        ])
    }

    @Test func missingMeasurementsAreLeftOut() {
        var early = sample
        early.micLossPercent = nil
        early.micJitterMilliseconds = nil
        early.micRoundTripMilliseconds = nil
        #expect(values(early.frame.streamMetricFrames[0]) == [.rtcMicPps: 50])
    }
}
