import CCarillonOpus

/// An Opus decoder (libopus) for one received stream, with loss concealment and in-band FEC recovery.
///
/// Threading: not thread-safe; one owner decodes. The decoder state is freed on deinit.
public final class OpusDecoder {
    /// The format of the frames it returns; any Opus packet decodes to it, whatever rate or channels it was sent with.
    public let format: AudioFormat

    private let state: OpaquePointer
    // Room for the longest packet Opus allows (120 ms), reused by every call.
    private var pcm: [Int16]

    /// Creates a decoder producing `format` (8/12/16/24/48 kHz, mono or stereo).
    public init(format: AudioFormat) throws(OpusError) {
        try OpusError.validate(format)
        var status: Int32 = OPUS_OK
        guard let state = opus_decoder_create(Int32(format.sampleRate), Int32(format.channels), &status), status == OPUS_OK
        else { throw OpusError(code: status == OPUS_OK ? OPUS_ALLOC_FAIL : status) }
        self.state = state
        self.format = format
        pcm = [Int16](repeating: 0, count: format.samplesPerFrame(milliseconds: 120) * format.channels)
    }

    deinit { opus_decoder_destroy(state) }

    /// Decodes one packet. A corrupt packet throws (``OpusError/isInvalidPacket``) and leaves the decoder usable.
    public func decode(_ packet: [UInt8]) throws(OpusError) -> AudioFrame {
        try decode(packet[...])
    }

    /// Decodes one packet held in a slice (a payload inside its datagram: nothing is copied).
    public func decode(_ packet: ArraySlice<UInt8>) throws(OpusError) -> AudioFrame {
        guard !packet.isEmpty else { throw .emptyPacket }
        return try run(packet, samplesPerChannel: pcm.count / format.channels, fec: false)
    }

    /// Recovers the frame before `nextPacket` (which was lost) from the FEC data `nextPacket` carries.
    ///
    /// Call it when a packet is missing and the one after it has arrived, then decode `nextPacket` normally.
    /// `frameMilliseconds` is the lost packet's duration. When `nextPacket` has no FEC data, libopus conceals the
    /// loss instead, so the result always has the asked length.
    public func decodeFEC(from nextPacket: [UInt8], frameMilliseconds: Int = 20) throws(OpusError) -> AudioFrame {
        try decodeFEC(from: nextPacket[...], frameMilliseconds: frameMilliseconds)
    }

    /// ``decodeFEC(from:frameMilliseconds:)`` for a packet held in a slice.
    public func decodeFEC(from nextPacket: ArraySlice<UInt8>, frameMilliseconds: Int = 20) throws(OpusError) -> AudioFrame {
        guard !nextPacket.isEmpty else { throw .emptyPacket }
        return try run(nextPacket, samplesPerChannel: try samples(milliseconds: frameMilliseconds), fec: true)
    }

    /// Synthesises `frameMilliseconds` of audio for a lost packet (packet loss concealment): a fading continuation of
    /// what came before.
    public func concealLoss(frameMilliseconds: Int = 20) throws(OpusError) -> AudioFrame {
        try run(nil, samplesPerChannel: try samples(milliseconds: frameMilliseconds), fec: false)
    }

    /// Forgets all history, as for a new stream.
    public func reset() {
        _ = carillon_opus_decoder_reset_state(state)
    }

    /// The duration of an Opus packet in whole milliseconds (2.5 ms packets give 2), read from its TOC byte and frame
    /// count without decoding; nil when the packet is empty or malformed.
    public static func packetDurationMilliseconds(_ packet: [UInt8]) -> Int? {
        guard let samples = packetSampleCount(packet, sampleRate: 48_000) else { return nil }
        return samples / 48
    }

    /// The samples per channel an Opus packet decodes to at `sampleRate`; nil when the packet is empty or malformed.
    public static func packetSampleCount(_ packet: [UInt8], sampleRate: Int) -> Int? {
        packetSampleCount(packet[...], sampleRate: sampleRate)
    }

    /// ``packetSampleCount(_:sampleRate:)`` for a packet held in a slice.
    public static func packetSampleCount(_ packet: ArraySlice<UInt8>, sampleRate: Int) -> Int? {
        guard !packet.isEmpty else { return nil }
        let samples = packet.withUnsafeBufferPointer { opus_packet_get_nb_samples($0.baseAddress!, Int32($0.count), Int32(sampleRate)) }
        return samples > 0 ? Int(samples) : nil
    }

    private func samples(milliseconds: Int) throws(OpusError) -> Int {
        // libopus needs concealment lengths in whole 2.5 ms steps: for whole milliseconds, multiples of 5.
        guard milliseconds > 0, milliseconds <= 120, milliseconds % 5 == 0 else { throw .unsupportedDuration(milliseconds: milliseconds) }
        return format.samplesPerFrame(milliseconds: milliseconds)
    }

    private func run(_ packet: ArraySlice<UInt8>?, samplesPerChannel: Int, fec: Bool) throws(OpusError) -> AudioFrame {
        let state = self.state
        let decoded: Int32 = pcm.withUnsafeMutableBufferPointer { out in
            if let packet {
                packet.withUnsafeBufferPointer { data in
                    opus_decode(state, data.baseAddress, Int32(data.count), out.baseAddress!, Int32(samplesPerChannel), fec ? 1 : 0)
                }
            } else {
                opus_decode(state, nil, 0, out.baseAddress!, Int32(samplesPerChannel), 0)
            }
        }
        try OpusError.check(decoded)
        return AudioFrame(format: format, samples: Array(pcm[0..<(Int(decoded) * format.channels)]))
    }
}
