/// RNNoise noise suppression on 48 kHz PCM, sans-IO: fed frames, it returns them with fans, hum, typing and other
/// background noise removed and speech kept (Voice Focus).
///
/// One RNNoise state per channel (each channel is its own signal), each fed 480-sample (10 ms) blocks, so a 20 ms
/// frame costs two calls per channel. Frames whose length is not a multiple of 10 ms pass through unchanged. The
/// output lags the input by RNNoise's 10 ms block plus its 10 ms look-ahead: 20 ms.
///
/// After RNNoise, a gate on its voice probability: 200 ms after the last block it judged voiced (probability 0.5 or
/// more), a channel falls by 3 dB per block to 20 dB below, and returns within one block when voice comes back. RNNoise
/// alone lets the edges of typing clicks through (about 13-17 dB removed on the corpus); the gate takes another
/// 5-10 dB out of the pauses and never touches speech, which keeps the gate open.
///
/// Cost: RNNoise itself takes about 0.5 ms of CPU per 10 ms block of noisy mono audio on this project's machines with
/// the int8 weights `make rnnoise` installs (1.1-1.6 ms on the library's built-in float model; `carillon bench
/// voice-focus`), far less on digital silence; no heap allocation per frame: the float
/// buffers and the output samples are allocated once (the returned frame shares the output buffer, which the next call
/// reuses when the caller has let go of it). Threading: not thread-safe; one owner feeds it one stream in order.
public final class NoiseSuppressor {
    /// The format ``process(_:)`` takes and returns (48 kHz, one or two channels).
    public let format: AudioFormat
    /// RNNoise's voice probability for the last 10 ms block, 0...1 (the mean over channels).
    public private(set) var voiceProbability: Float = 0

    private let library: RNNoiseLibrary
    private let states: [OpaquePointer]
    private var input: [Float]
    private var output: [Float]
    private var samples: [Int16] = []
    /// Per channel: the gate's gain at the end of the last block, and blocks since the last voiced one.
    private var gateGains: [Float]
    private var blocksSinceVoice: [Int]

    /// Voice probability at or above which a block counts as voiced and opens the gate.
    static let voiceThreshold: Float = 0.5
    /// Unvoiced blocks before the gate starts closing: 200 ms, so pauses between words stay open.
    static let hangoverBlocks = 20
    /// The gate's closed gain: -20 dB.
    static let closedGain: Float = 0.1
    /// The factor by which the gain falls per block while closing (about -3 dB per 10 ms).
    static let releaseFactor: Float = 0.7

    /// Creates the per-channel states; throws for a rate other than 48 kHz or when RNNoise cannot make a state.
    public init(library: RNNoiseLibrary, format: AudioFormat) throws(NoiseSuppressorError) {
        guard format.sampleRate == RNNoiseLibrary.sampleRate, format.channels >= 1 else { throw .unsupportedFormat(format) }
        var states: [OpaquePointer] = []
        for _ in 0..<format.channels {
            guard let state = library.createState() else {
                states.forEach { library.destroy($0) }
                throw .stateCreationFailed
            }
            states.append(state)
        }
        self.library = library
        self.format = format
        self.states = states
        gateGains = [Float](repeating: 1, count: format.channels)
        blocksSinceVoice = [Int](repeating: 0, count: format.channels)
        input = [Float](repeating: 0, count: RNNoiseLibrary.frameSize)
        output = [Float](repeating: 0, count: RNNoiseLibrary.frameSize)
        samples.reserveCapacity(format.interleavedSampleCount(milliseconds: 60))
    }

    deinit {
        states.forEach { library.destroy($0) }
    }

    /// The frame with noise removed (delayed by 20 ms, see above); frames of another format or of a length that is not
    /// a multiple of 10 ms are returned unchanged.
    public func process(_ frame: AudioFrame) -> AudioFrame {
        let block = RNNoiseLibrary.frameSize
        let channels = format.channels
        guard frame.format == format, frame.frameCount > 0, frame.frameCount % block == 0 else { return frame }
        // Reusing the buffer is free when the previous result was dropped; otherwise this is one copy.
        samples.removeAll(keepingCapacity: true)
        samples.append(contentsOf: frame.samples)
        var probability: Float = 0
        samples.withUnsafeMutableBufferPointer { pcm in
            input.withUnsafeMutableBufferPointer { input in
                output.withUnsafeMutableBufferPointer { output in
                    for start in stride(from: 0, to: frame.frameCount, by: block) {
                        for channel in 0..<channels {
                            for index in 0..<block { input[index] = Float(pcm[(start + index) * channels + channel]) }
                            let voice = library.processFrame(states[channel], output.baseAddress, input.baseAddress)
                            probability += voice
                            blocksSinceVoice[channel] = voice >= Self.voiceThreshold ? 0 : blocksSinceVoice[channel] + 1
                            let from = gateGains[channel]
                            let to: Float = blocksSinceVoice[channel] <= Self.hangoverBlocks
                                ? 1 : max(Self.closedGain, from * Self.releaseFactor)
                            // A linear ramp across the block, so the gate never clicks.
                            let step = (to - from) / Float(block)
                            for index in 0..<block {
                                let gain = from + step * Float(index)
                                pcm[(start + index) * channels + channel] = AudioFrame.clip(output[index] * gain)
                            }
                            gateGains[channel] = to
                        }
                    }
                }
            }
        }
        voiceProbability = probability / Float(channels * frame.frameCount / block)
        return AudioFrame(format: format, samples: samples)
    }
}
