/// The SDK's logging interface, shaped like the Chime SDK's so apps can plug in their own.
///
/// Threading: implementations must accept calls from any thread.
public protocol Logger: AnyObject, Sendable {
    /// Logs at `DEFAULT` level.
    func `default`(msg: String)
    /// Logs at `DEBUG` level; the closure is evaluated only when the message is kept.
    func debug(debugFunction: () -> String)
    /// Logs at `INFO` level.
    func info(msg: String)
    /// Logs at `FAULT` level.
    func fault(msg: String)
    /// Logs at `ERROR` level.
    func error(msg: String)
    /// Changes the lowest level that is kept.
    func setLogLevel(level: LogLevel)
    /// The lowest level that is kept.
    func getLogLevel() -> LogLevel
}
