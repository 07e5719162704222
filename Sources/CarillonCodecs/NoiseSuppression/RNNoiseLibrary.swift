#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The RNNoise shared library (`librnnoise.so`, with its model built in), loaded at run time with `dlopen` so the
/// build never depends on it: without it, noise suppression is simply unavailable.
///
/// Search order: the file named by `CARILLON_RNNOISE_LIBRARY`; `librnnoise.so` next to the executable;
/// `.deps/rnnoise/librnnoise.so` in the executable's directory or up to five of its ancestors (where `make rnnoise`
/// puts it, found from `.build/<triple>/debug`); then the system loader's own search (`LD_LIBRARY_PATH`, ldconfig).
///
/// The model: when a weights file (``weightsFileName``) lies next to the loaded library, its states run on that model
/// instead of the one built in. `make rnnoise` writes one from the pinned library's own model without the float copies
/// of its int8 matrices, so RNNoise takes its int8 path: 0.5 ms instead of 1.1-1.6 ms per 10 ms block here (the float
/// matrices, 10.6 MB, do not fit the caches; see `scripts/rnnoise-int8-weights.py`).
///
/// Cost: loading maps a 15 MB library and reads the 3.5 MB weights file once per process (``shared``); neither is ever
/// released. Threading: the function pointers and the model are immutable after `init` (RNNoise only reads the model)
/// and RNNoise's functions are reentrant per state, so one value serves every thread.
public final class RNNoiseLibrary: Sendable {
    /// The environment variable naming the library file to load first.
    public static let pathVariable = "CARILLON_RNNOISE_LIBRARY"
    /// The weights file looked for next to the library (RNNoise's weights-blob format).
    public static let weightsFileName = "rnnoise-int8.weights"
    /// Samples per channel RNNoise takes per call: 10 ms at 48 kHz.
    public static let frameSize = 480
    /// The only sample rate RNNoise runs at.
    public static let sampleRate = 48_000

    typealias CreateFunction = @convention(c) (OpaquePointer?) -> OpaquePointer?
    typealias ModelFromBufferFunction = @convention(c) (UnsafeRawPointer?, Int32) -> OpaquePointer?
    typealias DestroyFunction = @convention(c) (OpaquePointer?) -> Void
    typealias ProcessFunction = @convention(c) (OpaquePointer?, UnsafeMutablePointer<Float>?, UnsafePointer<Float>?) -> Float
    typealias FrameSizeFunction = @convention(c) () -> Int32

    /// The file that was loaded.
    public let path: String
    /// The weights file the states run on, nil when they run on the model built into the library.
    public let weightsPath: String?
    private let create: CreateFunction
    let destroy: DestroyFunction
    let processFrame: ProcessFunction
    /// RNNoise's model made from the weights file (whose bytes it points into, kept for the process); immutable.
    private nonisolated(unsafe) let model: OpaquePointer?

    /// The library found by the search order, loaded once per process; the error says what was tried.
    public static let shared = Result { () throws(NoiseSuppressorError) in try RNNoiseLibrary(candidates: searchPaths()) }

    /// Loads the first of `candidates` that opens and exports RNNoise's functions.
    public init(candidates: [String]) throws(NoiseSuppressorError) {
        var tried: [String] = []
        var opened: (handle: UnsafeMutableRawPointer, path: String)?
        for candidate in candidates {
            if let handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL) {
                opened = (handle, candidate)
                break
            }
            tried.append("\(candidate): \(dlerror().map { String(cString: $0) } ?? "not loadable")")
        }
        guard let (handle, path) = opened else { throw .libraryNotFound(tried: tried) }
        func symbol<T>(_ name: String, as type: T.Type) throws(NoiseSuppressorError) -> T {
            guard let address = dlsym(handle, name) else { throw .missingSymbol(name, library: path) }
            return unsafeBitCast(address, to: type)
        }
        let frameSize = try symbol("rnnoise_get_frame_size", as: FrameSizeFunction.self)()
        guard frameSize == Self.frameSize else { throw .unexpectedFrameSize(Int(frameSize)) }
        create = try symbol("rnnoise_create", as: CreateFunction.self)
        destroy = try symbol("rnnoise_destroy", as: DestroyFunction.self)
        processFrame = try symbol("rnnoise_process_frame", as: ProcessFunction.self)
        self.path = path
        let weightsPath = path.lastIndex(of: "/").map { String(path[...$0]) + Self.weightsFileName }
        guard let weightsPath, let weights = Self.readWeights(weightsPath) else {
            self.weightsPath = nil
            model = nil
            return
        }
        let fromBuffer = try symbol("rnnoise_model_from_buffer", as: ModelFromBufferFunction.self)
        guard let model = fromBuffer(weights.pointer, Int32(weights.count)),
              let probe = create(model)
        else { throw .weightsRejected(weightsPath) }
        destroy(probe)
        self.weightsPath = weightsPath
        self.model = model
    }

    /// A new RNNoise state on the library's model; nil when RNNoise cannot make one (out of memory).
    func createState() -> OpaquePointer? { create(model) }

    /// The whole file in memory that is never freed (RNNoise's model points into it), nil when there is no such file.
    private static func readWeights(_ path: String) -> (pointer: UnsafeRawPointer, count: Int)? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        guard fseek(file, 0, SEEK_END) == 0 else { return nil }
        let count = ftell(file)
        guard count > 0, count < Int(Int32.max), fseek(file, 0, SEEK_SET) == 0 else { return nil }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 64)
        guard fread(buffer, 1, count, file) == count else {
            buffer.deallocate()
            return nil
        }
        return (UnsafeRawPointer(buffer), count)
    }

    /// The search order above, as paths (the last one a bare name for the system loader).
    public static func searchPaths() -> [String] {
        var paths: [String] = []
        if let named = getenv(pathVariable).map({ String(cString: $0) }), !named.isEmpty { paths.append(named) }
        if let directory = executableDirectory() {
            paths.append(directory + "/librnnoise.so")
            var ancestor = directory
            for _ in 0...5 {
                paths.append(ancestor + "/.deps/rnnoise/librnnoise.so")
                guard let slash = ancestor.lastIndex(of: "/"), slash != ancestor.startIndex else { break }
                ancestor = String(ancestor[..<slash])
            }
        }
        paths.append("librnnoise.so")
        return paths
    }

    /// The directory of the running executable (`/proc/self/exe` with links resolved), nil where there is none.
    private static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }
}
