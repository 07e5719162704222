import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The file shell of one media capture pipeline: applies its recorder's ``RecordingFileOperation``s under the
/// pipeline's directory, in order, on a serial queue of its own, so a slow disk never holds up a meeting's event loop.
///
/// The first failure (a full disk, a directory that cannot be made) is reported once through `failed` and every
/// later operation is dropped; what was written stays, and each finished file is complete. Operations that were
/// queued but not yet applied when the process is killed are lost (a few milliseconds of them); everything before is
/// in the files, which play up to their last closed cluster.
///
/// Costs: the bytes are handed over, not copied; one `write` per operation. Threading: safe from any thread; the
/// open files are touched only on the queue.
final class RecordingFileWriter: @unchecked Sendable {
    /// The pipeline's directory.
    let directory: URL
    private let queue: DispatchQueue
    private let failed: @Sendable (String) -> Void
    // Confined to `queue`.
    private var open: [String: Int32] = [:]
    private var failure: String?

    /// A writer into `directory` (made when the first file is), reporting its first failure to `failed`.
    init(directory: URL, failed: @escaping @Sendable (String) -> Void) {
        self.directory = directory
        self.failed = failed
        queue = DispatchQueue(label: "carillon.recording.\(directory.lastPathComponent)")
    }

    /// Queues `operations`.
    func apply(_ operations: [RecordingFileOperation]) {
        queue.async {
            for operation in operations where self.failure == nil {
                do {
                    try self.perform(operation)
                } catch {
                    self.failure = "\(error)"
                    self.failed("\(error)")
                }
            }
        }
    }

    /// Closes every file still open (a recording that ended without finishing them) once what is queued is written,
    /// then calls `done` with whether every operation succeeded.
    func close(then done: @escaping @Sendable (_ succeeded: Bool) -> Void) {
        queue.async {
            for descriptor in self.open.values { _ = Glibc.close(descriptor) }
            self.open.removeAll()
            done(self.failure == nil)
        }
    }

    /// Waits until everything queued so far is written.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }

    private func perform(_ operation: RecordingFileOperation) throws {
        switch operation {
        case .create(let path, let bytes):
            let url = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            if let previous = open.removeValue(forKey: path) { _ = Glibc.close(previous) }
            let descriptor = Glibc.open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw RecordingFileError(path: path, operation: "create", code: errno) }
            open[path] = descriptor
            try write(bytes, to: descriptor, path: path)
        case .append(let path, let bytes):
            guard let descriptor = open[path] else { return }
            try write(bytes, to: descriptor, path: path)
        case .finish(let path, let ending):
            guard let descriptor = open.removeValue(forKey: path) else { return }
            defer { _ = Glibc.close(descriptor) }
            guard let ending else { return }
            try write(ending.appended, to: descriptor, path: path)
            for patch in ending.patches {
                let written = patch.bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(patch.offset)) }
                guard written == patch.bytes.count else { throw RecordingFileError(path: path, operation: "patch", code: errno) }
            }
        }
    }

    private func write(_ bytes: [UInt8], to descriptor: Int32, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw RecordingFileError(path: path, operation: "write", code: errno) }
            offset += written
        }
    }
}
