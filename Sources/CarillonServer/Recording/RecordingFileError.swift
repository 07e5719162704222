import Foundation

/// A recording's file could not be written.
struct RecordingFileError: Error, CustomStringConvertible {
    let path: String
    let operation: String
    let code: Int32

    var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
}
