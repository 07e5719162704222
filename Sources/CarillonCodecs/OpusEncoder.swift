import CCarillonOpus

/// An Opus encoder (libopus) for one stream of 16-bit PCM frames.
///
/// Threading: not thread-safe; one owner encodes and changes settings. The encoder state is freed on deinit.
public final class OpusEncoder {
    /// What the encoder tunes for.
    public enum Application: Sendable, Hashable {
        /// Speech: favours intelligibility, enables the SILK layer (what WebRTC uses for calls).
        case voip
        /// Music and mixed content: favours fidelity.
        case audio
        /// Lowest delay, CELT only: no speech layer, so no in-band FEC.
        case restrictedLowDelay

        var code: Int32 {
            switch self {
            case .voip: OPUS_APPLICATION_VOIP
            case .audio: OPUS_APPLICATION_AUDIO
            case .restrictedLowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
            }
        }
    }

    /// The format every frame handed to ``encode(_:)`` must have.
    public let format: AudioFormat
    /// The application chosen at creation.
    public let application: Application
    /// Target bitrate in bit/s.
    public private(set) var bitrate: Int
    /// Whether packets carry a low-bitrate copy of the previous frame that a receiver can use after a loss.
    public private(set) var inbandFEC: Bool
    /// Whether silence is sent as 1-2 byte packets (discontinuous transmission).
    public private(set) var dtx: Bool
    /// The loss rate the encoder plans FEC for, 0-100.
    public private(set) var expectedPacketLossPercent: Int

    private let state: OpaquePointer
    // Large enough for any packet of up to 60 ms (libopus's own recommendation is 4000 bytes).
    private var output = [UInt8](repeating: 0, count: 4000)

    /// Creates an encoder. `format` must be 8/12/16/24/48 kHz, mono or stereo; complexity is 0-10.
    public init(
        format: AudioFormat,
        application: Application,
        bitrate: Int = 32_000,
        complexity: Int = 9,
        inbandFEC: Bool = true,
        dtx: Bool = true,
        expectedPacketLossPercent: Int = 10
    ) throws(OpusError) {
        try OpusError.validate(format)
        guard (0...10).contains(complexity) else { throw .badArgument("complexity \(complexity) is outside 0-10") }
        var status: Int32 = OPUS_OK
        guard let state = opus_encoder_create(Int32(format.sampleRate), Int32(format.channels), application.code, &status),
              status == OPUS_OK
        else { throw OpusError(code: status == OPUS_OK ? OPUS_ALLOC_FAIL : status) }
        self.state = state
        self.format = format
        self.application = application
        self.bitrate = bitrate
        self.inbandFEC = inbandFEC
        self.dtx = dtx
        self.expectedPacketLossPercent = expectedPacketLossPercent
        // From here on deinit frees the state if a setting below throws.
        try setBitrate(bitrate)
        try OpusError.check(carillon_opus_encoder_set_complexity(state, Int32(complexity)))
        try setInbandFEC(inbandFEC)
        try setDTX(dtx)
        try setExpectedPacketLossPercent(expectedPacketLossPercent)
        if application == .voip { try OpusError.check(carillon_opus_encoder_set_signal(state, OPUS_SIGNAL_VOICE)) }
    }

    deinit { opus_encoder_destroy(state) }

    /// Encodes one frame of 2.5, 5, 10, 20, 40 or 60 ms into one Opus packet.
    ///
    /// With DTX on, silence gives packets of 1-2 bytes that need not be sent; they are returned as they are so the
    /// caller decides (RTP senders usually skip them but keep the timestamp running).
    public func encode(_ frame: AudioFrame) throws(OpusError) -> [UInt8] {
        guard frame.format == format else { throw .formatMismatch(expected: format, got: frame.format) }
        let perChannel = frame.frameCount
        // Valid lengths are 2.5 ms times 1, 2, 4, 8, 16 or 24.
        let quantum = format.sampleRate / 400
        guard perChannel % quantum == 0, [1, 2, 4, 8, 16, 24].contains(perChannel / quantum) else {
            throw .unsupportedFrameLength(samplesPerChannel: perChannel, format: format)
        }
        let state = self.state
        let written = frame.samples.withUnsafeBufferPointer { pcm in
            output.withUnsafeMutableBufferPointer { out in
                opus_encode(state, pcm.baseAddress!, Int32(perChannel), out.baseAddress!, Int32(out.count))
            }
        }
        try OpusError.check(written)
        return Array(output[0..<Int(written)])
    }

    /// Changes the target bitrate (500-512 000 bit/s); takes effect from the next frame.
    public func setBitrate(_ bitsPerSecond: Int) throws(OpusError) {
        guard (500...512_000).contains(bitsPerSecond) else { throw .badArgument("bitrate \(bitsPerSecond) is outside 500-512000") }
        try OpusError.check(carillon_opus_encoder_set_bitrate(state, Int32(bitsPerSecond)))
        bitrate = bitsPerSecond
    }

    /// Turns in-band FEC on or off (it only works with the speech layer, so not with `.restrictedLowDelay`).
    public func setInbandFEC(_ enabled: Bool) throws(OpusError) {
        try OpusError.check(carillon_opus_encoder_set_inband_fec(state, enabled ? 1 : 0))
        inbandFEC = enabled
    }

    /// Turns discontinuous transmission on or off.
    public func setDTX(_ enabled: Bool) throws(OpusError) {
        try OpusError.check(carillon_opus_encoder_set_dtx(state, enabled ? 1 : 0))
        dtx = enabled
    }

    /// Tells the encoder how much loss to expect (0-100 %), for example from RTCP receiver reports; more loss makes
    /// FEC stronger at the cost of bits for the main signal.
    public func setExpectedPacketLossPercent(_ percent: Int) throws(OpusError) {
        guard (0...100).contains(percent) else { throw .badArgument("packet loss \(percent) % is outside 0-100") }
        try OpusError.check(carillon_opus_encoder_set_packet_loss_perc(state, Int32(percent)))
        expectedPacketLossPercent = percent
    }

    /// Samples per channel the encoder looks ahead (its algorithmic delay), at ``format``'s rate.
    public var lookahead: Int {
        var samples: Int32 = 0
        return carillon_opus_encoder_get_lookahead(state, &samples) == OPUS_OK ? Int(samples) : 0
    }

    /// Forgets all history, as for a new stream; settings are kept.
    public func reset() {
        _ = carillon_opus_encoder_reset_state(state)
    }
}
