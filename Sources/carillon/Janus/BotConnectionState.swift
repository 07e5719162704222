import CarillonRTC
import Foundation
import Synchronization

/// How far a bench bot's connection got (new, ICE up, DTLS up, failed), shared by ``WebRTCAudioBot`` and
/// ``WebRTCVideoBot``: each feeds it its connection's events and waits on it.
///
/// Why: both bots wait for DTLS the same way. Cost: one atomic, updated on
/// the connection's state events only (not per packet). Threading: updated on the socket's loop, read anywhere.
final class BotConnectionState: Sendable {
    private let phase = Atomic<Int>(0) // 0 new, 1 ICE up, 2 DTLS up, 3 failed

    /// Takes a connection event.
    func update(_ event: PeerConnectionEvent) {
        switch event {
        case .iceConnected:
            phase.store(max(1, phase.load(ordering: .relaxed)), ordering: .relaxed)
        case .connected:
            phase.store(2, ordering: .relaxed)
        case .failed:
            phase.store(3, ordering: .relaxed)
        default:
            break
        }
    }

    /// Waits until DTLS is up (SRTP keyed); throws when the connection failed or `timeout` passed.
    func waitUntilConnected(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while phase.load(ordering: .relaxed) != 2 {
            guard phase.load(ordering: .relaxed) != 3 else { throw BenchTimeout(what: "a connection that failed (ICE or DTLS)") }
            guard ContinuousClock.now < deadline else { throw BenchTimeout(what: "ICE and DTLS with the server") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
