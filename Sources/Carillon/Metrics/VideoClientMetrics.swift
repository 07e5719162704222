import CarillonMedia
import CarillonProtocol

/// One second of video measurements: the eight video ``ObservableMetric``s and the video stream frames of
/// CLIENT_METRIC (`signaling.md` §3.18). ``SessionVideoCore`` measures it with its reports; the audio side's
/// once-a-second step merges it into what it hands out. A missing measurement is left out. A plain value.
struct VideoClientMetrics: Sendable, Equatable {
    /// The camera stream sent in the second.
    var send: VideoSendMetrics?
    /// Each received stream in the second.
    var receive: [VideoReceiveMetrics]

    /// The values for ``MetricsObserver``s: send metrics while sending, receive metrics while receiving.
    /// `videoAvailableReceiveBandwidth` is not produced: the client runs no receive-side estimator.
    var observable: [ObservableMetric: Double] {
        var metrics: [ObservableMetric: Double] = [:]
        if let send {
            metrics[.videoAvailableSendBandwidth] = send.availableBandwidth
            metrics[.videoSendBitrate] = send.bitrate
            metrics[.videoSendFps] = send.encodedFramesPerSecond
            metrics[.videoSendPacketLossPercent] = send.lossPercent
            metrics[.videoSendRttMs] = send.roundTripMilliseconds
        }
        if !receive.isEmpty {
            metrics[.videoReceiveBitrate] = receive.reduce(0) { $0 + $1.bitrate }
            let expected = receive.reduce(0) { $0 + $1.expected }
            if expected > 0 {
                let lost = receive.reduce(0) { $0 + $1.lost }
                metrics[.videoReceivePacketLossPercent] = ClientMetricsCollector.percent(lost: lost, expected: expected)
            }
        }
        return metrics
    }

    /// The CLIENT_METRIC stream frames: one for the camera, one per received stream.
    var streamFrames: [SdkStreamMetricFrame] {
        var frames: [SdkStreamMetricFrame] = []
        if let send {
            var frame = SdkStreamMetricFrame()
            frame.streamID = send.streamId
            frame.mediaType = .video
            frame.metrics = Self.metrics([
                (.videoSentBitrate, send.bitrate), (.videoSentPps, send.packetsPerSecond),
                (.videoInputFps, send.inputFramesPerSecond), (.videoEncodeFps, send.encodedFramesPerSecond),
                (.videoSentFractionPacketLostPercent, send.lossPercent), (.videoSentJitterMs, send.jitterMilliseconds),
                (.videoSentRttMs, send.roundTripMilliseconds), (.videoNacksReceived, send.nacksReceived),
                (.videoPlisReceived, send.plisReceived), (.videoFirsReceived, send.firsReceived),
                (.videoEncodeWidth, send.width > 0 ? Double(send.width) : nil),
                (.videoEncodeHeight, send.height > 0 ? Double(send.height) : nil),
                (.videoInputWidth, send.width > 0 ? Double(send.width) : nil),
                (.videoInputHeight, send.height > 0 ? Double(send.height) : nil),
                (.videoEncoderIsHardware, 0),
            ])
            frame.dimensions = [Self.dimension(.videoEncoderName, "libvpx VP8")]
            frames.append(frame)
        }
        for stream in receive {
            var frame = SdkStreamMetricFrame()
            frame.streamID = stream.streamId
            frame.mediaType = .video
            frame.metrics = Self.metrics([
                (.videoReceivedBitrate, stream.bitrate), (.videoReceivedPps, stream.packetsPerSecond),
                (.videoReceivedFractionPacketLostPercent,
                 stream.expected > 0 ? ClientMetricsCollector.percent(lost: stream.lost, expected: stream.expected) : nil),
                (.videoReceivedFps, stream.decodedFramesPerSecond), (.videoDecodeFps, stream.decodedFramesPerSecond),
                (.videoNacksSent, stream.nacksSent), (.videoPlisSent, stream.plisSent),
                (.videoReceivedJitterMs, stream.jitterMilliseconds),
                (.videoDecodeWidth, stream.width > 0 ? Double(stream.width) : nil),
                (.videoDecodeHeight, stream.height > 0 ? Double(stream.height) : nil),
                (.videoDecoderIsHardware, 0),
            ])
            frame.dimensions = [Self.dimension(.videoDecoderName, "libvpx VP8")]
            frames.append(frame)
        }
        return frames
    }

    private static func metrics(_ values: [(SdkMetric.TypeEnum, Double?)]) -> [SdkMetric] {
        values.compactMap { type, value in
            guard let value, value.isFinite else { return nil }
            var metric = SdkMetric()
            metric.type = type
            metric.value = value
            return metric
        }
    }

    private static func dimension(_ type: SdkStreamDimension.TypeEnum, _ value: String) -> SdkStreamDimension {
        var dimension = SdkStreamDimension()
        dimension.type = type
        dimension.value.stringValue = value
        return dimension
    }
}
