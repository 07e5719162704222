import CarillonCodecs
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A seeded, synthetic speech clip with known pauses, and the noises to mix into it: the corpus on which Voice
/// Focus is measured (tests, `carillon bench voice-focus`, the end-to-end test) without shipping recordings.
///
/// The speech is voiced: a glottal pulse train at 100-220 Hz (chosen per phrase, falling 20 % over it, 1 % jitter per
/// period) with speech's spectral tilt, through a cascade of formant resonators (F1-F3 drawn every syllable, F4 and F5
/// fixed), under a 4 Hz syllabic envelope.
/// Phrases of 1.2-2.4 s alternate with pauses of 0.6-1.0 s; active speech is at -26 dBFS RMS. Everything is drawn from
/// the generator the caller passes, so a seed gives the same clip on every machine.
///
/// Cost: about 10 ms of CPU per second of audio (optimised build). Threading: a value; share it freely.
public struct SpeechCorpus: Sendable {
    /// The corpus's sample rate (Voice Focus runs at 48 kHz).
    public static let sampleRate = 48_000
    /// Active speech level, dBFS RMS over the phrases.
    public static let speechLevelDBFS = -26.0
    /// How much of each pause's ends is left out of ``pauses``, in samples (50 ms): speech tails and a suppressor's
    /// release belong to neither speech nor pause.
    public static let pauseMargin = 2_400

    /// The clean speech, in Int16 scale (not rounded).
    public let clean: [Double]
    /// The phrases: where speech is.
    public let phrases: [Range<Int>]
    /// The pauses between and around the phrases, less ``pauseMargin`` at each end: where only noise should be.
    public let pauses: [Range<Int>]

    /// The clean speech rounded to PCM.
    public var cleanSamples: [Int16] { clean.map { AudioFrame.clip(Float($0)) } }

    /// Generates `seconds` of speech (at least 2) from `random`.
    public init(seconds: Double, using random: inout some RandomNumberGenerator) {
        let count = Int(max(2, seconds) * Double(Self.sampleRate))
        let rate = Double(Self.sampleRate)
        var phrases: [Range<Int>] = []
        var start = Int(0.5 * rate)
        while true {
            let length = Int(Double.random(in: 1.2...2.4, using: &random) * rate)
            let end = min(start + length, count - Int(0.5 * rate))
            guard end - start > Int(0.4 * rate) else { break }
            phrases.append(start..<end)
            start = end + Int(Double.random(in: 0.6...1.0, using: &random) * rate)
        }
        var signal = [Double](repeating: 0, count: count)
        let syllable = Int(0.25 * rate)
        // The glottal source's spectrum: a two-pole low-pass at 100 Hz (-12 dB per octave) and the lips' radiation
        // (a first difference, +6 dB): speech's -6 dB per octave. Without the tilt RNNoise takes it for noise.
        let glottalPole = exp(-2 * Double.pi * 100 / rate)
        for phrase in phrases {
            let baseFrequency = Double.random(in: 100...220, using: &random)
            var nextPulse = phrase.lowerBound
            var glottis = Resonator(a1: -2 * glottalPole, a2: glottalPole * glottalPole, gain: 1)
            var lastGlottis = 0.0
            // Formants in cascade (as in a Klatt synthesiser): F1-F3 change every syllable, F4 and F5 stay.
            var formants = [Resonator](repeating: Resonator(), count: 5)
            formants[3].tune(frequency: 3_500, bandwidth: 200)
            formants[4].tune(frequency: 4_500, bandwidth: 250)
            for index in phrase {
                let offset = index - phrase.lowerBound
                if offset % syllable == 0 {
                    // A new vowel every syllable; the resonators keep their state, the envelope is near zero here.
                    formants[0].tune(frequency: Double.random(in: 300...800, using: &random), bandwidth: 80)
                    formants[1].tune(frequency: Double.random(in: 900...2200, using: &random), bandwidth: 100)
                    formants[2].tune(frequency: Double.random(in: 2400...3000, using: &random), bandwidth: 150)
                }
                var excitation = 0.0
                if index == nextPulse {
                    excitation = 1
                    let progress = Double(offset) / Double(phrase.count)
                    let frequency = baseFrequency * (1 - 0.2 * progress) * (1 + Double.random(in: -0.01...0.01, using: &random))
                    nextPulse += Int((rate / frequency).rounded())
                }
                let flow = glottis.step(excitation)
                var voiced = flow - lastGlottis
                lastGlottis = flow
                for formant in formants.indices { voiced = formants[formant].step(voiced) }
                let syllablePhase = Double(offset % syllable) / Double(syllable)
                let envelope = 0.1 + 0.9 * pow(sin(Double.pi * syllablePhase), 2)
                // 20 ms fades at the phrase's ends, so a phrase does not start or stop with a click.
                let fadeLength = 0.02 * rate
                let fade = min(1, Double(offset) / fadeLength, Double(phrase.upperBound - 1 - index) / fadeLength)
                signal[index] = voiced * envelope * fade
            }
        }
        let speechPower = phrases.reduce(0.0) { total, phrase in total + phrase.reduce(0.0) { $0 + signal[$1] * signal[$1] } }
            / Double(max(1, phrases.reduce(0) { $0 + $1.count }))
        let gain = pow(10, Self.speechLevelDBFS / 20) * Double(Int16.max) / max(speechPower.squareRoot(), 1e-12)
        clean = signal.map { $0 * gain }
        self.phrases = phrases
        var pauses: [Range<Int>] = []
        var pauseStart = 0
        for phrase in phrases + [count..<count] {
            let lower = pauseStart == 0 ? 0 : pauseStart + Self.pauseMargin
            let upper = phrase.lowerBound - Self.pauseMargin
            if upper > lower { pauses.append(lower..<upper) }
            pauseStart = phrase.upperBound
        }
        self.pauses = pauses
    }

    /// Noise of `kind` as long as the clip, at an arbitrary level (``noisy(_:snrDB:)`` sets it).
    public func noise(_ kind: CorpusNoise, using random: inout some RandomNumberGenerator) -> [Double] {
        let count = clean.count
        switch kind {
        case .pink: return Self.pinkNoise(count: count, using: &random)
        case .fan: return Self.fanNoise(count: count, using: &random)
        case .keyboard: return Self.keyboardNoise(count: count, using: &random)
        case .fanAndKeyboard:
            let fan = Self.normalized(Self.fanNoise(count: count, using: &random))
            let keys = Self.normalized(Self.keyboardNoise(count: count, using: &random))
            return zip(fan, keys).map(+)
        }
    }

    /// The clean speech plus `noise` scaled so that the whole clip's speech-to-noise power ratio is `snrDB`, as PCM.
    public func noisy(_ noise: [Double], snrDB: Double) -> [Int16] {
        let gain = (Self.power(clean) / max(Self.power(noise), 1e-12)).squareRoot() * pow(10, -snrDB / 20)
        return zip(clean, noise).map { AudioFrame.clip(Float($0 + $1 * gain)) }
    }

    // MARK: Noises

    static func power(_ signal: [Double]) -> Double {
        signal.reduce(0) { $0 + $1 * $1 } / Double(max(1, signal.count))
    }

    private static func normalized(_ signal: [Double]) -> [Double] {
        let scale = 1 / max(power(signal).squareRoot(), 1e-12)
        return signal.map { $0 * scale }
    }

    /// A standard normal value (Box-Muller).
    private static func gaussian(using random: inout some RandomNumberGenerator) -> Double {
        let u = Double.random(in: Double.leastNonzeroMagnitude..<1, using: &random)
        let v = Double.random(in: 0..<1, using: &random)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }

    /// White noise through a sum of first-order low-passes whose slopes add up to -3 dB per octave (within 0.5 dB
    /// from 10 Hz to 20 kHz at 48 kHz).
    private static func pinkNoise(count: Int, using random: inout some RandomNumberGenerator) -> [Double] {
        var b = [Double](repeating: 0, count: 7)
        return (0..<count).map { _ in
            let white = gaussian(using: &random)
            b[0] = 0.99886 * b[0] + white * 0.0555179
            b[1] = 0.99332 * b[1] + white * 0.0750759
            b[2] = 0.96900 * b[2] + white * 0.1538520
            b[3] = 0.86650 * b[3] + white * 0.3104856
            b[4] = 0.55000 * b[4] + white * 0.5329522
            b[5] = -0.7616 * b[5] - white * 0.0168980
            let value = b[0] + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + white * 0.5362
            b[6] = white * 0.115926
            return value
        }
    }

    private static func fanNoise(count: Int, using random: inout some RandomNumberGenerator) -> [Double] {
        let rate = Double(sampleRate)
        var rumble = 0.0
        let brown = normalized((0..<count).map { _ in
            // A leaky integrator: -6 dB per octave above about 8 Hz, no drift.
            rumble = 0.999 * rumble + gaussian(using: &random)
            return rumble
        })
        let humPhase = Double.random(in: 0..<(2 * Double.pi), using: &random)
        return (0..<count).map { index in
            let time = Double(index) / rate
            var hum = 0.0
            for harmonic in 1...4 { hum += sin(2 * Double.pi * 100 * Double(harmonic) * time + humPhase) / Double(harmonic) }
            let blades = 1 + 0.3 * sin(2 * Double.pi * 23 * time)
            return (brown[index] + 0.5 * hum) * blades
        }
    }

    private static func keyboardNoise(count: Int, using random: inout some RandomNumberGenerator) -> [Double] {
        let rate = Double(sampleRate)
        var clicks = [Double](repeating: 0, count: count)
        let burst = Int(0.006 * rate), decay = 0.0012 * rate
        var time = 0.1
        while time < Double(count) / rate - 0.2 {
            let release = Double.random(in: 0.06...0.11, using: &random)
            for (offset, amplitude) in [(0.0, Double.random(in: 0.6...1, using: &random)),
                                        (release, Double.random(in: 0.3...0.6, using: &random))] {
                let start = Int((time + offset) * rate)
                for index in 0..<burst where start + index < count {
                    clicks[start + index] += gaussian(using: &random) * amplitude * exp(-Double(index) / decay)
                }
            }
            // About 7 keys a second, never two presses closer than 40 ms.
            time += 0.04 + Double.random(in: 0..<1, using: &random) * 0.2
        }
        var highPass = Biquad.highPass(frequency: 800, sampleRate: rate)
        var lowPass = Biquad.lowPass(frequency: 7_000, sampleRate: rate)
        return clicks.map { lowPass.step(highPass.step($0)) }
    }
}

/// A two-pole resonator: a formant (unit gain at 0 Hz, as in a cascade synthesiser) or the glottal low-pass.
private struct Resonator {
    private var a1 = 0.0, a2 = 0.0, gain = 0.0
    private var y1 = 0.0, y2 = 0.0

    init(a1: Double = 0, a2: Double = 0, gain: Double = 0) {
        self.a1 = a1
        self.a2 = a2
        self.gain = gain
    }

    mutating func tune(frequency: Double, bandwidth: Double) {
        let rate = Double(SpeechCorpus.sampleRate)
        let radius = exp(-Double.pi * bandwidth / rate)
        a1 = -2 * radius * cos(2 * Double.pi * frequency / rate)
        a2 = radius * radius
        gain = 1 + a1 + a2
    }

    mutating func step(_ input: Double) -> Double {
        let output = gain * input - a1 * y1 - a2 * y2
        y2 = y1
        y1 = output
        return output
    }
}

/// A second-order Butterworth section (RBJ cookbook, Q = 1/√2).
private struct Biquad {
    private let b0, b1, b2, a1, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    private init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.b0 = b0 / a0; self.b1 = b1 / a0; self.b2 = b2 / a0; self.a1 = a1 / a0; self.a2 = a2 / a0
    }

    static func highPass(frequency: Double, sampleRate: Double) -> Biquad {
        let w = 2 * Double.pi * frequency / sampleRate, alpha = sin(w) / (2 * 0.5.squareRoot())
        return Biquad(b0: (1 + cos(w)) / 2, b1: -(1 + cos(w)), b2: (1 + cos(w)) / 2, a0: 1 + alpha, a1: -2 * cos(w), a2: 1 - alpha)
    }

    static func lowPass(frequency: Double, sampleRate: Double) -> Biquad {
        let w = 2 * Double.pi * frequency / sampleRate, alpha = sin(w) / (2 * 0.5.squareRoot())
        return Biquad(b0: (1 - cos(w)) / 2, b1: 1 - cos(w), b2: (1 - cos(w)) / 2, a0: 1 + alpha, a1: -2 * cos(w), a2: 1 - alpha)
    }

    mutating func step(_ input: Double) -> Double {
        let output = b0 * input + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1; x1 = input; y2 = y1; y1 = output
        return output
    }
}
