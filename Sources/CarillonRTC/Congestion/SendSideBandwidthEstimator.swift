import NIOCore

/// Send-side bandwidth estimation (in the manner of Google Congestion Control), sans-IO: from what was sent, the
/// receiver's transport-wide feedback and its reports' loss fractions, the bitrate the sender should aim for.
///
/// - Delay-based: acknowledged packets are grouped into 5 ms send bursts; the growth of one-way delay between groups is
///   accumulated, smoothed and fitted with a least-squares line over the last 20 groups; the slope against an adaptive
///   threshold says overuse, normal or underuse; an AIMD controller raises the estimate (8 % a second, or about a
///   packet per response time once the link's capacity is known), holds it, or cuts it to 0.85 × the acknowledged
///   throughput.
/// - Loss-based: with under 2 % loss the loss limit lets the target grow (8 % per report); with over 10 % it cuts the
///   target by half the loss fraction, at most once per 300 ms plus a round trip.
/// - Probing: an estimate only grows to about 1.5× what gets through, so a sender that sends less than the link carries
///   never learns that it carries more. ``startProbe(bitrate:at:duration:)`` opens a short window the sender fills to
///   that rate with padding (``probePaddingDue(at:)``); once the feedback reports the window's packets, a
///   ``ProbeCluster`` result above the estimate becomes the delay-based estimate (and lifts the loss limit to it).
/// - ``targetBitrate`` is the lower of the two, within the configured bounds, starting at the start bitrate.
///
/// It keeps no timers: every input returns at once and ``targetBitrate`` changes only on input. Owned by one event
/// loop; sent packets are remembered in a fixed ring without per-packet allocation.
public struct SendSideBandwidthEstimator: Sendable {
    /// Bounds and start of the estimate, in bits per second.
    public struct Configuration: Sendable, Equatable {
        /// The estimate never goes below this.
        public var minimumBitrate: Int
        /// The estimate before any feedback.
        public var startBitrate: Int
        /// The estimate never goes above this.
        public var maximumBitrate: Int

        /// Creates a configuration; the start is clamped into [minimum, maximum].
        public init(minimumBitrate: Int = 30_000, startBitrate: Int = 300_000, maximumBitrate: Int = 2_500_000) {
            self.minimumBitrate = max(1, minimumBitrate)
            self.maximumBitrate = max(self.minimumBitrate, maximumBitrate)
            self.startBitrate = min(max(startBitrate, self.minimumBitrate), self.maximumBitrate)
        }
    }

    private struct SentPacket {
        var sequence: Int64 = -1
        var sendTime: Int64 = 0
        var size = 0
        var acknowledged = false
    }

    /// The bounds in force.
    public let configuration: Configuration
    private var sent: [SentPacket]
    private let sentMask: Int64
    private var sendUnwrapper = SequenceUnwrapper()
    private var newestSent: Int64?
    private var lastReferenceTime: UInt32?
    private var referenceUnits: Int64 = 0
    private var grouper = SendBurstGrouper()
    private var detector = DelayTrendDetector()
    private var delayController: DelayBasedRateController
    private var meter = AcknowledgedBitrateMeter()
    private var lossLimit: Double?
    private var lastLossDecrease: NIODeadline?
    private var smoothedRoundTrip: Double?
    private var acknowledgements: [(send: Int64, arrival: Int64, size: Int)] = []
    private var probe: ProbeCluster?

    /// The bitrate to aim for, in bits per second.
    public private(set) var targetBitrate: Int
    /// Feedback messages taken into account.
    public private(set) var feedbackCount = 0
    /// Packets the feedback reported lost (a packet reported again after arriving late is not taken back).
    public private(set) var packetsReportedLost = 0
    /// The last probe's outcome: the rate that got through (bits per second), nil when it said nothing; nil before
    /// the first probe was evaluated.
    public private(set) var lastProbeResult: Int??
    /// Probes evaluated so far.
    public private(set) var probesEvaluated = 0

    /// Creates an estimator at the configured start bitrate; `historySize` (rounded up to a power of two) is how many
    /// sent packets are remembered for matching feedback.
    public init(configuration: Configuration = Configuration(), historySize: Int = 8192) {
        self.configuration = configuration
        var size = 256
        while size < historySize { size <<= 1 }
        sentMask = Int64(size - 1)
        sent = [SentPacket](repeating: SentPacket(), count: size)
        delayController = DelayBasedRateController(minimumBitrate: Double(configuration.minimumBitrate),
                                                   maximumBitrate: Double(configuration.maximumBitrate),
                                                   startBitrate: Double(configuration.startBitrate))
        targetBitrate = configuration.startBitrate
    }

    /// The delay-based estimate, in bits per second.
    public var delayBasedBitrate: Int { Int(delayController.bitrate) }
    /// The loss-based limit, in bits per second, or nil while loss limits nothing.
    public var lossBasedBitrate: Int? { lossLimit.map { Int($0) } }
    /// The throughput the receiver acknowledged recently, in bits per second, once measured.
    public var acknowledgedBitrate: Int? { meter.bitrate.map { Int($0) } }
    /// The delay detector's latest verdict.
    public var bandwidthUsage: BandwidthUsage { detector.usage }
    /// The delay detector's current threshold and scaled trend (for diagnostics).
    public var delayTrend: (trend: Double, threshold: Double) { (detector.modifiedTrend, detector.threshold) }
    /// Smoothed time from sending a packet to receiving its feedback (a round trip plus the feedback interval).
    public var feedbackRoundTrip: TimeAmount? { smoothedRoundTrip.map { .nanoseconds(Int64($0 * 1e6)) } }

    /// Records a packet as it leaves, with the transport-wide sequence number it carries and its size in bytes.
    public mutating func packetSent(transportSequenceNumber: UInt16, size: Int, at time: NIODeadline) {
        let sequence = sendUnwrapper.unwrap(transportSequenceNumber)
        newestSent = max(newestSent ?? sequence, sequence)
        let sendTime = Int64(time.uptimeNanoseconds)
        sent[Int(sequence & sentMask)] = SentPacket(sequence: sequence, sendTime: sendTime, size: size)
        if probe?.contains(sendTime) == true { probe?.sent(sequence: sequence, size: size, at: sendTime) }
    }

    /// Opens a probe: every packet sent from `now` for `duration` counts towards it, and the sender tops them up to
    /// `bitrate` with padding (``probePaddingDue(at:)``). Replaces a probe not evaluated yet.
    public mutating func startProbe(bitrate: Int, at now: NIODeadline, duration: TimeAmount) {
        probe = ProbeCluster(bitrate: bitrate, start: now, duration: duration)
    }

    /// Whether a probe is open or waits for its feedback.
    public var isProbing: Bool { probe != nil }

    /// The padding bytes the open probe wants sent at `now` to keep to its rate; 0 outside its window.
    public func probePaddingDue(at now: NIODeadline) -> Int { probe?.bytesDue(at: now) ?? 0 }

    /// The end of the open probe's window (while it is open at `now`), for the sender's padding timer.
    public func probeWindowEnd(after now: NIODeadline) -> NIODeadline? {
        guard let probe, probe.contains(Int64(now.uptimeNanoseconds)) else { return nil }
        return .uptimeNanoseconds(UInt64(probe.end))
    }

    /// Takes in one transport-wide feedback message received at `now`.
    public mutating func transportFeedbackReceived(_ feedback: TransportFeedback, now: NIODeadline) {
        guard let newestSent else { return }
        feedbackCount += 1
        // The 24-bit reference time wraps every 12 days; follow it by its signed steps.
        if let last = lastReferenceTime {
            let step = Int64(Int32(bitPattern: (feedback.referenceTime &- last) << 8) >> 8)
            referenceUnits += step
        } else {
            referenceUnits = Int64(feedback.referenceTime)
        }
        lastReferenceTime = feedback.referenceTime
        let reference = referenceUnits * TransportFeedback.referenceTimeUnitNanoseconds

        acknowledgements.removeAll(keepingCapacity: true)
        var newestAcknowledgedSend: Int64?
        for result in feedback.packets {
            let distance = Int64(Int16(bitPattern: result.sequenceNumber &- UInt16(truncatingIfNeeded: newestSent)))
            let sequence = newestSent + distance
            let slot = Int(sequence & sentMask)
            guard sent[slot].sequence == sequence, !sent[slot].acknowledged else { continue }
            let inProbe = probe.map { sequence >= ($0.firstSequence ?? .max) && sequence <= ($0.lastSequence ?? .min) } ?? false
            guard let ticks = result.arrivalTicks else {
                packetsReportedLost += 1
                if inProbe { probe?.reported(arrival: nil, size: sent[slot].size) }
                continue
            }
            sent[slot].acknowledged = true
            let arrival = reference + ticks * TransportFeedback.tickNanoseconds
            if inProbe { probe?.reported(arrival: arrival, size: sent[slot].size) }
            acknowledgements.append((sent[slot].sendTime, arrival, sent[slot].size))
            newestAcknowledgedSend = max(newestAcknowledgedSend ?? sent[slot].sendTime, sent[slot].sendTime)
        }
        guard let newestAcknowledgedSend else { return }
        let sample = Double(Int64(now.uptimeNanoseconds) - newestAcknowledgedSend) / 1e6
        smoothedRoundTrip = smoothedRoundTrip.map { 0.875 * $0 + 0.125 * sample } ?? sample

        acknowledgements.sort { ($0.arrival, $0.send) < ($1.arrival, $1.send) }
        for packet in acknowledgements {
            meter.add(arrival: packet.arrival, bytes: packet.size)
            if let delta = grouper.add(send: packet.send, arrival: packet.arrival) { _ = detector.update(delta) }
        }
        delayController.update(detector.usage, acknowledged: meter.bitrate, roundTripMilliseconds: smoothedRoundTrip ?? 100,
                               now: Int64(now.uptimeNanoseconds))
        evaluateProbe(now: now)
        updateTarget()
    }

    /// Takes the probe's result once its feedback is complete: a rate above the estimate becomes the delay-based
    /// estimate (unless the delay says overuse now) and lifts the loss limit to it.
    private mutating func evaluateProbe(now: NIODeadline) {
        guard var finished = probe, finished.isComplete(at: now) else { return }
        probe = nil
        let result = finished.result()
        lastProbeResult = .some(result)
        probesEvaluated += 1
        guard let result, result > targetBitrate, detector.usage != .overusing else { return }
        delayController.setEstimate(Double(result))
        if let limit = lossLimit { lossLimit = max(limit, Double(result)) }
    }

    /// Takes in the fraction lost (in 1/256) of a receiver report block about the media this estimator paces.
    public mutating func receiverReportReceived(fractionLost: UInt8, now: NIODeadline) {
        let loss = Double(fractionLost) / 256
        let current = Double(targetBitrate)
        if loss < 0.02 {
            if let limit = lossLimit {
                let raised = max(limit, 1.08 * current + 1000)
                lossLimit = raised >= Double(configuration.maximumBitrate) ? nil : raised
            }
        } else if loss > 0.10 {
            let pause = TimeAmount.milliseconds(300) + .nanoseconds(Int64((smoothedRoundTrip ?? 100) * 1e6))
            if lastLossDecrease.map({ now - $0 >= pause }) ?? true {
                lossLimit = max(Double(configuration.minimumBitrate), current * (1 - 0.5 * loss))
                lastLossDecrease = now
            }
        }
        updateTarget()
    }

    private mutating func updateTarget() {
        let target = min(delayController.bitrate, lossLimit ?? .infinity)
        targetBitrate = Int(min(max(target, Double(configuration.minimumBitrate)), Double(configuration.maximumBitrate)))
    }
}
