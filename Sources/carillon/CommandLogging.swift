import ArgumentParser
import Logging
import Synchronization

/// Logging set-up shared by the commands: swift-log to standard error, bootstrapped once per process in the format
/// the first command asks for.
enum CommandLogging {
    /// How log lines look: swift-log's text lines, or one JSON object per line (``JSONLineLogHandler``).
    enum Format: String, CaseIterable, ExpressibleByArgument, Sendable {
        case text
        case json
    }

    private static let bootstrapped = Mutex(false)

    /// A logger at `level`, after making sure log lines go to standard error in `format` (a process bootstraps
    /// swift-log once: a later call with another format keeps the first).
    static func logger(label: String, level: Logger.Level, format: Format = .text) -> Logger {
        bootstrapped.withLock { done in
            guard !done else { return }
            done = true
            switch format {
            case .text: LoggingSystem.bootstrap(StreamLogHandler.standardError)
            case .json: LoggingSystem.bootstrap(JSONLineLogHandler.standardError)
            }
        }
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}
