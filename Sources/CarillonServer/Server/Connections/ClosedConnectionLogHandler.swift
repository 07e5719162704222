import Logging
import NIOCore

/// Passes a connection's log events on, demoting errors to debug once the connection is closed.
///
/// Hummingbird logs an error for every connection that closes before its first request head is read. The
/// ``ConnectionGuard`` closes such connections on purpose (over a cap, out of budget, silent past the head timeout),
/// and a flood would otherwise cost one error line per connection; the guard's own report says what it closed.
struct ClosedConnectionLogHandler: LogHandler {
    var base: any LogHandler
    let channel: any Channel

    func log(event: LogEvent) {
        var event = event
        if event.level >= .error, !channel.isActive { event.level = .debug }
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
