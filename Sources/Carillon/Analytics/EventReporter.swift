/// Sends published events somewhere (Chime's reporter batches them to its ingestion service).
///
/// Threading: ``report(event:)`` is called on whatever thread published the event; implementations must accept that.
public protocol EventReporter: AnyObject, Sendable {
    /// Takes one event.
    func report(event: SDKEvent)
    /// Starts reporting (called when the session is created).
    func start()
    /// Stops reporting.
    func stop()
}
