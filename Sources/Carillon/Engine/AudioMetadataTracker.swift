import CarillonProtocol

/// Turns AUDIO_METADATA frames into volume and signal-strength changes (`signaling.md` §3.14, the delta rules of
/// `api-inventory.md` §2.9), sans-IO.
///
/// A frame that carries any volume sets every present attendee it leaves out to silent; one that carries any signal
/// strength sets the others to full strength. Only attendees whose level changed are reported. Mute itself comes
/// from the roster (AUDIO_STREAM_ID_INFO); here a muted attendee's volume reads `.muted`.
///
/// A level is remembered for one ``RosterTracker/Presence``: after the attendee left and came back, and after each
/// JOIN of this client (a reconnect), the next frame reports it again even when it is the same. The server sends a
/// frame only when a level changes, and observers (the active-speaker detector among them) forgot a leaver; without
/// this, a steady talker heard again after a reconnect would never be reported, and would stay out of the
/// active-speaker list for good.
struct AudioMetadataTracker: Sendable {
    /// A value as last reported, and for which presence of its attendee.
    private struct Known<Value: Equatable & Sendable>: Equatable, Sendable {
        let value: Value
        let presence: RosterTracker.Presence?
    }

    private var volumes: [AttendeeInfo: Known<VolumeLevel>] = [:]
    private var signals: [AttendeeInfo: Known<SignalStrength>] = [:]

    /// The volume level of "dB below full scale" as the server sends it. The client's 0…1 level is
    /// `clamp((42 − dB) / 28, 0, 1)`; up to 0.2 counts as not speaking (so background noise is not a speaker),
    /// then low, medium and high in equal steps.
    static func volumeLevel(decibelsBelowFullScale value: UInt32) -> VolumeLevel {
        let level = min(1, max(0, (42 - Double(min(value, 127))) / 28))
        switch level {
        case ...0.2: return .notSpeaking
        case ...0.4667: return .low
        case ...0.7333: return .medium
        default: return .high
        }
    }

    /// The signal strength of the server's 0 (no audio arriving), 1 (lossy) and 2 (good).
    static func signalStrength(_ value: UInt32) -> SignalStrength {
        switch value {
        case 0: .none
        case 1: .low
        default: .high
        }
    }

    /// Applies one frame; returns the changed volumes and signal strengths.
    mutating func apply(_ states: [SdkAudioAttendeeState], roster: RosterTracker)
        -> (volumes: [VolumeUpdate], signals: [SignalUpdate])
    {
        var frameVolumes: [AttendeeInfo: UInt32] = [:]
        var frameSignals: [AttendeeInfo: UInt32] = [:]
        for state in states where state.audioStreamID != 0 {
            guard let attendee = roster.attendee(forStream: state.audioStreamID) else { continue }
            if state.hasVolume { frameVolumes[attendee] = state.volume }
            if state.hasSignalStrength { frameSignals[attendee] = state.signalStrength }
        }
        var volumeChanges: [VolumeUpdate] = []
        var signalChanges: [SignalUpdate] = []
        let present = roster.attendees
        if !frameVolumes.isEmpty {
            for attendee in present {
                let level: VolumeLevel = roster.isMuted(attendee.attendeeId)
                    ? .muted
                    : frameVolumes[attendee].map(Self.volumeLevel) ?? .notSpeaking
                let known = Known(value: level, presence: roster.presence(of: attendee.attendeeId))
                if volumes[attendee] != known {
                    volumes[attendee] = known
                    volumeChanges.append(VolumeUpdate(attendeeInfo: attendee, volumeLevel: level))
                }
            }
        }
        if !frameSignals.isEmpty {
            for attendee in present {
                let strength = frameSignals[attendee].map(Self.signalStrength) ?? .high
                let known = Known(value: strength, presence: roster.presence(of: attendee.attendeeId))
                if signals[attendee] != known {
                    signals[attendee] = known
                    signalChanges.append(SignalUpdate(attendeeInfo: attendee, signalStrength: strength))
                }
            }
        }
        // Attendees who left are forgotten (their presence check would report a return anyway; this bounds memory).
        let presentSet = Set(present)
        volumes = volumes.filter { presentSet.contains($0.key) }
        signals = signals.filter { presentSet.contains($0.key) }
        return (volumeChanges, signalChanges)
    }
}
