import CCarillonVPX

/// A VP8 encoder (libvpx) for one real-time stream of ``I420Image``s, set up as libwebrtc sets up its camera and
/// screen-share encoders (`specs/video.md` section 1.1): one pass CBR with the realtime deadline and no
/// lag, undershoot 100 %, overshoot 15 %, a 500/600/1000 ms rate buffer, quantizers 2-56 (12-56 for screen content),
/// cpu-used -6 (-4 below CIF), static threshold 1 (100 and screen-content mode 2 for screen content), one token
/// partition, error resilience off, and keyframes only when asked for or every ``Configuration/keyframeInterval``
/// frames. Like libwebrtc's default, rate control may drop a frame when its buffer falls below 30 %
/// (`rc_dropframe_thresh`), rather than overshoot.
///
/// The first frame, the first after ``setResolution(width:height:)`` and any frame asked for with `forceKeyframe`
/// or ``requestKeyframe()`` are keyframes. Bitrate and frame rate change between frames without restarting.
///
/// Cost, measured as CPU time (`CLOCK_PROCESS_CPUTIME_ID`) over 150 frames of ``VideoTestPattern`` at 15 fps, one
/// thread, release build, on the project's 2-core machine: 320x180 at 300 kbit/s 2.3 ms a frame, 640x360 at
/// 600 kbit/s 3.7 ms, 1280x720 at 1.2 Mbit/s 11.8 ms. The pattern changes every pixel every frame, so a real camera
/// usually costs less. Threading: not thread-safe; one owner encodes and changes settings. With
/// ``Configuration/threads`` above 1 libvpx runs its own worker threads inside ``encode(_:timestamp:forceKeyframe:)``.
/// The libvpx context is freed on deinit.
public final class VP8Encoder {
    /// What the pictures show, which changes how the encoder spends its bits.
    public enum ContentKind: Sendable, Hashable {
        /// Natural video: motion everywhere, keyframes only on request.
        case camera
        /// Screen content: sharp text and long still periods; higher minimum quantizer, static-block skipping and
        /// libvpx's screen-content mode.
        case screen
    }

    /// What to encode and at what rate.
    public struct Configuration: Sendable, Hashable {
        /// Picture width in pixels, 1-16383.
        public var width: Int
        /// Picture height in pixels, 1-16383.
        public var height: Int
        /// Target bitrate in bit/s (libvpx works in whole kbit/s), 1 000-100 000 000.
        public var bitrate: Int
        /// The frame rate the source delivers at most, 1-240; rate control budgets each frame at
        /// `bitrate / maxFrameRate` bits.
        public var maxFrameRate: Int
        /// Camera or screen content.
        public var content: ContentKind
        /// libvpx worker threads, 1-16. Keep 1 at 640x480 and below, and at every size on a 2-core machine.
        public var threads: Int
        /// A keyframe at least every this many frames; nil for keyframes only on request (cameras: receivers ask
        /// with PLI). Screen sharing usually wants one every few seconds, e.g. `5 * maxFrameRate`.
        public var keyframeInterval: Int?

        /// Creates a configuration; see each property for its range.
        public init(
            width: Int, height: Int, bitrate: Int, maxFrameRate: Int = 30,
            content: ContentKind = .camera, threads: Int = 1, keyframeInterval: Int? = nil
        ) {
            self.width = width
            self.height = height
            self.bitrate = bitrate
            self.maxFrameRate = maxFrameRate
            self.content = content
            self.threads = threads
            self.keyframeInterval = keyframeInterval
        }

        func validate() throws(VideoCodecError) {
            try VP8Encoder.validate(width: width, height: height)
            try VP8Encoder.validate(bitrate: bitrate)
            try VP8Encoder.validate(frameRate: maxFrameRate)
            guard (1...16).contains(threads) else { throw .badArgument("\(threads) threads is outside 1-16") }
            if let keyframeInterval, keyframeInterval < 1 { throw .badArgument("keyframe interval \(keyframeInterval) is below 1") }
        }
    }

    /// The current settings (size, bitrate and frame rate follow the setters).
    public private(set) var configuration: Configuration

    private let context: UnsafeMutablePointer<vpx_codec_ctx_t>
    private var isOpen = false
    private var settings = vpx_codec_enc_cfg_t()
    // The image descriptor handed to libvpx; only its plane pointers change per frame.
    private var raw = vpx_image_t()
    // The size the libvpx context was created with: it can shrink below it without a restart, never grow.
    private var initialWidth = 0
    private var initialHeight = 0
    // Presentation time on the 90 kHz clock, unwrapped from the caller's 32-bit timestamps.
    private var lastTimestamp: UInt32?
    private var pts: Int64 = 0
    private var keyframePending = true
    private var framesSinceKeyframe = 0

    /// Creates an encoder. Throws ``VideoCodecError/badArgument(_:)`` for settings out of range and
    /// ``VideoCodecError/library(code:message:detail:)`` when libvpx refuses them.
    public init(configuration: Configuration) throws(VideoCodecError) {
        try configuration.validate()
        self.configuration = configuration
        context = .allocate(capacity: 1)
        context.initialize(to: vpx_codec_ctx_t())
        // From here on deinit frees the context if a call below throws.
        try VideoCodecError.check(carillon_vpx_vp8_encoder_default_config(&settings), nil)
        try open()
    }

    deinit {
        if isOpen { vpx_codec_destroy(context) }
        context.deallocate()
    }

    /// Encodes one picture taken at `timestamp` (the 90 kHz RTP video clock; wraps are fine, a timestamp that does
    /// not advance is treated as one tick later). Returns nil when rate control drops the frame to stay within the
    /// bitrate (the caller just moves on to the next picture).
    ///
    /// `forceKeyframe` makes this frame a keyframe (or the next one that is not dropped). The image must have the
    /// configured size; the encoder copies what it needs, so `image` may change afterwards. Allocates only the
    /// returned bytes.
    public func encode(_ image: I420Image, timestamp: UInt32, forceKeyframe: Bool = false) throws(VideoCodecError) -> EncodedVideoFrame? {
        guard image.width == configuration.width, image.height == configuration.height else {
            throw .sizeMismatch(expectedWidth: configuration.width, expectedHeight: configuration.height,
                                width: image.width, height: image.height)
        }
        advance(to: timestamp)
        if forceKeyframe { keyframePending = true }
        if let interval = configuration.keyframeInterval, framesSinceKeyframe + 1 >= interval { keyframePending = true }
        let flags: vpx_enc_frame_flags_t = keyframePending ? carillon_vpx_flag_force_keyframe : 0
        let duration = UInt(90_000 / configuration.maxFrameRate)
        let (context, pts) = (self.context, self.pts)
        let status = image.withUnsafePlanes { y, u, v in
            raw.planes = (UnsafeMutablePointer(mutating: y.baseAddress), UnsafeMutablePointer(mutating: u.baseAddress),
                          UnsafeMutablePointer(mutating: v.baseAddress), nil)
            raw.stride = (Int32(image.strideY), Int32(image.strideUV), Int32(image.strideUV), 0)
            return vpx_codec_encode(context, &raw, pts, duration, flags, carillon_vpx_deadline_realtime)
        }
        raw.planes = (nil, nil, nil, nil)
        try VideoCodecError.check(status, context)

        var encoded: EncodedVideoFrame?
        var iterator: vpx_codec_iter_t?
        while let packet = vpx_codec_get_cx_data(context, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let frame = packet.pointee.data.frame
            // With no lag (so no alt-ref) and one partition, libvpx emits at most one frame packet per input.
            assert(encoded == nil, "libvpx emitted two VP8 frames for one input")
            guard encoded == nil, let buffer = frame.buf else { continue }
            encoded = EncodedVideoFrame(
                bytes: Array(UnsafeRawBufferPointer(start: buffer, count: frame.sz)),
                isKeyframe: frame.flags & carillon_vpx_frame_is_key != 0,
                timestamp: timestamp, width: configuration.width, height: configuration.height
            )
        }
        if encoded?.isKeyframe == true {
            keyframePending = false
            framesSinceKeyframe = 0
        } else {
            framesSinceKeyframe += 1
        }
        return encoded
    }

    /// Makes the next encoded frame a keyframe (for a receiver's PLI or FIR).
    public func requestKeyframe() {
        keyframePending = true
    }

    /// Changes the target bitrate (bit/s, 1 000-100 000 000) from the next frame on, without a restart.
    public func setBitrate(_ bitsPerSecond: Int) throws(VideoCodecError) {
        try Self.validate(bitrate: bitsPerSecond)
        settings.rc_target_bitrate = Self.kilobits(bitsPerSecond)
        try VideoCodecError.check(vpx_codec_enc_config_set(context, &settings), context)
        configuration.bitrate = bitsPerSecond
    }

    /// Changes the maximum frame rate (1-240) from the next frame on: rate control budgets each frame at
    /// `bitrate / maxFrameRate` bits.
    public func setMaxFrameRate(_ framesPerSecond: Int) throws(VideoCodecError) {
        try Self.validate(frameRate: framesPerSecond)
        configuration.maxFrameRate = framesPerSecond
    }

    /// Changes the picture size; the next frame is a keyframe. Shrinking within the size the encoder was created
    /// with reconfigures libvpx in place (`vpx_codec_enc_config_set`); growing beyond it recreates the libvpx
    /// context (about 1 ms, plus the bigger keyframe).
    public func setResolution(width: Int, height: Int) throws(VideoCodecError) {
        try Self.validate(width: width, height: height)
        guard width != configuration.width || height != configuration.height else { return }
        keyframePending = true
        if width <= initialWidth, height <= initialHeight {
            settings.g_w = UInt32(width)
            settings.g_h = UInt32(height)
            try VideoCodecError.check(vpx_codec_enc_config_set(context, &settings), context)
            configuration.width = width
            configuration.height = height
            try applyControls()
        } else {
            configuration.width = width
            configuration.height = height
            // A failure below leaves the encoder closed: every later call throws libvpx's error.
            vpx_codec_destroy(context)
            isOpen = false
            context.initialize(to: vpx_codec_ctx_t())
            try open()
        }
    }

    /// Fills libvpx's settings from ``configuration``, creates the context and sets the controls.
    private func open() throws(VideoCodecError) {
        let configuration = self.configuration
        let screen = configuration.content == .screen
        settings.g_w = UInt32(configuration.width)
        settings.g_h = UInt32(configuration.height)
        settings.g_threads = UInt32(configuration.threads)
        settings.g_timebase = vpx_rational(num: 1, den: 90_000)
        settings.g_lag_in_frames = 0
        settings.g_error_resilient = 0
        settings.g_pass = VPX_RC_ONE_PASS
        settings.rc_end_usage = VPX_CBR
        settings.rc_target_bitrate = Self.kilobits(configuration.bitrate)
        settings.rc_min_quantizer = screen ? 12 : 2
        settings.rc_max_quantizer = 56
        settings.rc_undershoot_pct = 100
        settings.rc_overshoot_pct = 15
        settings.rc_buf_initial_sz = 500
        settings.rc_buf_optimal_sz = 600
        settings.rc_buf_sz = 1000
        settings.rc_dropframe_thresh = 30
        settings.rc_resize_allowed = 0
        // Periodic keyframes are forced by encode(), so libvpx never places one on its own.
        settings.kf_mode = VPX_KF_DISABLED
        try VideoCodecError.check(carillon_vpx_vp8_encoder_init(context, &settings), context)
        isOpen = true
        initialWidth = configuration.width
        initialHeight = configuration.height
        try applyControls()
        raw.fmt = VPX_IMG_FMT_I420
        raw.cs = VPX_CS_BT_601
        raw.range = VPX_CR_STUDIO_RANGE
        raw.bit_depth = 8
        raw.bps = 12
        raw.x_chroma_shift = 1
        raw.y_chroma_shift = 1
    }

    /// The controls that depend on content and size (cpu-used changes at CIF), and the image descriptor's size.
    private func applyControls() throws(VideoCodecError) {
        let configuration = self.configuration
        let screen = configuration.content == .screen
        let belowCIF = configuration.width * configuration.height < 352 * 288
        try VideoCodecError.check(carillon_vpx_set_cpu_used(context, belowCIF ? -4 : -6), context)
        try VideoCodecError.check(carillon_vpx_set_static_threshold(context, screen ? 100 : 1), context)
        try VideoCodecError.check(carillon_vpx_set_token_partitions(context, Int32(VP8_ONE_TOKENPARTITION.rawValue)), context)
        try VideoCodecError.check(carillon_vpx_set_screen_content_mode(context, screen ? 2 : 0), context)
        raw.w = UInt32(configuration.width)
        raw.h = UInt32(configuration.height)
        raw.d_w = raw.w
        raw.d_h = raw.h
        raw.r_w = raw.w
        raw.r_h = raw.h
    }

    /// Moves the presentation time to `timestamp`, unwrapping the 32-bit clock; time never stands still or goes back.
    private func advance(to timestamp: UInt32) {
        if let lastTimestamp {
            let step = Int32(bitPattern: timestamp &- lastTimestamp)
            pts += Int64(max(1, step))
        }
        lastTimestamp = timestamp
    }

    private static func kilobits(_ bitsPerSecond: Int) -> UInt32 {
        UInt32(max(1, (bitsPerSecond + 500) / 1000))
    }

    private static func validate(width: Int, height: Int) throws(VideoCodecError) {
        guard (1...16_383).contains(width), (1...16_383).contains(height) else {
            throw .badArgument("\(width)x\(height) is outside VP8's 1-16383 in each direction")
        }
    }

    private static func validate(bitrate: Int) throws(VideoCodecError) {
        guard (1_000...100_000_000).contains(bitrate) else { throw .badArgument("bitrate \(bitrate) is outside 1000-100000000 bit/s") }
    }

    private static func validate(frameRate: Int) throws(VideoCodecError) {
        guard (1...240).contains(frameRate) else { throw .badArgument("frame rate \(frameRate) is outside 1-240") }
    }
}
