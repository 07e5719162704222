/// A factory that makes no reporter: the session reports events nowhere. Carillon has no ingestion service, so this
/// is also what sessions use by default.
public final class NoopEventReporterFactory: EventReporterFactory, Sendable {
    /// Creates the factory.
    public init() {}

    /// Always nil.
    public func createEventReporter() -> (any EventReporter)? { nil }
}
