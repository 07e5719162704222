import CarillonProtocol
import CarillonRTC

/// What a ``MeetingCore`` asks its shell to do, in order.
enum MeetingCoreEffect {
    /// Send one encoded frame to each of these sockets.
    case send([SignalingConnectionID], SdkSignalFrame)
    /// Close this socket with the WebSocket close code.
    case close(SignalingConnectionID, code: UInt16)
    /// An attendee joined or left (operators' logs, lifecycle events).
    case activity(AttendeeIdentity, AttendeeActivity)
    /// Run this session's media transport: the negotiated peer connection (ICE-lite, DTLS, SRTP), to be driven on
    /// the media port, which routes the checks for its local ICE credentials to it. Any transport the session had is
    /// ended by an earlier ``endTransport(_:)``.
    case startTransport(SignalingConnectionID, PeerConnection, localICE: ICECredentials)
    /// Stop this session's transport (it re-offered, left, failed or the meeting ended).
    case endTransport(SignalingConnectionID)
    /// Send this RTP packet (before SRTP) on the session's transport.
    case rtp(SignalingConnectionID, [UInt8])
    /// Send this RTCP compound (before SRTCP) on the session's transport.
    case rtcp(SignalingConnectionID, [UInt8])
    /// Apply these operations to the files of media capture pipeline `pipelineId`, in order.
    case recording(pipelineId: String, [RecordingFileOperation])
    /// The recording of `pipelineId` has given out its last operation: `stopped` when it ended for good (deleted,
    /// the meeting ended), false when the server stops and it resumes at the next start.
    case recordingEnded(pipelineId: String, stopped: Bool)
}
