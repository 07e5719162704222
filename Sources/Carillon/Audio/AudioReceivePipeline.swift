import CarillonCodecs
import CarillonRTC
import NIOCore

/// The downlink audio path from RTP to PCM, sans-IO: received packets go into an adaptive jitter buffer, and every
/// 20 ms ``nextFrame(now:)`` returns the audio to play.
///
/// Playout follows the ``AudioJitterBuffer``'s instructions: a packet is decoded, a lost packet whose successor is
/// here is rebuilt from the successor's in-band FEC, other losses are concealed (libopus PLC), and with nothing to
/// play the frame is silence. The Opus decoder works directly in the ``AudioMode``'s format (libopus decodes any Opus
/// stream to 16 or 48 kHz, mono or stereo), so no resampler follows it. Frames always last 20 ms, whatever the sender's
/// packet duration (decoded audio is queued and cut into 20 ms frames). A corrupt payload is concealed and counted.
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
        /// Frames of silence (nothing to play).
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
    private(set) var statistics = Statistics()
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
    private var pending: [Int16] = []
    // Counts at the last takeLossInterval(), of the current stream; and what earlier streams added since.
    private var reported = (expected: UInt64(0), received: UInt64(0))
    private var carried = PacketLossInterval(expected: 0, received: 0)

    /// Creates a pipeline producing audio for a session in `audioMode`.
    init(audioMode: AudioMode, payloadType: UInt8? = nil,
         jitterBufferConfiguration: AudioJitterBuffer.Configuration = .init()) throws(OpusError) {
        outputFormat = audioMode.format
        decoder = try OpusDecoder(format: audioMode.format)
        jitterBuffer = AudioJitterBuffer(configuration: jitterBufferConfiguration)
        self.payloadType = payloadType
    }

    /// Takes a packet of the stream (after SRTP), with its arrival time.
    func receive(_ packet: RTPPacket, arrival: NIODeadline) {
        if let payloadType, packet.payloadType != payloadType {
            statistics.packetsIgnored += 1
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
        let needed = outputFormat.interleavedSampleCount(milliseconds: Self.frameMilliseconds)
        // Packets shorter than 20 ms need several playouts per frame; the bound only guards against a buffer that
        // keeps returning nothing.
        var attempts = 0
        while pending.count < needed, attempts < 32 {
            pending += playout(now: now).samples
            attempts += 1
        }
        if pending.count < needed { pending += repeatElement(0, count: needed - pending.count) }
        let frame = AudioFrame(format: outputFormat, samples: Array(pending[0..<needed]))
        pending.removeFirst(needed)
        return frame
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

    private func playout(now: NIODeadline) -> AudioFrame {
        let milliseconds = frameMillisecondsOfStream
        let instruction = jitterBuffer.nextFrame(now: now)
        guard decodes else {
            statistics.framesSilent += 1
            return .silence(format: outputFormat, milliseconds: milliseconds)
        }
        switch instruction {
        case .packet(let payload, _):
            do {
                let frame = try decoder.decode(payload)
                statistics.framesDecoded += 1
                return frame
            } catch {
                statistics.decodeFailures += 1
                return conceal(milliseconds: milliseconds)
            }
        case .recoverFromNext(let next):
            do {
                let frame = try decoder.decodeFEC(from: next, frameMilliseconds: milliseconds)
                statistics.framesRecovered += 1
                return frame
            } catch {
                statistics.decodeFailures += 1
                return conceal(milliseconds: milliseconds)
            }
        case .conceal:
            return conceal(milliseconds: milliseconds)
        case .silence:
            statistics.framesSilent += 1
            return .silence(format: outputFormat, milliseconds: milliseconds)
        }
    }

    private func conceal(milliseconds: Int) -> AudioFrame {
        guard let frame = try? decoder.concealLoss(frameMilliseconds: milliseconds) else {
            statistics.framesSilent += 1
            return .silence(format: outputFormat, milliseconds: milliseconds)
        }
        statistics.framesConcealed += 1
        return frame
    }

    /// The stream's frame duration as the jitter buffer learnt it, in the whole 5 ms steps libopus conceals in.
    private var frameMillisecondsOfStream: Int {
        let milliseconds = Int(jitterBuffer.frameDuration.nanoseconds / 1_000_000)
        return milliseconds > 0 && milliseconds <= 120 && milliseconds % 5 == 0 ? milliseconds : Self.frameMilliseconds
    }
}
