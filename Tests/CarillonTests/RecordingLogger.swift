import Synchronization

@testable import Carillon

/// A ``Logger`` that keeps every message with its level, for tests that check what was logged.
final class RecordingLogger: Logger {
    private let entries = Mutex<[(level: LogLevel, message: String)]>([])

    var messages: [(level: LogLevel, message: String)] { entries.withLock { $0 } }

    func messages(at level: LogLevel) -> [String] { messages.filter { $0.level == level }.map(\.message) }

    func `default`(msg: String) { record(.DEFAULT, msg) }
    func debug(debugFunction: () -> String) { record(.DEBUG, debugFunction()) }
    func info(msg: String) { record(.INFO, msg) }
    func fault(msg: String) { record(.FAULT, msg) }
    func error(msg: String) { record(.ERROR, msg) }
    func setLogLevel(level: LogLevel) {}
    func getLogLevel() -> LogLevel { .DEBUG }

    private func record(_ level: LogLevel, _ message: String) {
        entries.withLock { $0.append((level, message)) }
    }
}
