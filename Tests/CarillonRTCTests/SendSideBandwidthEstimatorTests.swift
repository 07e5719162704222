import CarillonMeasurement
import CarillonRTC
import NIOCore
import Testing

@Suite struct SendSideBandwidthEstimatorTests {
    let start = NIODeadline.uptimeNanoseconds(5_000_000_000)

    /// Sends 1200-byte packets every `sendSpacing` and has them arrive every `arrivalSpacing` (30 ms later at first);
    /// feedback every 50 ms reaches the estimator 30 ms after it is made. Returns the targets after each feedback.
    func drive(_ estimator: inout SendSideBandwidthEstimator, packets: Int, sendSpacing: Int64, arrivalSpacing: Int64,
               firstSequence: UInt16 = 0) -> [(usage: BandwidthUsage, target: Int)] {
        var generator = TransportFeedbackGenerator()
        var events: [(usage: BandwidthUsage, target: Int)] = []
        for index in 0..<packets {
            let sequence = firstSequence &+ UInt16(truncatingIfNeeded: index)
            let sendTime = start + .milliseconds(sendSpacing * Int64(index))
            estimator.packetSent(transportSequenceNumber: sequence, size: 1200, at: sendTime)
            let arrival = start + .milliseconds(30 + arrivalSpacing * Int64(index))
            generator.received(transportSequenceNumber: sequence, arrival: arrival)
            if let deadline = generator.nextDeadline, deadline <= arrival {
                for feedback in generator.poll(now: arrival) {
                    estimator.transportFeedbackReceived(feedback, now: arrival + .milliseconds(30))
                    events.append((estimator.bandwidthUsage, estimator.targetBitrate))
                }
            }
        }
        return events
    }

    @Test func growingDelayIsOveruseAndCutsToTheAcknowledgedRate() throws {
        // 960 kbit/s sent into an 800 kbit/s path: each packet lands 2 ms later than the one before would have.
        var estimator = SendSideBandwidthEstimator(configuration: .init(minimumBitrate: 50_000, startBitrate: 960_000,
                                                                        maximumBitrate: 2_000_000))
        let events = drive(&estimator, packets: 300, sendSpacing: 10, arrivalSpacing: 12)
        let firstCut = try #require(events.firstIndex { $0.usage == .overusing })
        #expect(firstCut > 2)
        // Before the cut the estimate grew; at the cut it is 0.85 x the 800 kbit/s that got through.
        #expect(events[firstCut - 1].target > 960_000)
        #expect((0.83 * 800_000...0.87 * 800_000).contains(Double(events[firstCut].target)))
        #expect(try #require(estimator.acknowledgedBitrate) > 780_000)
    }

    /// A receiver on a busy machine, descheduled 150 ms in every 500 ms, reads what came meanwhile all at once:
    /// 3 Mbit/s all of which gets through is no overuse (a send burst that straddled the pause used to end on a late
    /// arrival and read as a delay step: one overuse a second, the estimate held under what flowed).
    @Test func aReceiverThatStallsIsNoOveruse() {
        var estimator = SendSideBandwidthEstimator(configuration: .init(minimumBitrate: 60_000, startBitrate: 3_000_000,
                                                                        maximumBitrate: 10_000_000))
        var generator = TransportFeedbackGenerator(interval: .milliseconds(10))
        var arriving: [(arrival: NIODeadline, sequence: UInt16)] = []
        var usages: [BandwidthUsage] = []
        var nextFeedback = start
        // A 1200-byte packet every 3.2 ms for 20 s; 20 ms on the way, held to the end of the receiver's stall.
        for index in 0..<6_250 {
            let sent = start + .microseconds(3_200 * Int64(index))
            estimator.packetSent(transportSequenceNumber: UInt16(truncatingIfNeeded: index), size: 1200, at: sent)
            var arrival = sent + .milliseconds(20)
            let phase = Int64(arrival.uptimeNanoseconds) % 500_000_000
            if phase < 150_000_000 { arrival = arrival + .nanoseconds(150_000_000 - phase) }
            arriving.append((arrival, UInt16(truncatingIfNeeded: index)))
            while let first = arriving.first, first.arrival <= sent {
                arriving.removeFirst()
                generator.received(transportSequenceNumber: first.sequence, arrival: first.arrival)
            }
            while nextFeedback <= sent {
                for feedback in generator.poll(now: nextFeedback) {
                    estimator.transportFeedbackReceived(feedback, now: nextFeedback + .milliseconds(20))
                    usages.append(estimator.bandwidthUsage)
                }
                nextFeedback = nextFeedback + .milliseconds(10)
            }
        }
        #expect(usages.count > 1_000)
        #expect(!usages.contains(.overusing))
        #expect(estimator.targetBitrate > 3_000_000)
    }

    @Test func steadyDelayIsNormalAndGrows() {
        var estimator = SendSideBandwidthEstimator(configuration: .init(minimumBitrate: 50_000, startBitrate: 500_000,
                                                                        maximumBitrate: 2_000_000))
        // Across the 16-bit wrap of the transport-wide sequence number, too.
        let events = drive(&estimator, packets: 500, sendSpacing: 10, arrivalSpacing: 10, firstSequence: 65_300)
        #expect(events.allSatisfy { $0.usage == .normal })
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.target <= $1.target })
        // Five seconds at 8 % a second (plus the per-update floor) from 500 kbit/s.
        #expect((700_000...800_000).contains(estimator.targetBitrate))
        #expect(estimator.feedbackCount == events.count)
    }

    /// A probe: 20 packets of 1200 bytes sent 4 ms apart (2.4 Mbit/s) inside its window. Arriving 4 ms apart, the
    /// result is the send rate and becomes the estimate; arriving 8 ms apart (a 1.2 Mbit/s path, the queue grows), 95 %
    /// of the receive rate.
    @Test(arguments: [(Int64(4), 2_400_000, 2_400_000), (Int64(8), 1_200_000, 1_140_000)])
    func aProbeThatGetsThroughRaisesTheEstimate(arrivalSpacing: Int64, receiveRate: Int, expected: Int) throws {
        var estimator = SendSideBandwidthEstimator(configuration: .init(minimumBitrate: 50_000, startBitrate: 300_000,
                                                                        maximumBitrate: 5_000_000))
        estimator.startProbe(bitrate: 2_400_000, at: start, duration: .milliseconds(80))
        #expect(estimator.isProbing)
        // 2.4 Mbit/s is 300 bytes a millisecond: 3000 bytes due 10 ms in, of which nothing was sent yet.
        #expect(estimator.probePaddingDue(at: start + .milliseconds(10)) == 3_000)
        _ = drive(&estimator, packets: 20, sendSpacing: 4, arrivalSpacing: arrivalSpacing)
        // The window (80 ms) closed; a later packet's feedback, after the wait for the window's last reports is over,
        // has it evaluated with what was reported.
        var generator = TransportFeedbackGenerator()
        let late = start + .milliseconds(1_100)
        estimator.packetSent(transportSequenceNumber: 20, size: 1200, at: late)
        generator.received(transportSequenceNumber: 20, arrival: late)
        for feedback in generator.poll(now: late + .milliseconds(100)) {
            estimator.transportFeedbackReceived(feedback, now: late + .milliseconds(130))
        }
        let result = try #require(estimator.lastProbeResult ?? nil)
        // Send rate: 19 packets' bytes over 76 ms; receive rate: 19 over 19 arrival gaps.
        #expect(abs(result - expected) <= expected / 100, "probe result \(result)")
        #expect(estimator.probesEvaluated == 1 && !estimator.isProbing)
        // Through at the probe's rate, the estimate jumps to it (no growth at 8 % a second from 300 kbit/s).
        if receiveRate == 2_400_000 { #expect(estimator.targetBitrate >= result) }
        #expect(estimator.probePaddingDue(at: late) == 0)
    }

    @Test func lossReportsCutHoldAndRelease() {
        var estimator = SendSideBandwidthEstimator(configuration: .init(minimumBitrate: 100_000, startBitrate: 1_000_000,
                                                                        maximumBitrate: 2_000_000))
        estimator.receiverReportReceived(fractionLost: 0, now: start)
        #expect(estimator.lossBasedBitrate == nil)
        #expect(estimator.targetBitrate == 1_000_000)
        // 25 % loss: cut by 12.5 %.
        estimator.receiverReportReceived(fractionLost: 64, now: start + .seconds(1))
        #expect(estimator.targetBitrate == 875_000)
        // Again 100 ms later: too soon for another cut.
        estimator.receiverReportReceived(fractionLost: 64, now: start + .milliseconds(1100))
        #expect(estimator.targetBitrate == 875_000)
        estimator.receiverReportReceived(fractionLost: 64, now: start + .seconds(2))
        #expect(estimator.targetBitrate == 765_625)
        // 5 % loss holds.
        estimator.receiverReportReceived(fractionLost: 13, now: start + .seconds(3))
        #expect(estimator.targetBitrate == 765_625)
        // Under 2 % lets it grow 8 % a report.
        estimator.receiverReportReceived(fractionLost: 2, now: start + .seconds(4))
        #expect(estimator.targetBitrate == 827_875)
        #expect(estimator.lossBasedBitrate == 827_875)
        // Heavy loss never goes below the minimum.
        for second in 5..<40 { estimator.receiverReportReceived(fractionLost: 255, now: start + .seconds(Int64(second))) }
        #expect(estimator.targetBitrate == 100_000)
    }

    @Test func configurationIsClamped() {
        let configuration = SendSideBandwidthEstimator.Configuration(minimumBitrate: 200_000, startBitrate: 50_000,
                                                                      maximumBitrate: 100_000)
        #expect(configuration.maximumBitrate == 200_000)
        #expect(configuration.startBitrate == 200_000)
        #expect(SendSideBandwidthEstimator(configuration: configuration).targetBitrate == 200_000)
    }

    @Test func cappedLinkBringsTheTargetBelowTheCapAndKeepsItThere() throws {
        var scenario = CongestionScenario(
            forward: LinkConditions(delay: .milliseconds(30), bandwidthBitsPerSecond: 1_000_000),
            configuration: .init(minimumBitrate: 50_000, startBitrate: 2_500_000, maximumBitrate: 3_000_000))
        try scenario.run(for: .seconds(20))
        let below = scenario.targets.first { $0.bitrate < 1_000_000 }
        #expect((below?.time ?? 99) < 4)
        let settled = scenario.targets(from: 12, to: 20)
        #expect(settled.allSatisfy { (500_000...1_100_000).contains($0) })
        #expect(scenario.goodput(from: 10, to: 20) > 600_000)
    }

    @Test func uncappedLinkRampsUpToTheMaximum() throws {
        var scenario = CongestionScenario(
            forward: LinkConditions(delay: .milliseconds(30)),
            configuration: .init(minimumBitrate: 50_000, startBitrate: 300_000, maximumBitrate: 2_000_000))
        try scenario.run(for: .seconds(30))
        let at10 = try #require(scenario.targets(from: 10, to: 10.05).first)
        #expect(at10 > 500_000)
        #expect(scenario.estimator.targetBitrate >= 1_800_000)
    }

    @Test func randomLossPullsTheTargetDown() throws {
        var scenario = CongestionScenario(
            forward: LinkConditions(lossRate: 0.2, delay: .milliseconds(30)),
            configuration: .init(minimumBitrate: 50_000, startBitrate: 1_500_000, maximumBitrate: 2_500_000), receiverReports: true)
        try scenario.run(for: .seconds(10))
        #expect(scenario.estimator.targetBitrate < 750_000)
        let lossBased = try #require(scenario.estimator.lossBasedBitrate)
        #expect(lossBased < scenario.estimator.delayBasedBitrate)
        #expect(scenario.estimator.targetBitrate == lossBased)
    }
}
