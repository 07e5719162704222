#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Line-oriented standard output that is flushed at once, so scripts and tests reading a pipe see each line.
enum StandardOutput {
    /// Writes `text` and a newline to standard output and flushes. When the reader has gone (`carillon join | head`),
    /// the process ends as Unix tools do when their pipe closes, by SIGPIPE, instead of trapping with a backtrace
    /// (SwiftNIO ignores SIGPIPE, so the write fails with EPIPE rather than killing the process).
    static func line(_ text: String) {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
        } catch {
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
            exit(141)
        }
    }
}
