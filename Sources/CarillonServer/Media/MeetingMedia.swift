import CarillonRTC
import Logging
import NIOCore

/// The media transports of one meeting: one ICE-lite peer connection per attendee session, all on the shared media
/// port and all owned by the meeting's event loop. Part of ``MeetingRoom``'s shell around ``MeetingCore``: the core
/// negotiates each transport and decides what to send; this starts and stops the drivers, sends, and hands the
/// current drivers' events back (a replaced driver's events are dropped).
///
/// Threading: confined to the meeting's event loop. `@unchecked Sendable` only so the loop's counters can reach it
/// there: the loop is the lock.
final class MeetingMedia: @unchecked Sendable {
    private let eventLoop: any EventLoop
    private let port: MediaPort
    private var drivers: [SignalingConnectionID: PeerConnectionDriver] = [:]
    /// The loop's media counters, shared with the other meetings of the loop.
    let counters: MediaLoopCounters

    init(eventLoop: any EventLoop, context: MediaContext) {
        self.eventLoop = eventLoop
        port = context.port
        counters = context.counters.counters(for: eventLoop)
        eventLoop.execute { [weak self] in
            guard let self else { return }
            self.counters.liveDrops[ObjectIdentifier(self)] = { [weak self] in self?.liveDrops ?? 0 }
        }
    }

    deinit {
        let counters = self.counters, key = ObjectIdentifier(self)
        counters.eventLoop.execute { counters.liveDrops[key] = nil }
    }

    /// Datagrams dropped by the connections still open.
    private var liveDrops: Int {
        drivers.values.reduce(0) { $0 + $1.connection.statistics.datagramsDropped }
    }

    /// Runs `connection`'s new transport on the port (checks for `localICE` reach it); its events go to `onEvent` on the loop while it is the
    /// session's current one.
    func start(_ connection: SignalingConnectionID, peer: PeerConnection, localICE: ICECredentials,
               onEvent: @escaping (SignalingConnectionID, PeerConnectionEvent) -> Void) {
        eventLoop.preconditionInEventLoop()
        end(connection)
        let driver = port.makeDriver(for: peer, on: eventLoop)
        drivers[connection] = driver
        port.register(driver, credentials: localICE)
        driver.start { [weak self] event in
            // Events of a replaced connection are stale.
            guard let self, self.drivers[connection] === driver else { return }
            onEvent(connection, event)
        }
    }

    /// Stops a session's transport.
    func end(_ connection: SignalingConnectionID) {
        guard let driver = drivers.removeValue(forKey: connection) else { return }
        counters.totals.datagramsDroppedByConnections += driver.connection.statistics.datagramsDropped
        port.unregister(driver)
        driver.stop()
    }

    /// Protects and sends an RTP packet (consumed: SRTP protects it in place); returns its array once the port's
    /// outbox copied it, for reuse.
    func sendRTP(_ packet: consuming [UInt8], on connection: SignalingConnectionID) -> [UInt8]? {
        drivers[connection]?.sendRTP(packet)
    }

    /// Protects and sends an RTCP compound.
    func sendRTCP(_ compound: consuming [UInt8], on connection: SignalingConnectionID) {
        drivers[connection]?.sendRTCP(compound)
    }
}
