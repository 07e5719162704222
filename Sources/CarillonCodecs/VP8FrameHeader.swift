/// The uncompressed header at the start of every VP8 frame (RFC 6386 section 9.1), read without decoding: whether
/// the frame is a keyframe and, for keyframes, the picture size.
///
/// What a receiver or a forwarding server needs to know about a frame (start decoding here? which size?) without
/// running a decoder. Cost: a few byte reads. A value type.
public struct VP8FrameHeader: Sendable, Hashable {
    /// The bytes every keyframe carries after its 3-byte frame tag.
    public static let keyframeStartCode: [UInt8] = [0x9D, 0x01, 0x2A]

    /// Whether the frame is a keyframe (bit 0 of the frame tag is 0).
    public var isKeyframe: Bool
    /// The bitstream version, 0-3 (reconstruction filter and loop filter type).
    public var version: Int
    /// Whether the decoder shows the frame (VP8's invisible alt-ref frames have it off).
    public var isShown: Bool
    /// Length in bytes of the first partition (modes and motion vectors), which follows the header.
    public var firstPartitionSize: Int
    /// Picture width in pixels: 14 bits of keyframes, nil for inter frames.
    public var width: Int?
    /// Picture height in pixels: 14 bits of keyframes, nil for inter frames.
    public var height: Int?
    /// Upscaling the sender asks of the receiver horizontally (0 none, 1 5/4, 2 5/3, 3 2); 0 for inter frames.
    public var horizontalScale: Int
    /// Upscaling the sender asks of the receiver vertically; 0 for inter frames.
    public var verticalScale: Int

    /// Parses the header; nil when the bytes are too short (3 bytes, 10 for a keyframe) or a keyframe lacks its
    /// start code.
    public init?(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    /// Parses the header of a frame held in a slice (a payload inside its packet: nothing is copied).
    public init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count >= 3 else { return nil }
        let base = bytes.startIndex
        let tag = UInt32(bytes[base]) | UInt32(bytes[base + 1]) << 8 | UInt32(bytes[base + 2]) << 16
        isKeyframe = tag & 1 == 0
        version = Int((tag >> 1) & 7)
        isShown = (tag >> 4) & 1 == 1
        firstPartitionSize = Int(tag >> 5)
        horizontalScale = 0
        verticalScale = 0
        guard isKeyframe else { return }
        guard bytes.count >= 10, bytes[(base + 3)..<(base + 6)].elementsEqual(Self.keyframeStartCode) else { return nil }
        let horizontal = UInt16(bytes[base + 6]) | UInt16(bytes[base + 7]) << 8
        let vertical = UInt16(bytes[base + 8]) | UInt16(bytes[base + 9]) << 8
        width = Int(horizontal & 0x3FFF)
        height = Int(vertical & 0x3FFF)
        horizontalScale = Int(horizontal >> 14)
        verticalScale = Int(vertical >> 14)
    }
}
