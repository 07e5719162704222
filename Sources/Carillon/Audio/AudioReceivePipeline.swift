import CarillonCodecs
import CarillonMedia
import CarillonRTC
import NIOCore

/// The downlink audio path from RTP to PCM, sans-IO: received packets go into an adaptive jitter buffer, and every
/// 20 ms ``nextFrame(now:)`` returns the audio to play.
///
/// Playout is ``OpusPlayout``'s (the loop the server's mixer runs too): decode, FEC recovery, concealment or silence
/// as the ``AudioJitterBuffer`` instructs, cut into 20 ms frames whatever the sender's packet duration. The Opus
/// decoder works directly in the ``AudioMode``'s format (libopus decodes any Opus stream to 16 or 48 kHz, mono or
/// stereo), so no resampler follows it.
///
/// RFC 3550 receive statistics run alongside for loss metrics (``takeLossInterval()``) and RTCP reports; a new SSRC
/// starts new statistics. Threading: not thread-safe; the session's ``SessionMediaCore`` owns it (on the session's
/// loop), feeding packets as they arrive and pulling a frame each 20 ms tick.
final class AudioReceivePipeline {
    /// Counters since creation, besides the jitter buffer's own.
    struct Statistics: Sendable, Equatable {
        /// Frames decoded from a packet.
        var framesDecoded = 0
        /// Frames rebuilt from the next packet's FEC data.
        var framesRecovered = 0
        /// Frames synthesised by loss concealment.
        var framesConcealed = 0
        /// Frames of silence (nothing to play, or not decoded).
        var framesSilent = 0
        /// Payloads the decoder rejected (concealed instead).
        var decodeFailures = 0
        /// Packets ignored because their payload type is not the negotiated one.
        var packetsIgnored = 0
    }

    /// The length of every frame ``nextFrame(now:)`` returns.
    static let frameMilliseconds = 20

    /// The format of the frames returned: the ``AudioMode``'s.
    let outputFormat: AudioFormat
    /// The negotiated Opus payload type; packets of other types are ignored. Nil accepts any.
    var payloadType: UInt8?
    /// Whether audio is decoded. A session without an output device (``AudioDeviceCapabilities/none``) turns it
    /// off: packets still pass through the jitter buffer and the statistics, but every frame is silence, so a
    /// listening bot costs no decoding.
    var decodes = true
    /// Counters since creation.
    var statistics: Statistics {
        let playout = self.playout.statistics
        return Statistics(framesDecoded: playout.framesDecoded, framesRecovered: playout.framesRecovered,
                          framesConcealed: playout.framesConcealed, framesSilent: playout.framesSilent,
                          decodeFailures: playout.decodeFailures, packetsIgnored: packetsIgnored)
    }
    /// The jitter buffer's counters (late, duplicate and lost packets, delay adaptations, jitter).
    var jitterBufferStatistics: AudioJitterBufferStatistics { jitterBuffer.statistics }
    /// The jitter buffer's current target delay.
    var targetDelay: TimeAmount { jitterBuffer.targetDelay }
    /// RFC 3550 statistics of the current stream, nil before the first packet.
    private(set) var receiveStatistics: RTPReceiveStatistics?
    /// The SSRC of the stream being received.
    private(set) var ssrc: UInt32?

    private var jitterBuffer: AudioJitterBuffer
    private let decoder: OpusDecoder
    private var playout: OpusPlayout
    private var packetsIgnored = 0
    // Counts at the last takeLossInterval(), of the current stream; and what earlier streams added since.
    private var reported = (expected: UInt64(0), received: UInt64(0))
    private var carried = PacketLossInterval(expected: 0, received: 0)

    /// Creates a pipeline producing audio for a session in `audioMode`.
    init(audioMode: AudioMode, payloadType: UInt8? = nil,
         jitterBufferConfiguration: AudioJitterBuffer.Configuration = .init()) throws(OpusError) {
        outputFormat = audioMode.format
        decoder = try OpusDecoder(format: audioMode.format)
        playout = OpusPlayout(format: audioMode.format)
        jitterBuffer = AudioJitterBuffer(configuration: jitterBufferConfiguration)
        self.payloadType = payloadType
    }

    /// Takes a packet of the stream (after SRTP), with its arrival time.
    func receive(_ packet: RTPPacket, arrival: NIODeadline) {
        if let payloadType, packet.payloadType != payloadType {
            packetsIgnored += 1
            return
        }
        if ssrc != packet.ssrc {
            if let old = receiveStatistics {
                carried.expected += Int(old.packetsExpected - reported.expected)
                carried.received += Int(old.packetsReceived - reported.received)
            }
            ssrc = packet.ssrc
            receiveStatistics = RTPReceiveStatistics(clockRate: AudioSendPipeline.clockRate)
            reported = (0, 0)
        }
        receiveStatistics?.record(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp, arrival: arrival)
        jitterBuffer.insert(packet, arrival: arrival)
    }

    /// The next 20 ms to play, in ``outputFormat``.
    func nextFrame(now: NIODeadline) -> AudioFrame {
        guard decodes else {
            playout.skipFrame(from: &jitterBuffer, now: now)
            return .silence(format: outputFormat, milliseconds: Self.frameMilliseconds)
        }
        return AudioFrame(format: outputFormat, samples: playout.nextFrame(from: &jitterBuffer, decoder: decoder, now: now))
    }

    /// Packets expected, received and lost since the previous call (or since creation), for
    /// `audioReceivePacketLossPercent`.
    func takeLossInterval() -> PacketLossInterval {
        var interval = carried
        carried = PacketLossInterval(expected: 0, received: 0)
        if let stream = receiveStatistics {
            interval.expected += Int(stream.packetsExpected - reported.expected)
            interval.received += Int(stream.packetsReceived - reported.received)
            reported = (stream.packetsExpected, stream.packetsReceived)
        }
        return interval
    }

    /// A report block about the stream being received, for the sender report this session sends; nil before the
    /// first packet.
    func reportBlock(now: NIODeadline) -> RTCPPacket.ReportBlock? {
        guard let ssrc, var statistics = receiveStatistics else { return nil }
        defer { receiveStatistics = statistics }
        return statistics.reportBlock(ssrc: ssrc, now: now)
    }

    /// Records the sender's report about the stream being received (echoed in the next ``reportBlock(now:)``).
    func senderReportReceived(ssrc: UInt32, ntpTimestamp: NTPTimestamp, arrival: NIODeadline) {
        guard ssrc == self.ssrc else { return }
        receiveStatistics?.senderReportReceived(ntpTimestamp: ntpTimestamp, arrival: arrival)
    }
}
