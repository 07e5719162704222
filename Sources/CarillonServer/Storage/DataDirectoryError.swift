#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Why the data directory (`--data-dir`) cannot be used.
public struct DataDirectoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The directory's path.
    public let path: String
    /// The system's reason, in words ("Permission denied").
    public let reason: String

    /// Creates the error for `path` with the system's `reason`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// The error for a Foundation failure `error` at `path`.
    init(path: String, error: any Error) {
        self.init(path: path, reason: "\(error.localizedDescription)")
    }

    /// A sentence naming the directory, the reason and the option to change.
    public var description: String {
        "cannot use the data directory \(path): \(reason); choose another with --data-dir, or fix its permissions "
            + "(the server needs to create and write it)"
    }
}
