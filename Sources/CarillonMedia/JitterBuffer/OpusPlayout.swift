import CarillonCodecs
import NIOCore

/// Plays an Opus stream's ``AudioJitterBuffer`` out as 20 ms frames of PCM, sans-IO: the one playout loop of the
/// SDK's receive pipeline (the server's mix) and of the server's mixer (each speaker).
///
/// A frame pulls as many playout instructions as it takes to fill 20 ms (a stream of packets shorter than 20 ms
/// needs several; at most ``maximumPullsPerFrame``, so a buffer that keeps returning nothing cannot spin): a packet
/// is decoded, a lost packet whose successor is here is rebuilt from the successor's in-band FEC, other losses are
/// concealed (libopus PLC), and with nothing to play the frame is silence. A payload the decoder rejects is concealed
/// and counted. Decoded audio beyond the frame waits for the next one, so frames always last 20 ms whatever the
/// sender's packet duration.
///
/// ``skipFrame(from:now:)`` advances the buffer by the same 20 ms of audio without decoding anything (a packet's
/// length is read from its TOC byte): the mixer does this for everyone it does not mix, the SDK for a session that
/// plays nothing. When decoding resumes, what was taken from the buffer past the last skipped frame plays as silence
/// (it was never decoded), and decoded audio left over when skipping starts counts as already played.
///
/// The decoder is passed to each call because its owner may lend it (the mixer's speaker slots): it must decode to
/// ``format``. Cost per frame: the decodes it does plus an array of the frame's samples. Threading: not thread-safe;
/// owned with its jitter buffer.
public struct OpusPlayout: Sendable {
    /// What the frames were made of, since creation.
    public struct Statistics: Sendable, Equatable {
        /// Playouts decoded from a packet.
        public var framesDecoded = 0
        /// Playouts rebuilt from the next packet's FEC data.
        public var framesRecovered = 0
        /// Playouts synthesised by loss concealment.
        public var framesConcealed = 0
        /// Playouts of silence (nothing to play, or skipped without decoding).
        public var framesSilent = 0
        /// Payloads the decoder rejected (concealed instead).
        public var decodeFailures = 0

        /// No frames yet.
        public init() {}
    }

    /// The length of every frame.
    public static let frameMilliseconds = 20
    /// The most instructions one frame takes from the buffer: eight of Opus's shortest packets (2.5 ms) fill it.
    public static let maximumPullsPerFrame = 8

    /// The format of the frames (the decoder's).
    public let format: AudioFormat
    /// Counters since creation.
    public private(set) var statistics = Statistics()
    /// Interleaved samples in one frame.
    public var samplesPerFrame: Int { format.interleavedSampleCount(milliseconds: Self.frameMilliseconds) }

    /// Decoded samples not played yet.
    private var pending: [Int16] = []
    /// Samples taken from the buffer past the last skipped frame, never decoded.
    private var skipped = 0

    /// Creates a playout producing frames in `format`.
    public init(format: AudioFormat) {
        self.format = format
    }

    /// The next 20 ms of the stream, decoded with `decoder` (which decodes to ``format``).
    public mutating func nextFrame(from buffer: inout AudioJitterBuffer, decoder: OpusDecoder, now: NIODeadline)
        -> [Int16] {
        let needed = samplesPerFrame
        if skipped > 0 {
            pending = [Int16](repeating: 0, count: skipped)
            skipped = 0
        }
        var pulls = 0
        while pending.count < needed, pulls < Self.maximumPullsPerFrame {
            pulls += 1
            let milliseconds = Self.playoutMilliseconds(buffer)
            switch buffer.nextFrame(now: now) {
            case .packet(let payload, _):
                if let frame = try? decoder.decode(payload) {
                    statistics.framesDecoded += 1
                    pending += frame.samples
                } else {
                    statistics.decodeFailures += 1
                    conceal(decoder, milliseconds: milliseconds)
                }
            case .recoverFromNext(let next):
                if let frame = try? decoder.decodeFEC(from: next, frameMilliseconds: milliseconds) {
                    statistics.framesRecovered += 1
                    pending += frame.samples
                } else {
                    statistics.decodeFailures += 1
                    conceal(decoder, milliseconds: milliseconds)
                }
            case .conceal:
                conceal(decoder, milliseconds: milliseconds)
            case .silence:
                silence(milliseconds: milliseconds)
            }
        }
        if pending.count < needed { pending += repeatElement(0, count: needed - pending.count) }
        let frame = Array(pending[..<needed])
        pending.removeFirst(needed)
        return frame
    }

    /// Advances the stream by 20 ms of audio without decoding any of it.
    public mutating func skipFrame(from buffer: inout AudioJitterBuffer, now: NIODeadline) {
        let needed = samplesPerFrame
        if !pending.isEmpty {
            skipped += pending.count
            pending = []
        }
        var pulls = 0
        while skipped < needed, pulls < Self.maximumPullsPerFrame {
            pulls += 1
            let fallback = format.interleavedSampleCount(milliseconds: Self.playoutMilliseconds(buffer))
            switch buffer.nextFrame(now: now) {
            case .packet(let payload, _):
                let perChannel = OpusDecoder.packetSampleCount(payload, sampleRate: format.sampleRate)
                skipped += perChannel.map { $0 * format.channels } ?? fallback
            case .recoverFromNext, .conceal, .silence:
                skipped += fallback
            }
        }
        statistics.framesSilent += 1
        skipped = max(0, skipped - needed)
    }

    private mutating func conceal(_ decoder: OpusDecoder, milliseconds: Int) {
        if let frame = try? decoder.concealLoss(frameMilliseconds: milliseconds) {
            statistics.framesConcealed += 1
            pending += frame.samples
        } else {
            silence(milliseconds: milliseconds)
        }
    }

    private mutating func silence(milliseconds: Int) {
        statistics.framesSilent += 1
        pending += repeatElement(0, count: format.interleavedSampleCount(milliseconds: milliseconds))
    }

    /// The stream's packet duration as the jitter buffer learnt it, in the whole 5 ms steps libopus conceals in
    /// (20 ms until it knows).
    private static func playoutMilliseconds(_ buffer: AudioJitterBuffer) -> Int {
        let milliseconds = Int(buffer.frameDuration.nanoseconds / 1_000_000)
        return milliseconds > 0 && milliseconds <= 120 && milliseconds % 5 == 0 ? milliseconds : frameMilliseconds
    }
}
