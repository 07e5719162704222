/// What ``MeetingMediaCore`` asks its shell to do.
package enum MeetingMediaOutput {
    /// Send an RTP packet (plain; the session's connection protects it) to a session.
    case rtp(SignalingConnectionID, [UInt8])
    /// Send an RTCP compound packet (plain) to a session.
    case rtcp(SignalingConnectionID, [UInt8])
    /// Every measured attendee's volume and signal strength, for AUDIO_METADATA (something changed).
    case audioMetadata([(attendeeId: String, volume: UInt32?, signalStrength: UInt32?)])
    /// A session's camera stopped arriving (`paused` true) or arrives again: INDEX `paused_at_source_ids`.
    case videoSourcePaused(SignalingConnectionID, paused: Bool)
    /// The measured bitrate (bits per second) of every video stream (simulcast layer) with a known stream id, for
    /// BITRATES; once a second while any is measured.
    case videoBitrates([(streamId: UInt32, bitrate: Int)])
    /// A receiver's allocation (mode 4) stopped (`paused`) or restarted forwarding these sources: S→C PAUSE or RESUME
    /// `{group_ids}`.
    case videoDownlinkPaused(SignalingConnectionID, groupIds: [UInt32], paused: Bool)
    /// A receiver's downlink estimate changed (mode 4): BITRATES `server_available_outgoing_bitrate`, kbps.
    case videoDownlinkEstimate(SignalingConnectionID, kbps: UInt32)
    /// What the recorder of pipeline `pipelineId` asks of its files.
    case recording(pipelineId: String, [RecordingFileOperation])
}

extension MeetingMediaOutput {
    /// Whether this is a packet to send (RTP or RTCP) rather than a report for signaling.
    var isPacket: Bool {
        switch self {
        case .rtp, .rtcp: true
        default: false
        }
    }
}
