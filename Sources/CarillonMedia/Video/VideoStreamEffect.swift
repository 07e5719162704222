import CarillonCodecs

/// What a ``VideoSendStream`` or ``VideoReceiveStreams`` asks its owner to do, in order.
///
/// A value; no threading concerns.
public enum VideoStreamEffect: Sendable, Equatable {
    /// Send one RTP packet (before SRTP).
    case sendRTP([UInt8])
    /// Send one RTCP compound packet (before SRTCP).
    case sendRTCP([UInt8])
    /// Show a decoded picture of remote video `videoId` (nil: that video ended); `timestampNanoseconds` is when its
    /// first packet arrived.
    case remoteVideoFrame(I420Image?, timestampNanoseconds: Int64, videoId: Int, attendeeId: String)
    /// Remote video `videoId`, not decoded, delivers frames of this size: its first, a new size, or the first after a
    /// pause at the source (its tile appears, changes size or resumes; no picture to show).
    case remoteVideoArrived(width: Int, height: Int, timestampNanoseconds: Int64, videoId: Int, attendeeId: String)
    /// Remote video `videoId` stopped at its sender: its tile shows a poor-connection pause until its next frame.
    case remoteVideoPausedAtSource(videoId: Int, attendeeId: String)
}
