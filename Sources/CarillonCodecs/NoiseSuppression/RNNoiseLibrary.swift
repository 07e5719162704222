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
/// Cost: loading maps a 15 MB library once per process (``shared``); the handle is never closed. Threading: the
/// function pointers are immutable and RNNoise's functions are reentrant per state, so one value serves every thread.
public final class RNNoiseLibrary: Sendable {
    /// The environment variable naming the library file to load first.
    public static let pathVariable = "CARILLON_RNNOISE_LIBRARY"
    /// Samples per channel RNNoise takes per call: 10 ms at 48 kHz.
    public static let frameSize = 480
    /// The only sample rate RNNoise runs at.
    public static let sampleRate = 48_000

    typealias CreateFunction = @convention(c) (UnsafeMutableRawPointer?) -> OpaquePointer?
    typealias DestroyFunction = @convention(c) (OpaquePointer?) -> Void
    typealias ProcessFunction = @convention(c) (OpaquePointer?, UnsafeMutablePointer<Float>?, UnsafePointer<Float>?) -> Float
    typealias FrameSizeFunction = @convention(c) () -> Int32

    /// The file that was loaded.
    public let path: String
    let create: CreateFunction
    let destroy: DestroyFunction
    let processFrame: ProcessFunction

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
