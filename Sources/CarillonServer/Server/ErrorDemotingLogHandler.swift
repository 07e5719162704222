import Logging

/// Passes log events on, demoting errors to debug while `demoteErrors` says they are expected.
///
/// Hummingbird logs errors the server causes on purpose: one per connection the ``ConnectionGuard`` closes before
/// its first request head (over a cap, out of budget, silent past the head timeout), which a flood would turn into
/// one error line per connection; and, when one listener cannot bind, the cancellation of the others, which buried
/// the one line that says what went wrong. The guard's report and the bind error say what happened instead.
struct ErrorDemotingLogHandler: LogHandler {
    var base: any LogHandler
    /// Whether an error logged now is expected (checked per error event only).
    let demoteErrors: @Sendable () -> Bool

    func log(event: LogEvent) {
        var event = event
        if event.level >= .error, demoteErrors() { event.level = .debug }
        guard event.level >= base.logLevel else { return }
        base.log(event: event)
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }
}
