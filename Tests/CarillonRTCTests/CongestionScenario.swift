import CarillonMeasurement
import CarillonRTC
import NIOCore

/// A sender and a receiver joined by two simulated links in virtual time: media from a rate-following source goes
/// through the pacer and the forward link as RTP with the transport-wide sequence extension; the receiver's transport
/// feedback (and, when asked, a receiver report every second) comes back as RTCP and feeds the estimator.
struct CongestionScenario {
    static let transportSequenceExtension: UInt8 = 3
    static let packetSize = 1200

    var forward: SimulatedLink
    var backward: SimulatedLink
    var estimator: SendSideBandwidthEstimator
    var pacer: Pacer
    var generator = TransportFeedbackGenerator(senderSSRC: 2, mediaSSRC: 1)
    var statistics = RTPReceiveStatistics(clockRate: 90_000)
    /// The most the source produces, whatever the target, in bits per second.
    let sourceCeiling: Int
    let sendsReceiverReports: Bool
    private(set) var now = NIODeadline.uptimeNanoseconds(1_000_000_000)
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
    private var transportSequence: UInt16 = 0
    private var rtpSequence: UInt16 = 0
    private var sourceCredit = 0.0
    private var nextReport: NIODeadline
    private let payload = [UInt8](repeating: 0xAB, count: 1180)[...]
    /// (seconds since start, target bitrate) once per 100 ms.
    private(set) var targets: [(time: Double, bitrate: Int)] = []
    /// (seconds since start, payload bytes received) per packet.
    private(set) var received: [(time: Double, bytes: Int)] = []

    init(forward: LinkConditions, backward: LinkConditions = LinkConditions(delay: .milliseconds(30)),
         configuration: SendSideBandwidthEstimator.Configuration, sourceCeiling: Int = 2_500_000, receiverReports: Bool = false) {
        self.forward = SimulatedLink(conditions: forward, seed: 5)
        self.backward = SimulatedLink(conditions: backward, seed: 6)
        estimator = SendSideBandwidthEstimator(configuration: configuration)
        pacer = Pacer(targetBitrate: configuration.startBitrate)
        self.sourceCeiling = sourceCeiling
        sendsReceiverReports = receiverReports
        nextReport = NIODeadline.uptimeNanoseconds(1_000_000_000) + .seconds(1)
    }

    /// Target bitrates sampled between two times (seconds since start).
    func targets(from: Double, to: Double) -> [Int] { targets.filter { $0.time >= from && $0.time < to }.map(\.bitrate) }

    /// Bits per second the receiver got between two times (seconds since start).
    func goodput(from: Double, to: Double) -> Double {
        Double(received.filter { $0.time >= from && $0.time < to }.reduce(0) { $0 + $1.bytes }) * 8 / (to - from)
    }

    /// Runs in 1 ms steps for `duration`.
    mutating func run(for duration: TimeAmount) throws {
        let end = now + duration
        while now < end {
            let elapsed = Double((now - start).nanoseconds) / 1e9
            if (now - start).nanoseconds % 100_000_000 == 0 { targets.append((elapsed, estimator.targetBitrate)) }
            // The source follows the target up to its ceiling.
            sourceCredit += Double(min(estimator.targetBitrate, sourceCeiling)) / 8 / 1000
            while sourceCredit >= Double(Self.packetSize) {
                sourceCredit -= Double(Self.packetSize)
                let packet = RTPPacket(payloadType: 96, sequenceNumber: rtpSequence, timestamp: UInt32(elapsed * 90_000), ssrc: 1,
                                       payload: payload)
                rtpSequence &+= 1
                pacer.enqueue(Pacer.Packet(bytes: packet.serialized(), size: Self.packetSize, priority: .video))
            }
            pacer.setRate(targetBitrate: estimator.targetBitrate)
            if let deadline = pacer.nextDeadline, deadline <= now {
                for packet in pacer.poll(now: now) {
                    // The transport-wide number is stamped as the packet leaves the pacer.
                    var rtp = try RTPPacket(parsing: packet.bytes)
                    rtp.extensions = [(Self.transportSequenceExtension, [UInt8(transportSequence >> 8), UInt8(transportSequence & 0xFF)])]
                    let datagram = rtp.serialized()
                    estimator.packetSent(transportSequenceNumber: transportSequence, size: datagram.count, at: now)
                    transportSequence &+= 1
                    forward.send(datagram, now: now)
                }
            }
            for datagram in forward.receive(now: now) {
                let rtp = try RTPPacket(parsing: datagram)
                if let value = rtp.extensionValue(id: Self.transportSequenceExtension),
                   let sequence = RTPHeaderExtensionValue.transportSequenceNumber(value) {
                    generator.received(transportSequenceNumber: sequence, arrival: now)
                }
                statistics.record(sequenceNumber: rtp.sequenceNumber, rtpTimestamp: rtp.timestamp, arrival: now)
                received.append((elapsed, datagram.count))
            }
            if let deadline = generator.nextDeadline, deadline <= now {
                for feedback in generator.poll(now: now) { backward.send(RTCPPacket.transportFeedback(feedback).serialized(), now: now) }
            }
            if sendsReceiverReports, now >= nextReport {
                let block = RTCPPacket.ReportBlock(ssrc: 1, fractionLost: statistics.takeFractionLost(),
                                                   cumulativeLost: Int32(clamping: statistics.cumulativeLost),
                                                   extendedHighestSequence: statistics.extendedHighestSequence, jitter: statistics.jitter)
                backward.send(RTCPPacket.receiverReport(ssrc: 2, reports: [block]).serialized(), now: now)
                nextReport = nextReport + .seconds(1)
            }
            for datagram in backward.receive(now: now) {
                for packet in try RTCPPacket.parseCompound(datagram) {
                    switch packet {
                    case .transportFeedback(let feedback):
                        estimator.transportFeedbackReceived(feedback, now: now)
                    case .receiverReport(_, let reports):
                        for report in reports where report.ssrc == 1 {
                            estimator.receiverReportReceived(fractionLost: report.fractionLost, now: now)
                        }
                    default:
                        break
                    }
                }
            }
            now = now + .milliseconds(1)
        }
    }
}
