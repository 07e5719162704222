/// One compressed video frame as an encoder produced it: what an RTP packetizer splits and a decoder takes back.
///
/// A value type; share it freely between threads.
public struct EncodedVideoFrame: Sendable, Hashable {
    /// The codec bitstream of the frame (for VP8, RFC 6386 frame data, starting with the 3-byte frame tag).
    public var bytes: [UInt8]
    /// Whether the frame decodes on its own (a VP8 keyframe); a receiver that lost anything can restart here.
    public var isKeyframe: Bool
    /// The presentation time the caller gave for the source image, on the 90 kHz RTP video clock.
    public var timestamp: UInt32
    /// Width of the encoded picture in pixels.
    public var width: Int
    /// Height of the encoded picture in pixels.
    public var height: Int

    /// Creates a frame from its parts.
    public init(bytes: [UInt8], isKeyframe: Bool, timestamp: UInt32, width: Int, height: Int) {
        self.bytes = bytes
        self.isKeyframe = isKeyframe
        self.timestamp = timestamp
        self.width = width
        self.height = height
    }
}
