import CarillonProtocol
import CarillonRTC
import Foundation
import NIOCore

/// The meeting's sockets, attendees and video publications as the signaling core keeps them.
extension MeetingSignalingCore {
    struct Connection {
        let identity: AttendeeIdentity
        var joined = false
        var left = false
        var lastActivity: NIODeadline
        /// When the socket was accepted (``Configuration/joinTimeout`` counts from here).
        let openedAt: NIODeadline
        /// What the session may send and receive (its attendee's capabilities).
        var permissions = AttendeeMediaPermissions.all
        /// JOIN's `disable_periodic_keyframe_request_on_content_sender`.
        var periodicKeyFramesDisabled = false
        /// The downlink adaptation mode JOIN_ACK gave the session (`default_server_side_network_adaption`).
        var adaptation = SdkServerSideNetworkAdaption.default
        /// The receiver's latest downlink estimate (mode 4), kbps: every BITRATES it gets carries it.
        var downlinkEstimateKbps: UInt32?
        /// The session's hard data-message limit (``Configuration/attendeeHardRate``), once it has sent one.
        var dataMessageLimit: TokenBucket?
        /// The session's share of the meeting's soft throttle (``Configuration/throttleBurst``), once it has sent one.
        var throttleShare: TokenBucket?
        /// The session's frame limit (``Configuration/framesPerSecond``), once it has sent a frame.
        var frameLimit: TokenBucket?
    }

    struct Participant {
        let identity: AttendeeIdentity
        var streamId: UInt32
        var muted: Bool
        var audioSessionId: UInt64
        /// nil while the socket is gone and the attendee may still reconnect.
        var connection: SignalingConnectionID?
        var dropDeadline: NIODeadline?
        /// Wall clock of its first join in this room (a reconnect keeps it), and of the loss of its socket while it
        /// may reconnect: the `since` of ``LiveAttendeeState``.
        var joinedAt: Int64
        var disconnectedAt: Int64?
    }

    /// One encoding a video publication announced in SUBSCRIBE `send_streams`.
    struct VideoLayer: Equatable {
        var streamId: UInt32
        var maxBitrateKbps: UInt32
        var framerate: UInt32
        var trackLabel: String
        /// The encoded size the sender announced (0 when unknown).
        var width: UInt32 = 0
        var height: UInt32 = 0
    }

    /// One attendee session's camera (or content) publication: a source (`group_id`) and its encodings.
    struct VideoPublication: Equatable {
        let identity: AttendeeIdentity
        let groupId: UInt32
        var layers: [VideoLayer]
        /// The media stopped arriving (the router's report): listed in INDEX `paused_at_source_ids`.
        var pausedAtSource = false
    }

    /// What a SUBSCRIBE asked for the session's own video, applied when its answer succeeds.
    enum PendingVideo {
        case publish(VideoPublication)
        case stop
        case refused
    }
}
