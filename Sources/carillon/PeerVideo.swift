import CarillonRTC
import NIOCore

/// The video of `carillon peer --video` on the socket's event loop: drives a ``PeerVideoSender`` and a
/// ``PeerVideoReceiver`` with one repeating timer, feeds them what the connection reports, sends what they return,
/// and once a second a sender report (or a receiver report when only receiving) with the report block about the
/// received stream.
///
/// Threading: every method runs on ``eventLoop`` (the connection's), which is what lets the parts be plain classes.
final class PeerVideo {
    /// The timer's period: fine enough for a picture clock of up to 30 fps and for 10 ms NACK checks.
    static let tickInterval = TimeAmount.milliseconds(5)
    static let reportInterval = TimeAmount.seconds(1)

    let eventLoop: any EventLoop
    let parameters: PeerVideoParameters
    private let socket: PeerConnectionSocket
    private let sender: PeerVideoSender?
    private let receiver: PeerVideoReceiver?
    private let cname: String
    private var timer: RepeatedTask?
    private var nextReport: NIODeadline?
    private var reportsSent = 0

    /// Creates the video of a negotiated m-line; it starts with ``start(now:)`` once the connection is up.
    init(parameters: PeerVideoParameters, socket: PeerConnectionSocket, sender: PeerVideoSender?,
         receiver: PeerVideoReceiver?, cname: String) {
        eventLoop = socket.eventLoop
        self.parameters = parameters
        self.socket = socket
        self.sender = sender
        self.receiver = receiver
        self.cname = cname
    }

    /// Starts sending pictures and the timer.
    func start(now: NIODeadline) {
        eventLoop.preconditionInEventLoop()
        guard timer == nil else { return }
        sender?.start(now: now)
        nextReport = now + Self.reportInterval
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        timer = eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: Self.tickInterval) { _ in
            bound.value.tick(now: .now())
        }
    }

    /// Stops the timer; nothing more is sent.
    func stop() {
        eventLoop.preconditionInEventLoop()
        timer?.cancel()
        timer = nil
    }

    /// A received RTP packet (audio too: transport-wide feedback covers every packet of the transport).
    func received(rtp packet: RTPPacket, now: NIODeadline) {
        guard let receiver else { return }
        for compound in receiver.received(packet, now: now) { socket.sendRTCP(compound) }
    }

    /// A received RTCP compound: feedback for the sender, sender reports for the receiver.
    func received(rtcp packets: [RTCPPacket], now: NIODeadline) {
        for case .senderReport(let ssrc, let ntp, _, _, _, _) in packets {
            receiver?.receivedSenderReport(ssrc: ssrc, ntpTimestamp: ntp, now: now)
        }
        guard let sender, timer != nil else { return }
        for repair in sender.received(rtcp: packets, now: now) { socket.sendRTP(repair) }
    }

    /// The figures for the result line, and the captured packets as hex lines (nil without a capture).
    func report() -> (figures: [String: any Sendable], captured: String?) {
        var figures: [String: any Sendable] = ["reportsSent": reportsSent]
        if let sender { figures["sent"] = sender.report() }
        if let receiver { figures["received"] = receiver.report() }
        return (figures, receiver?.capture?.hexLines)
    }

    private func tick(now: NIODeadline) {
        if let sender {
            for packet in sender.packetsDue(now: now) { socket.sendRTP(packet) }
        }
        if let receiver {
            for compound in receiver.tick(now: now) { socket.sendRTCP(compound) }
        }
        if let due = nextReport, now >= due {
            nextReport = due.nextOnGrid(period: Self.reportInterval, after: now)
            sendReport(now: now)
        }
    }

    private func sendReport(now: NIODeadline) {
        let blocks = receiver?.reportBlock(now: now).map { [$0] } ?? []
        let report: RTCPPacket
        if let senderReport = sender?.senderReport(now: now, blocks: blocks) {
            report = senderReport
        } else if !blocks.isEmpty {
            report = .receiverReport(ssrc: parameters.localSSRC, reports: blocks)
        } else {
            return
        }
        reportsSent += 1
        socket.sendRTCP(RTCPPacket.reportCompound(report, ssrc: parameters.localSSRC, cname: cname))
    }
}
