import CarillonCodecs
import CarillonRTC
import NIOCore

extension VideoSendStream {
    /// One encoded stream of the camera (the only one without simulcast, else one per layer); a class so the
    /// per-packet paths mutate it in place (its history is large).
    final class SendLayer {
        var stream: VideoSimulcastStream
        var encoder: VP8Encoder?
        var packetizer = VP8Packetizer()
        var sequenceNumber = UInt16.random(in: .min ... .max)
        var history = RTPSendHistory(capacity: 2_048)
        var rtx: RTXStream?
        /// The first frame, and any after a PLI or FIR on this layer's SSRC, is a key frame.
        var keyFrameRequested = true
        var encoderBitrate = 0
        /// The bitrate the split gave this layer for the latest picture (bit/s, 0: not encoded).
        var allocated = 0
        var lastTimestamp: UInt32?
        var packetsSent: UInt32 = 0
        var octetsSent: UInt32 = 0
        var framesEncoded = 0
        var width = 0
        var height = 0
        /// The server's newest report block about this layer.
        var lastReport: RTCPPacket.ReportBlock?

        init(stream: VideoSimulcastStream) { self.stream = stream }
    }

    /// The sending state; a class so the per-packet and per-frame paths mutate it in place (a struct taken out of
    /// its optional would copy the layers' histories on every write).
    final class Sender {
        var configuration: VideoSendConfiguration
        /// One layer without simulcast; with it, low, mid, hi.
        var layers: [SendLayer]
        var firstCapture: Int64?
        var firstTimestamp = UInt32.random(in: .min ... .max)
        var lastTimestamp: UInt32?
        /// The frame-rate cap: one token per picture offered to the encoders, refilled at the cap (see `admit`).
        var frameRateLimit: TokenBucket?
        /// Every packet of the stream (media, retransmission, probe padding) leaves through it: paced, numbered and
        /// estimated as the server's downlinks are.
        let paced: PacedSender
        /// The server's REMB for the stream: what its slowest receiver can take (used while one layer is sent).
        var remoteEstimate: Int?
        /// The earliest the uplink may probe again.
        var nextProbeAt: NIODeadline?
        var framesEncoded = 0
        var framesCaptured = 0
        var nacksReceived = 0
        var plisReceived = 0
        var firsReceived = 0
        var keyFramesEncoded = 0
        /// Layer pictures rate control or the encoder left out.
        var framesDropped = 0
        var packetsNacked = 0
        var retransmissionsQueued = 0
        /// The counters at the previous metrics report.
        var reported = SendCounters()

        init(configuration: VideoSendConfiguration, paced: PacedSender) {
            self.configuration = configuration
            self.paced = paced
            layers = Sender.streams(of: configuration).map(SendLayer.init)
        }

        /// The streams a configuration sends: its simulcast layers, or one unscaled stream on its SSRC.
        static func streams(of configuration: VideoSendConfiguration) -> [VideoSimulcastStream] {
            guard configuration.simulcast.isEmpty else { return configuration.simulcast }
            let cap = configuration.maximumBitrate > 0 ? configuration.maximumBitrate : VideoSendStream.defaultMaximumBitrate
            return [VideoSimulcastStream(setting: SimulcastLayerSetting(rid: "", scaleDown: 1, maxBitrateKbps: UInt32(cap / 1_000)),
                                    ssrc: configuration.ssrc, rtxSSRC: configuration.rtxSSRC)]
        }

        var isSimulcast: Bool { !configuration.simulcast.isEmpty }

        /// Takes a new configuration with the same SSRCs: the layers' settings change in place.
        func update(_ configuration: VideoSendConfiguration) {
            self.configuration = configuration
            for (layer, stream) in zip(layers, Sender.streams(of: configuration)) {
                if !layer.stream.setting.isActive, stream.setting.isActive { layer.keyFrameRequested = true }
                layer.stream = stream
            }
        }

        /// The layer sending on `ssrc` (media or RTX).
        func layer(ssrc: UInt32) -> SendLayer? {
            layers.first { $0.stream.ssrc == ssrc || $0.stream.rtxSSRC == ssrc }
        }

        /// Whether exactly one layer is configured to be sent (the server's REMB then applies to it).
        var sendsOneLayer: Bool { layers.count { $0.stream.setting.isActive } == 1 }

        /// The most the camera may use whatever the estimate, bit/s: the app's cap (with simulcast, also the sum of
        /// the active layers' caps).
        var capBitrate: Int {
            let cap = configuration.maximumBitrate > 0 ? configuration.maximumBitrate : VideoSendStream.defaultMaximumBitrate
            guard isSimulcast else { return cap }
            let layersCap = layers.reduce(0) { $0 + Int($1.stream.setting.maxBitrateKbps) * 1_000 }
            return configuration.maximumBitrate > 0 ? min(configuration.maximumBitrate, layersCap) : layersCap
        }

        /// The total the camera may use now, bit/s: the estimate, within ``capBitrate`` and, with one layer sent, the
        /// server's REMB.
        var targetBitrate: Int {
            let remote = sendsOneLayer ? remoteEstimate ?? .max : .max
            return max(VideoSendStream.minimumBitrate, min(capBitrate, paced.estimator.targetBitrate, remote))
        }
    }

    /// The sender's counters at a metrics report, to measure the next second against.
    struct SendCounters {
        var packets: UInt32 = 0
        var octets: UInt32 = 0
        var framesEncoded = 0
        var framesCaptured = 0
        var nacks = 0
        var plis = 0
        var firs = 0
    }
}
