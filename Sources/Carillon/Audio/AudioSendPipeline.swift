import CarillonCodecs
import CarillonRTC

/// The uplink audio path from captured PCM to RTP, sans-IO: fed one captured frame every 20 ms, it returns the RTP
/// packet to send.
///
/// On real devices each captured frame first loses the echo of what the session plays (``setEchoCanceller(_:)``,
/// fed the playout through ``played(_:)``), with gain control and a high-pass filter. Each frame is then converted to
/// the encoder's format when needed (16 kHz is resampled to 48 kHz; a stereo frame is
/// downmixed for a mono session and the reverse), cleaned by Voice Focus when it is on (``setNoiseSuppressor(_:)``:
/// RNNoise at 48 kHz, so the level and voice activity that follow ignore the fan), measured (RFC 6464 level and voice
/// activity), Opus-encoded
/// (48 kHz, VoIP, in-band FEC and DTX on: in silence the encoder returns 1-3 byte packets, which are sent all the same
/// so the stream and its audio levels stay alive) and packetized: sequence numbers continue by one per packet, the
/// timestamp by the frame's duration at the 48 kHz RTP clock (960 per 20 ms), with the negotiated payload type, the
/// SSRC, the `ssrc-audio-level` extension when its id is known, and the marker bit on the first packet after start
/// and after unmuting (the start of a talk spurt).
///
/// Digital silence (a silent virtual device, or ``AudioDeviceCapabilities/none``) is encoded only until the encoder
/// has settled into DTX; after that the last DTX payload is sent again without running Opus, so a bot that says
/// nothing costs almost no CPU.
///
/// Muted, nothing is sent: ``process(_:)`` returns nil and sequence numbers stay put, while the timestamp keeps
/// running with the captured audio (so the receiver sees a pause, not a time warp) and the input level is still
/// measured. Threading: not thread-safe; the session's ``SessionMediaCore`` owns it (on the session's loop) and calls it
/// each 20 ms frame.
final class AudioSendPipeline {
    /// Counters since creation.
    struct Statistics: Sendable, Equatable {
        /// Packets returned for sending.
        var packetsSent = 0
        /// Opus payload bytes in those packets.
        var payloadBytesSent = 0
        /// Frames not sent because of mute.
        var framesMuted = 0
        /// Frames dropped because Opus refused them (a frame length Opus cannot encode).
        var encodeFailures = 0
        /// Frames of digital silence sent as the cached DTX payload, without encoding.
        var framesReused = 0
    }

    /// Digitally silent frames encoded before the DTX payload is reused (libopus needs a few to enter DTX).
    static let silentFramesBeforeReuse = 10

    /// The RTP clock rate of Opus, whatever the audio's rate (RFC 7587).
    static let clockRate = 48_000

    /// The format ``process(_:)`` expects (its ``AudioMode``'s); other formats are converted too.
    let captureFormat: AudioFormat
    /// The format Opus encodes: 48 kHz with the session's channel count.
    let encoderFormat: AudioFormat
    /// What Voice Focus's suppressor takes: the mono signal at the encoder's 48 kHz.
    var suppressorFormat: AudioFormat { AudioFormat(sampleRate: encoderFormat.sampleRate, channels: 1) }
    /// The synchronisation source of the stream.
    var ssrc: UInt32
    /// The payload type negotiated for Opus.
    var payloadType: UInt8
    /// The id negotiated for `urn:ietf:params:rtp-hdrext:ssrc-audio-level`; nil sends no extension.
    var audioLevelExtensionID: UInt8?
    /// Whether the microphone is muted (nothing is sent).
    private(set) var isMuted = false
    /// The RFC 6464 level of the last captured frame, 0 (loudest) to 127 (silence), measured even while muted: the
    /// local volume.
    private(set) var inputLevel: UInt8 = 127
    /// Whether the last captured frame counted as speech (``AudioLevel/isVoiceActive(_:thresholdDBov:)``).
    private(set) var inputVoiceActive = false
    /// Counters since creation.
    private(set) var statistics = Statistics()
    /// The loss the encoder was last told to expect (``setExpectedPacketLossPercent(_:)``), 0-100 %.
    private(set) var expectedPacketLossPercent = 0
    /// Voice Focus: the suppressor every frame goes through before it is measured and encoded; nil when off.
    private(set) var noiseSuppressor: NoiseSuppressor?
    /// Echo cancellation, gain control and high-pass filter on the captured frame, in the capture format; nil when off
    /// (virtual devices, or turned off).
    private(set) var echoCanceller: EchoCanceller?

    /// The RTP timestamp of the next frame: what a sender report pairs with the wall clock now.
    var nextTimestamp: UInt32 { numbering.nextTimestamp }

    private let encoder: OpusEncoder
    private var converter: AudioResampler?
    private var numbering: RTPStreamNumbering
    private var startsTalkSpurt = true
    private var silentFrames = 0
    private var silencePayload: [UInt8]?

    /// Creates a pipeline for a session in `audioMode`; the first packet carries `sequenceNumber` and `timestamp`
    /// (random by default, as RFC 3550 asks). Bitrate defaults to 32 kbit/s mono, 64 kbit/s stereo.
    init(audioMode: AudioMode, ssrc: UInt32, payloadType: UInt8, audioLevelExtensionID: UInt8?,
         sequenceNumber: UInt16 = .random(in: .min ... .max), timestamp: UInt32 = .random(in: .min ... .max),
         bitrate: Int? = nil) throws(OpusError) {
        captureFormat = audioMode.format
        encoderFormat = AudioFormat(sampleRate: Self.clockRate, channels: audioMode.format.channels)
        encoder = try OpusEncoder(format: encoderFormat, application: .voip,
                                  bitrate: bitrate ?? 32_000 * encoderFormat.channels, inbandFEC: true, dtx: true)
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.audioLevelExtensionID = audioLevelExtensionID
        numbering = RTPStreamNumbering(sequenceNumber: sequenceNumber, timestamp: timestamp)
    }

    /// Mutes or unmutes; the first packet after unmuting carries the marker bit.
    func setMuted(_ muted: Bool) {
        if isMuted && !muted { startsTalkSpurt = true }
        isMuted = muted
    }

    /// Turns Voice Focus on with `suppressor` (made for ``suppressorFormat``), or off with nil; takes effect with the
    /// next frame. Turning it on again with the same suppressor continues its state.
    func setNoiseSuppressor(_ suppressor: NoiseSuppressor?) {
        noiseSuppressor = suppressor
    }

    /// Turns echo cancellation (with gain control and the high-pass filter) on with `canceller` (made for
    /// ``captureFormat``) or off with nil, from the next frame.
    func setEchoCanceller(_ canceller: EchoCanceller?) {
        echoCanceller = canceller
    }

    /// What the session plays now: the far-end reference the echo canceller removes from later captures.
    func played(_ frame: AudioFrame) {
        echoCanceller?.played(frame)
    }

    /// Tells the encoder the loss the receiver reports (RTCP), 0-100 %, so in-band FEC matches it.
    func setExpectedPacketLossPercent(_ percent: Int) {
        let clamped = min(100, max(0, percent))
        do {
            try encoder.setExpectedPacketLossPercent(clamped)
            expectedPacketLossPercent = clamped
        } catch {
            // libopus takes every value in 0-100; a refusal keeps the previous setting.
        }
    }

    /// Moves the timestamp over `milliseconds` of audio that were never captured (the session's clock skipped them
    /// after a stall): the receiver sees a gap in media time, and the next packet starts a talk spurt.
    func skip(milliseconds: Int) {
        numbering.skip(samples: UInt32(truncatingIfNeeded: milliseconds * Self.clockRate / 1000))
        startsTalkSpurt = true
    }

    /// Takes one captured frame (20 ms normally; 10, 40 and 60 ms work too) and returns the packet to send, or nil
    /// when muted or when the frame cannot be encoded.
    func process(_ captured: AudioFrame) -> RTPPacket? {
        var frame = convert(echoCanceller?.process(captured) ?? captured)
        if let noiseSuppressor {
            // Voice Focus cleans the microphone's mono signal (a stereo session's two channels carry the same voice;
            // one RNNoise state costs half of two), then the session's channels are made from it again.
            frame = frame.format.channels == 1
                ? noiseSuppressor.process(frame) : noiseSuppressor.process(frame.monoDownmix()).stereoUpmix()
        }
        inputLevel = AudioLevel.rfc6464Level(frame)
        inputVoiceActive = AudioLevel.isVoiceActive(frame)
        let samples = UInt32(truncatingIfNeeded: frame.frameCount)
        guard !isMuted else {
            numbering.skip(samples: samples)
            statistics.framesMuted += 1
            return nil
        }
        let payload: [UInt8]
        let silent = frame.isSilent
        silentFrames = silent ? silentFrames + 1 : 0
        if silent, silentFrames > Self.silentFramesBeforeReuse, let silencePayload {
            payload = silencePayload
            statistics.framesReused += 1
        } else {
            do { payload = try encoder.encode(frame) } catch {
                numbering.skip(samples: samples)
                statistics.encodeFailures += 1
                return nil
            }
            // A DTX frame is the TOC byte and at most a couple more: the same one can stand for every silent frame.
            silencePayload = silent && silentFrames >= Self.silentFramesBeforeReuse && payload.count <= 3 ? payload : nil
        }
        return packetize(payload, samples: samples)
    }

    /// Takes one 20 ms frame that is already Opus (an ``EncodedAudioInputSource``'s) and returns its packet: the
    /// frame's own level and voice flag go in the audio-level extension, the numbering continues as for encoded
    /// frames. Nil when muted or when the frame carries no payload (a DTX gap: the timestamp moves on).
    func process(encoded frame: EncodedAudioFrame) -> RTPPacket? {
        inputLevel = frame.level
        inputVoiceActive = frame.voiceActive
        let samples = UInt32(Self.clockRate / 1000 * SessionMediaCore.frameMilliseconds)
        guard !isMuted else {
            numbering.skip(samples: samples)
            statistics.framesMuted += 1
            return nil
        }
        guard let payload = frame.payload else {
            numbering.skip(samples: samples)
            return nil
        }
        return packetize(payload, samples: samples)
    }

    /// The packet of one encoded frame: the next sequence number and timestamp, the level extension, the marker on a
    /// talk spurt's first packet.
    private func packetize(_ payload: [UInt8], samples: UInt32) -> RTPPacket {
        var extensions: [(id: UInt8, value: [UInt8])] = []
        if let audioLevelExtensionID {
            extensions.append((audioLevelExtensionID,
                               RTPHeaderExtensionValue.audioLevelValue(voice: inputVoiceActive, level: inputLevel)))
        }
        let (sequenceNumber, timestamp) = numbering.take(samples: samples)
        let packet = RTPPacket(marker: startsTalkSpurt, payloadType: payloadType, sequenceNumber: sequenceNumber,
                               timestamp: timestamp, ssrc: ssrc, extensions: extensions, payload: payload[...])
        startsTalkSpurt = false
        statistics.packetsSent += 1
        statistics.payloadBytesSent += payload.count
        return packet
    }

    private func convert(_ frame: AudioFrame) -> AudioFrame {
        guard frame.format != encoderFormat else { return frame }
        if converter?.inputFormat != frame.format {
            // Only rates AudioResampler cannot take fail here; such a frame is sent as silence of the same duration.
            converter = try? AudioResampler(from: frame.format, to: encoderFormat)
        }
        guard var converter else {
            let frames = frame.frameCount * Self.clockRate / max(1, frame.format.sampleRate)
            return AudioFrame(format: encoderFormat, samples: [Int16](repeating: 0, count: frames * encoderFormat.channels))
        }
        let converted = converter.process(frame)
        self.converter = converter
        return converted
    }
}
