import CarillonProtocol

/// One second of audio measurements as the CLIENT_METRIC frame carries them (`signaling.md` §3.18): the uplink
/// (microphone) as the server's receiver reports describe it, the downlink (speaker) as this client measures it.
///
/// This is where round-trip time and jitter go: ``ObservableMetric`` has no case for them, and adding one would break
/// apps' exhaustive `switch`es. A missing measurement is left out of the frame. A plain value.
struct AudioClientMetrics: Sendable, Equatable {
    /// Audio packets sent in the second.
    var micPacketsPerSecond: Double
    /// Loss of the sent audio that the server last reported, %.
    var micLossPercent: Double?
    /// Interarrival jitter of the sent audio that the server last reported, ms.
    var micJitterMilliseconds: Double?
    /// Round trip to the server measured from its last report (LSR/DLSR), ms.
    var micRoundTripMilliseconds: Double?
    /// Audio packets received in the second.
    var speakerPacketsPerSecond: Double
    /// Loss of the received audio in the second, %.
    var speakerLossPercent: Double?
    /// Interarrival jitter of the received audio, ms.
    var speakerJitterMilliseconds: Double?
    /// The jitter buffer's current delay, ms.
    var jitterBufferMilliseconds: Double

    /// The frame: one stream frame for the microphone, one for the speaker.
    var frame: SdkClientMetricFrame {
        func metrics(_ values: [(SdkMetric.TypeEnum, Double?)]) -> [SdkMetric] {
            values.compactMap { type, value in
                guard let value, value.isFinite else { return nil }
                var metric = SdkMetric()
                metric.type = type
                metric.value = value
                return metric
            }
        }
        var microphone = SdkStreamMetricFrame()
        microphone.metrics = metrics([
            (.rtcMicPps, micPacketsPerSecond), (.rtcMicFractionPacketLostPercent, micLossPercent),
            (.rtcMicJitterMs, micJitterMilliseconds), (.rtcMicRttMs, micRoundTripMilliseconds),
        ])
        var speaker = SdkStreamMetricFrame()
        speaker.metrics = metrics([
            (.rtcSpkPps, speakerPacketsPerSecond), (.rtcSpkFractionPacketLostPercent, speakerLossPercent),
            (.rtcSpkJitterMs, speakerJitterMilliseconds), (.rtcSpkJitterBufferMs, jitterBufferMilliseconds),
        ])
        var frame = SdkClientMetricFrame()
        frame.streamMetricFrames = [microphone, speaker]
        return frame
    }
}
