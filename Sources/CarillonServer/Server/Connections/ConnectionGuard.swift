import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The server's one ``ConnectionAdmission``, shared by its listeners, with the channels it may have to close.
///
/// Threading: safe from any thread; the lock is held only for the policy's O(1) updates, never across I/O (channels
/// are closed after it is released).
final class ConnectionGuard: Sendable {
    private struct State: Sendable {
        var admission: ConnectionAdmission<ObjectIdentifier>
        var channels: [ObjectIdentifier: any Channel] = [:]
    }

    private let state: NIOLockedValueBox<State>
    private let logger: Logger

    /// Creates a guard enforcing `limits` over at most `budget` connections.
    init(limits: ConnectionLimits, budget: Int, logger: Logger) {
        state = NIOLockedValueBox(State(admission: ConnectionAdmission(limits: limits, budget: budget)))
        self.logger = logger
    }

    /// Registers an accepted connection; returns the deadline for its first request head, or nil when it was refused
    /// (and is being closed). Closes the connections shed to make room for it.
    func open(_ channel: any Channel, now: NIODeadline) -> NIODeadline? {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        let key = ObjectIdentifier(channel)
        let (admission, shed, report) = state.withLockedValue { state -> (ConnectionAdmission<ObjectIdentifier>.Admission, [any Channel], String?) in
            let admission = state.admission.open(key, address: address, now: now)
            var shed: [any Channel] = []
            if case .admitted(_, let keys) = admission {
                state.channels[key] = channel
                shed = keys.compactMap { state.channels.removeValue(forKey: $0) }
            }
            return (admission, shed, state.admission.report(now: now))
        }
        if let report { logger.warning("\(report)") }
        for victim in shed { victim.close(promise: nil) }
        switch admission {
        case .admitted(let deadline, _):
            return deadline
        case .refused:
            channel.close(promise: nil)
            return nil
        }
    }

    /// The connection sent a complete request head.
    func requestReceived(_ channel: any Channel) {
        state.withLockedValue { $0.admission.requestReceived(ObjectIdentifier(channel)) }
    }

    /// The connection became a signaling WebSocket waiting for its token to be checked.
    func awaitingJoin(_ channel: any Channel) {
        state.withLockedValue { $0.admission.awaitingJoin(ObjectIdentifier(channel)) }
    }

    /// The connection's join token was accepted.
    func joined(_ channel: any Channel) {
        state.withLockedValue { $0.admission.joined(ObjectIdentifier(channel)) }
    }

    /// Closes the connection if it still has not sent a request head at `now`.
    func closeIfOverdue(_ channel: any Channel, now: NIODeadline) {
        let overdue = state.withLockedValue { $0.admission.isOverdue(ObjectIdentifier(channel), now: now) }
        if overdue { channel.close(promise: nil) }
    }

    /// The connection's TLS handshake failed: logged at `info`, at most one line per ``ConnectionAdmission``'s report
    /// interval.
    func tlsFailed(_ channel: any Channel, reason: String, now: NIODeadline) {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        if let line = state.withLockedValue({ $0.admission.tlsFailed(address: address, reason: reason, now: now) }) {
            logger.info("\(line)")
        }
    }

    /// The connection closed.
    func closed(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        state.withLockedValue { state in
            state.admission.close(key)
            state.channels[key] = nil
        }
    }
}
