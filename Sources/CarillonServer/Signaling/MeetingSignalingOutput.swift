import CarillonProtocol

/// What ``MeetingSignalingCore`` asks its shell to do.
public enum MeetingSignalingOutput: Sendable {
    /// Send one frame to each of these sockets (encoded once, written to all).
    case send([SignalingConnectionID], SdkSignalFrame)
    /// Close a socket with a WebSocket close code.
    case close(SignalingConnectionID, code: UInt16)
    /// Answer a SUBSCRIBE's SDP offer for the attendee session on this socket (SUBSCRIBE_ACK goes back to it), with
    /// what it may send and what it receives on each video m-line.
    case subscribe(SignalingConnectionID, attendeeId: String, offer: String, video: VideoSubscribeRequest)
    /// A client paused (or resumed) remote streams it receives (C→S PAUSE/RESUME): stop or restart forwarding them.
    case pauseVideo(SignalingConnectionID, streamIds: [UInt32], paused: Bool)
    /// A client asked (REMOTE_VIDEO_UPDATE with a `stream_id`) for another layer of the source it receives on `mid`:
    /// switch that m-line to stream `streamId`, keeping its SSRC.
    case selectVideoLayer(SignalingConnectionID, mid: String, streamId: UInt32)
    /// A client in server-side adaptation (mode 4) changed its preferences (REMOTE_VIDEO_UPDATE, `signaling.md`
    /// §3.10): per mid its new priority and target (`updated`), and the mids it no longer configures (`removedMids`,
    /// back to the least important tier without ceiling); the allocation takes them at once.
    case updateVideoPreferences(SignalingConnectionID, updated: [String: VideoDownlinkPreference], removedMids: [String])
    /// The attendee session on this socket left: end its media.
    case endMedia(SignalingConnectionID)
    /// An attendee muted or unmuted: the mixer must leave it out of (or take it back into) the mix.
    case audioMuted(attendeeId: String, muted: Bool)
    /// An attendee's capabilities now let it hear the meeting, or no longer do: the mixer sends it the mix, or silence.
    case audioReceiving(attendeeId: String, receives: Bool)
    /// An attendee joined (first time, not a reconnect), left, was dropped, or started or stopped sending video: for
    /// lifecycle events, nothing to do for the meeting itself.
    case activity(AttendeeIdentity, AttendeeActivity)
    /// Data messages delivered to the meeting (stamped with sender and ingest time), for a recording.
    case dataMessagesDelivered([SdkDataMessagePayload])
}
