import NIOCore

/// Runs one ``PeerConnection`` on one event loop in real time: it feeds the connection received datagrams and the
/// clock, hands what the connection sends to a transmit function, and keeps one timer at the connection's deadline.
///
/// Threading: every method must be called on ``eventLoop``, which owns the connection; events are delivered there
/// too. The type is `Sendable` so it can be handed to that loop, not so it can be used from elsewhere.
public final class PeerConnectionDriver: @unchecked Sendable {
    /// The loop that owns the connection.
    public let eventLoop: any EventLoop
    /// The connection; touch it only on ``eventLoop``.
    public let connection: PeerConnection
    private let transmit: ([UInt8], STUNAddress) -> Void
    private var onEvent: ((PeerConnectionEvent) -> Void)?
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    private var stopped = false
    /// The output received datagrams are handled into, kept between datagrams so its arrays are reused.
    private var received = PeerConnectionOutput()
    /// Takes each received datagram back once handled, for its storage to carry a later one.
    private let recycleReceived: ((consuming [UInt8]) -> Void)?

    /// Creates a driver; `transmit` puts one datagram on the wire and is called on `eventLoop`. `recycleReceived`,
    /// when given, is handed each received datagram (consumed) once the connection and the event handler are done
    /// with it, on `eventLoop`: ``MediaPort`` returns it to the pool it reads datagrams into.
    public init(connection: PeerConnection, eventLoop: any EventLoop, transmit: @escaping ([UInt8], STUNAddress) -> Void,
                recycleReceived: ((consuming [UInt8]) -> Void)? = nil) {
        self.connection = connection
        self.eventLoop = eventLoop
        self.transmit = transmit
        self.recycleReceived = recycleReceived
    }

    /// Starts the connection (a controlling agent sends its first checks) and reports its events to `onEvent`.
    public func start(onEvent: @escaping (PeerConnectionEvent) -> Void) {
        eventLoop.preconditionInEventLoop()
        self.onEvent = onEvent
        apply(connection.start(now: eventLoop.now))
    }

    /// Hands the connection a datagram that arrived from `source` (consumed: see ``PeerConnection/receive(_:from:now:)``).
    public func receive(_ datagram: consuming [UInt8], from source: STUNAddress) {
        eventLoop.preconditionInEventLoop()
        guard !stopped else { return }
        // Taken out while in use: an event handler that re-enters gets an empty output of its own instead.
        var output = received
        received = PeerConnectionOutput()
        connection.receive(consume datagram, from: source, now: eventLoop.now, into: &output)
        apply(output)
        // Emptied now, not at the next datagram, so that the events let go of this datagram's storage; then the
        // datagram, its only reference left, goes back for reuse.
        output.datagrams.removeAll(keepingCapacity: true)
        output.events.removeAll(keepingCapacity: true)
        if let spent = output.receivedDatagram.take(), let recycleReceived { recycleReceived(consume spent) }
        received = output
    }

    /// Protects and sends an RTP packet. Consumed: see ``PeerConnection/sendRTP(_:)`` for when protection happens
    /// without a copy. Returns the datagram once transmitted (the transmit function copies what it keeps, as
    /// ``MediaPort``'s outbox does), so the caller can reuse its storage for a later packet (a
    /// ``DatagramBufferPool``); nil when the connection is not up and the packet was dropped.
    @discardableResult
    public func sendRTP(_ packet: consuming [UInt8]) -> [UInt8]? {
        eventLoop.preconditionInEventLoop()
        guard !stopped, let (datagram, target) = connection.sendRTP(consume packet) else { return nil }
        transmit(datagram, target)
        return datagram
    }

    /// Protects and sends an RTCP compound packet; false when the connection is not up.
    @discardableResult
    public func sendRTCP(_ compound: consuming [UInt8]) -> Bool {
        eventLoop.preconditionInEventLoop()
        guard !stopped, let (datagram, target) = connection.sendRTCP(consume compound) else { return false }
        transmit(datagram, target)
        return true
    }

    /// Restarts ICE with new credentials (see ``PeerConnection/restartICE(localICE:remoteICE:remoteCandidates:now:)``).
    public func restartICE(localICE: ICECredentials, remoteICE: ICECredentials, remoteCandidates: [STUNAddress]?) {
        eventLoop.preconditionInEventLoop()
        guard !stopped else { return }
        apply(connection.restartICE(localICE: localICE, remoteICE: remoteICE, remoteCandidates: remoteCandidates,
                                    now: eventLoop.now))
    }

    /// Sends DTLS close_notify and stops: no more events, timers or datagrams.
    public func stop() {
        eventLoop.preconditionInEventLoop()
        guard !stopped else { return }
        let output = connection.close()
        for (datagram, target) in output.datagrams { transmit(datagram, target) }
        stopped = true
        timer?.cancel()
        timer = nil
        onEvent = nil
    }

    private func apply(_ output: PeerConnectionOutput) {
        for (datagram, target) in output.datagrams { transmit(datagram, target) }
        for event in output.events {
            guard !stopped else { break }
            onEvent?(event)
        }
        scheduleTimer()
    }

    private func scheduleTimer() {
        guard !stopped, let deadline = connection.nextDeadline else { return }
        if let timerDeadline, timerDeadline <= deadline, timer != nil { return }
        timer?.cancel()
        timerDeadline = deadline
        timer = eventLoop.scheduleTask(deadline: deadline) { [self] in
            timer = nil
            timerDeadline = nil
            guard !stopped else { return }
            apply(connection.tick(now: eventLoop.now))
        }
    }
}
