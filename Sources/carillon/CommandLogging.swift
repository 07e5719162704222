import Logging

/// Logging set-up shared by the commands: swift-log to standard error, once per process.
enum CommandLogging {
    private static let bootstrap: Void = LoggingSystem.bootstrap(StreamLogHandler.standardError)

    /// A logger at `level`, after making sure log lines go to standard error.
    static func logger(label: String, level: Logger.Level) -> Logger {
        _ = bootstrap
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}
