/// The SDK's logging interface, shaped like the Chime SDK's so apps can plug in their own.
///
/// Not `Sendable`, so that an app's own logger class (mutable, non-final, as Chime apps write them) conforms in Swift 6
/// mode as it is. Threading: the SDK calls it from its own threads (the session's event loop and callback queue), so
/// an implementation must accept calls from any thread; the SDK hands it across threads as its owner would.
public protocol Logger: AnyObject {
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
