import CCarillonVPX
import CCarillonYUV

/// A VP8 decoder (libvpx) for one received stream: compressed frames in, ``I420Image``s out.
///
/// It starts on a keyframe and refuses inter frames until one arrives (``VideoCodecError/keyframeRequired``), and
/// goes back to that state after any frame that fails or decodes corrupt, so a receiver never shows pictures built on
/// a broken reference: on those errors it should ask the sender for a keyframe (RTCP PLI). The picture size follows
/// the stream: a keyframe of another size just changes ``width`` and ``height``.
///
/// libvpx's output picture is valid only until the next call, so each decoded picture is copied into a new
/// ``I420Image`` (one allocation of 1.5 bytes per pixel).
///
/// Cost, measured as CPU time over the 150 frames ``VP8Encoder`` made of ``VideoTestPattern`` (one thread, release
/// build, copy included): 320x180 at 300 kbit/s 0.5 ms a frame, 640x360 at 600 kbit/s 1.45 ms, 1280x720 at
/// 1.2 Mbit/s 5.0 ms. Threading: not thread-safe; one owner decodes. The libvpx
/// context is freed on deinit.
public final class VP8Decoder {
    /// Width of the last decoded picture; 0 before the first.
    public private(set) var width = 0
    /// Height of the last decoded picture; 0 before the first.
    public private(set) var height = 0
    /// Whether the next frame must be a keyframe: at the start and after a frame that failed.
    public private(set) var needsKeyframe = true

    private let context: UnsafeMutablePointer<vpx_codec_ctx_t>
    private var isOpen = false

    /// Creates a decoder using `threads` libvpx threads (1-16; 1 is right for anything up to 720p on 2 cores).
    public init(threads: Int = 1) throws(VideoCodecError) {
        guard (1...16).contains(threads) else { throw .badArgument("\(threads) threads is outside 1-16") }
        context = .allocate(capacity: 1)
        context.initialize(to: vpx_codec_ctx_t())
        try VideoCodecError.check(carillon_vpx_vp8_decoder_init(context, UInt32(threads)), context)
        isOpen = true
    }

    deinit {
        if isOpen { vpx_codec_destroy(context) }
        context.deallocate()
    }

    /// Decodes one compressed frame. Returns nil for a frame that is not meant to be shown (none come from
    /// ``VP8Encoder``). Bad data throws an error whose ``VideoCodecError/isCorruptData`` is true, and the decoder
    /// stays usable: it waits for the next keyframe.
    public func decode(_ bytes: [UInt8]) throws(VideoCodecError) -> I420Image? {
        try decode(bytes[...])
    }

    /// Decodes one compressed frame held in a slice (a frame reassembled in a larger buffer: nothing is copied);
    /// otherwise as the `[UInt8]` variant.
    public func decode(_ bytes: ArraySlice<UInt8>) throws(VideoCodecError) -> I420Image? {
        guard !bytes.isEmpty else { throw .emptyFrame }
        let header = VP8FrameHeader(bytes)
        // A header libvpx would reject (too short, no start code) goes on so the error is libvpx's own.
        if needsKeyframe, let header, !header.isKeyframe { throw .keyframeRequired }
        guard bytes.count <= Int(UInt32.max) else { throw .badArgument("a frame of \(bytes.count) bytes") }
        let context = self.context
        let status = bytes.withUnsafeBufferPointer { data in
            vpx_codec_decode(context, data.baseAddress, UInt32(data.count), nil, 0)
        }
        guard status == VPX_CODEC_OK else {
            needsKeyframe = true
            throw VideoCodecError(status: status, context: context)
        }
        var corrupted: Int32 = 0
        if carillon_vpx_get_frame_corrupted(context, &corrupted) == VPX_CODEC_OK, corrupted != 0 {
            needsKeyframe = true
            throw .corruptFrame
        }
        needsKeyframe = false
        var iterator: vpx_codec_iter_t?
        guard let picture = vpx_codec_get_frame(context, &iterator) else { return nil }
        return try copy(picture.pointee)
    }

    /// Forgets the stream: the next frame must be a keyframe.
    public func reset() {
        needsKeyframe = true
    }

    /// Copies libvpx's picture (valid until the next decode) into an image of our own.
    private func copy(_ picture: vpx_image_t) throws(VideoCodecError) -> I420Image {
        guard picture.fmt == VPX_IMG_FMT_I420 else { throw .badArgument("libvpx produced image format \(picture.fmt.rawValue)") }
        let width = Int(picture.d_w), height = Int(picture.d_h)
        var image: I420Image
        do {
            image = try I420Image(uninitializedWidth: width, height: height)
        } catch {
            throw .image(error)
        }
        let (strideY, strideUV) = (image.strideY, image.strideUV)
        let status = image.withUnsafeMutablePlanes { y, u, v in
            I420Copy(picture.planes.0, picture.stride.0, picture.planes.1, picture.stride.1, picture.planes.2, picture.stride.2,
                     y.baseAddress, Int32(strideY), u.baseAddress, Int32(strideUV), v.baseAddress, Int32(strideUV),
                     Int32(width), Int32(height))
        }
        guard status == 0 else { throw .image(.conversionFailed(function: "I420Copy", status: status)) }
        self.width = width
        self.height = height
        return image
    }
}
