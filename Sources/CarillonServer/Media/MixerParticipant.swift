import CarillonCodecs
import CarillonRTC
import NIOCore

/// One participant's state inside an ``AudioMixer``: its uplink jitter buffer and level, its downlink numbering, and
/// while it is a speaker, the codecs it borrowed.
///
/// Threading: not thread-safe; its mixer's owner keeps it.
final class MixerParticipant {
    let attendeeId: String
    let streamId: UInt32
    var muted = false
    var jitterBuffer: AudioJitterBuffer
    var activity = SpeakerActivity()
    var downlink: OutboundAudioStream
    /// Set while the participant is mixed.
    var slot: SpeakerSlot?
    /// Decoded audio not yet mixed (packets longer than a tick leave some over).
    var pending: [Int16] = []
    /// Audio taken from the jitter buffer but neither decoded nor used yet, in samples, while not mixed.
    var skipped = 0
    /// Decodes packets without a level extension, only to measure them; made on first need.
    private var meter: OpusDecoder?
    private var meterUnavailable = false

    init(attendeeId: String, streamId: UInt32, downlink: OutboundAudioStream, jitterBuffer: AudioJitterBuffer.Configuration) {
        self.attendeeId = attendeeId
        self.streamId = streamId
        self.downlink = downlink
        self.jitterBuffer = AudioJitterBuffer(configuration: jitterBuffer)
    }

    /// The level of a packet that carries none, by decoding it. 16 kHz is enough for a level and cheaper than 48 kHz.
    /// The meter has its own decoder state, so measuring in arrival order does not disturb playout decoding.
    func measureLevel(of payload: ArraySlice<UInt8>) -> UInt8? {
        if meter == nil, !meterUnavailable {
            meter = try? OpusDecoder(format: .mono16k)
            meterUnavailable = meter == nil
        }
        guard let meter, let frame = try? meter.decode(Array(payload)) else { return nil }
        return AudioLevel.rfc6464Level(frame)
    }
}
