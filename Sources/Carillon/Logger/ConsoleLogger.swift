import Foundation
import Synchronization

/// A ``Logger`` that writes `[LEVEL] name - message` lines to standard error.
///
/// Threading: safe from any thread; each line is written whole. Unlike the iOS SDK, a filtered `debug` closure is
/// never evaluated.
public final class ConsoleLogger: Logger, Sendable {
    private let name: String
    private let level: Mutex<LogLevel>

    /// Creates a logger called `name` keeping messages at `level` and above.
    public init(name: String, level: LogLevel = .INFO) {
        self.name = name
        self.level = Mutex(level)
    }

    /// See ``Logger``.
    public func `default`(msg: String) { write(.DEFAULT, msg) }
    /// See ``Logger``.
    public func debug(debugFunction: () -> String) {
        guard keeps(.DEBUG) else { return }
        write(.DEBUG, debugFunction())
    }
    /// See ``Logger``.
    public func info(msg: String) { write(.INFO, msg) }
    /// See ``Logger``.
    public func fault(msg: String) { write(.FAULT, msg) }
    /// See ``Logger``.
    public func error(msg: String) { write(.ERROR, msg) }
    /// See ``Logger``.
    public func setLogLevel(level: LogLevel) { self.level.withLock { $0 = level } }
    /// See ``Logger``.
    public func getLogLevel() -> LogLevel { level.withLock { $0 } }

    private func keeps(_ messageLevel: LogLevel) -> Bool {
        let current = getLogLevel()
        return current != .OFF && messageLevel.rawValue >= current.rawValue
    }

    private func write(_ messageLevel: LogLevel, _ message: String) {
        guard keeps(messageLevel) else { return }
        FileHandle.standardError.write(Data("[\(messageLevel)] \(name) - \(message)\n".utf8))
    }
}
