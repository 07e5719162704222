import HummingbirdCore
import Logging
import NIOCore

/// A Hummingbird child channel whose connections are admitted by a ``ConnectionGuard``: it puts a
/// ``ConnectionGuardHandler`` in front of `Base`'s handlers (behind TLS, when `TLSChannel` wraps it).
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let connections: ConnectionGuard
    /// Whether the connections are plain TCP (no TLS in front of this channel's handlers).
    let plaintext: Bool

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuardHandler(connections: connections,
                                                                                  plaintext: plaintext))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        var logger = logger
        let channel = value.channel
        logger.handler = ErrorDemotingLogHandler(base: logger.handler, demoteErrors: { !channel.isActive })
        await base.handle(value: value, logger: logger)
    }
}
