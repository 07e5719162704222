import CarillonCodecs
import CarillonMedia
import CarillonRTC
import NIOCore

/// One participant's state inside an ``AudioMixer``: its uplink jitter buffer and level, its downlink numbering, and
/// while it is a speaker, the codecs it borrowed.
///
/// Threading: not thread-safe; its mixer's owner keeps it.
final class MixerParticipant {
    let attendeeId: String
    var muted = false
    var jitterBuffer: AudioJitterBuffer
    var activity = SpeakerActivity()
    var downlink: OutboundAudioStream
    /// False for a send-only participant (a content share): it is mixed for the others but gets no mix itself.
    let receivesMix: Bool
    /// False while its capabilities do not let it hear the meeting: its downlink carries encoded silence (clients
    /// expect a packet every 20 ms), never the mix.
    var hearsMeeting = true
    /// Set while the participant is mixed.
    var slot: SpeakerSlot?
    /// The uplink's playout: decoded with the slot's decoder while mixed, skipped without decoding otherwise.
    var playout = OpusPlayout(format: AudioMixer.format)
    init(attendeeId: String, downlink: OutboundAudioStream, receivesMix: Bool,
         jitterBuffer: AudioJitterBuffer.Configuration) {
        self.attendeeId = attendeeId
        self.downlink = downlink
        self.receivesMix = receivesMix
        self.jitterBuffer = AudioJitterBuffer(configuration: jitterBuffer)
    }
}
