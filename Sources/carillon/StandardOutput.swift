import Foundation

/// Line-oriented standard output that is flushed at once, so scripts and tests reading a pipe see each line.
enum StandardOutput {
    /// Writes `text` and a newline to standard output and flushes.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
