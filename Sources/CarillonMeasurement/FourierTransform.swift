import CarillonCodecs
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A radix-2 fast Fourier transform of real signals, for spectral measurements (``SpeechIntelligibility``);
/// ``FrequencyAnalysis`` measures single frequencies, this one gives every bin at once.
///
/// The twiddle factors and the bit-reversal table are computed once per size. Cost: O(n log n) per call, one array
/// for the result. Threading: a value type without mutable state; share it freely.
public struct FourierTransform: Sendable {
    /// The transform length, a power of two.
    public let size: Int
    private let cosines: [Double]
    private let sines: [Double]
    private let reversed: [Int]

    /// Creates a transform of `size` points; `size` must be a power of two of at least 2 (a trap otherwise: sizes
    /// are constants of the calling code).
    public init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "FFT size \(size) is not a power of two")
        self.size = size
        cosines = (0..<size / 2).map { cos(-2 * Double.pi * Double($0) / Double(size)) }
        sines = (0..<size / 2).map { sin(-2 * Double.pi * Double($0) / Double(size)) }
        let bits = size.trailingZeroBitCount
        reversed = (0..<size).map { index in
            var result = 0
            for bit in 0..<bits where index & (1 << bit) != 0 { result |= 1 << (bits - 1 - bit) }
            return result
        }
    }

    /// The squared magnitudes of bins 0 through size/2 of `signal`, zero-padded (or cut) to ``size``.
    public func powerSpectrum(_ signal: some Collection<Double>) -> [Double] {
        var real = [Double](repeating: 0, count: size)
        var imaginary = [Double](repeating: 0, count: size)
        for (index, value) in signal.prefix(size).enumerated() { real[reversed[index]] = value }
        var half = 1
        while half < size {
            let step = size / (2 * half)
            for start in stride(from: 0, to: size, by: 2 * half) {
                for offset in 0..<half {
                    let twiddle = offset * step
                    let even = start + offset, odd = even + half
                    let oddReal = real[odd] * cosines[twiddle] - imaginary[odd] * sines[twiddle]
                    let oddImaginary = real[odd] * sines[twiddle] + imaginary[odd] * cosines[twiddle]
                    real[odd] = real[even] - oddReal
                    imaginary[odd] = imaginary[even] - oddImaginary
                    real[even] += oddReal
                    imaginary[even] += oddImaginary
                }
            }
            half *= 2
        }
        return (0...size / 2).map { real[$0] * real[$0] + imaginary[$0] * imaginary[$0] }
    }
}
