import CarillonMedia
import CarillonRTC
import NIOCore

extension AudioMixer {
    /// Tuning of an ``AudioMixer``. Frames are always 20 ms of 48 kHz mono (see ``AudioMixer/frameDuration``); the
    /// rest is here.
    ///
    /// A plain value, safe to share.
    public struct Configuration: Sendable {
        /// How many of the loudest unmuted participants are mixed at once (N). Each costs one decode and one encode per
        /// tick; three is what conferencing mixers commonly use, since more simultaneous talkers are unintelligible.
        public var speakers: Int
        /// Target bitrate of every encoded downlink stream, in bit/s.
        public var bitrate: Int
        /// Opus encoder complexity, 0-10. The N + 1 encodes are most of a tick's CPU time; lower values trade quality
        /// for it.
        public var encoderComplexity: Int
        /// The loss rate, 0-100 %, downlink in-band FEC is planned for.
        public var expectedPacketLossPercent: Int
        /// The RFC 6464 level (-dBov: 0 loudest, 127 silence) at or below which a participant's smoothed level counts
        /// as speech. 50 (-50 dBov) matches `AudioLevel.defaultVoiceThresholdDBov`: headset speech sits around 20-35
        /// and a quiet room's floor around 60-70.
        public var voiceThreshold: UInt8
        /// How long a participant stays eligible after its level last passed the threshold, so the pauses between
        /// words do not drop it from the mix.
        public var holdTime: TimeAmount
        /// How much louder, in dB, a newcomer must be than a current speaker to take its slot when all are taken; stops
        /// two talkers of similar level from swapping every frame.
        public var switchMarginDB: Double
        /// The jitter buffer of each participant's uplink.
        public var jitterBuffer: AudioJitterBuffer.Configuration

        /// Creates a configuration.
        public init(
            speakers: Int = 3,
            bitrate: Int = 32_000,
            encoderComplexity: Int = 9,
            expectedPacketLossPercent: Int = 10,
            voiceThreshold: UInt8 = 50,
            holdTime: TimeAmount = .milliseconds(500),
            switchMarginDB: Double = 3,
            jitterBuffer: AudioJitterBuffer.Configuration = .init()
        ) {
            self.speakers = speakers
            self.bitrate = bitrate
            self.encoderComplexity = encoderComplexity
            self.expectedPacketLossPercent = expectedPacketLossPercent
            self.voiceThreshold = voiceThreshold
            self.holdTime = holdTime
            self.switchMarginDB = switchMarginDB
            self.jitterBuffer = jitterBuffer
        }

        /// The configuration with out-of-range values brought into range (the codec settings are checked by libopus
        /// when the mixer is created).
        var sanitized: Configuration {
            var result = self
            result.speakers = min(max(speakers, 0), 16)
            result.voiceThreshold = min(voiceThreshold, 127)
            result.holdTime = max(holdTime, .zero)
            result.switchMarginDB = switchMarginDB.isFinite ? max(switchMarginDB, 0) : 3
            return result
        }
    }
}
