import CarillonRTC
import NIOCore

/// The sans-IO source of ``MetricsObserver`` reports (the Chime SDK's `DefaultClientMetricsCollector`, `internal`
/// here like the rest of the Chime plumbing): fed packet counters with the current time, it returns a metrics
/// dictionary once a second.
///
/// It never reads the clock; its owner calls ``advance(to:)`` at ``nextDeadline`` (a 1 s grid from creation) and
/// hands a non-nil result to the metrics observers.
///
/// * ``ObservableMetric/audioReceivePacketLossPercent``: `100 · lost / expected` over the counters added since the
///   previous report (the receive path's per-interval counts), clamped to 0–100; absent when nothing was expected
///   in that second.
/// * ``ObservableMetric/audioSendPacketLossPercent``: the same over the counters of the latest RTCP receiver report
///   about the sent audio (the deltas of its extended highest sequence number and cumulative loss since the
///   previous report; the first report's own fraction lost). Receiver reports may come less often than once a
///   second, so the value is kept until the next report, and dropped when the latest one is older than
///   ``sendReportLifetime``, or covered no packets.
/// * A second in which no metric has a value produces no report (rather than an empty dictionary).
///
/// * The video metrics: what ``setVideoMetrics(_:)`` last gave (the video core's second), as they are.
///
/// Audio round-trip time and jitter have no ``ObservableMetric`` case, so they are not collected here.
struct ClientMetricsCollector {
    /// The report cadence (Chime: "more than 1 s" since the previous report).
    static let reportInterval: TimeAmount = .seconds(1)
    /// How long a receiver report's send loss stays valid (RTCP's minimum report interval, RFC 3550 §6.2).
    static let sendReportLifetime: TimeAmount = .seconds(5)

    private(set) var nextDeadline: NIODeadline
    private var receiveExpected = 0
    private var receiveLost = 0
    private var sendLossPercent: Double?
    private var sendReportTime: NIODeadline?
    private var previousSendReport: RTCPPacket.ReportBlock?
    private var video: [ObservableMetric: Double] = [:]

    /// Creates a collector whose first report is due one second after `start`.
    init(start: NIODeadline) {
        nextDeadline = start + Self.reportInterval
    }

    /// Adds receive-path counts: packets expected (from sequence numbers) and lost since the previous call.
    mutating func addAudioReceiveCounts(expected: Int, lost: Int) {
        receiveExpected += max(expected, 0)
        receiveLost += lost
    }

    /// Records an RTCP report block about the sent audio.
    mutating func addAudioSendReport(_ block: RTCPPacket.ReportBlock, at now: NIODeadline) {
        defer { previousSendReport = block }
        guard let previous = previousSendReport, previous.ssrc == block.ssrc else {
            sendReportTime = now
            sendLossPercent = Double(block.fractionLost) * 100 / 256
            return
        }
        addAudioSendReport(expected: Int(block.extendedHighestSequence &- previous.extendedHighestSequence),
                           lost: Int(block.cumulativeLost) - Int(previous.cumulativeLost), at: now)
    }

    /// Records an RTCP receiver report about the sent audio: packets expected and lost since the previous report.
    mutating func addAudioSendReport(expected: Int, lost: Int, at now: NIODeadline) {
        sendReportTime = now
        sendLossPercent = expected > 0 ? Self.percent(lost: lost, expected: expected) : nil
    }

    /// Sets the video metrics of the coming report (``VideoClientMetrics/observable``); keys not given are absent.
    mutating func setVideoMetrics(_ metrics: [ObservableMetric: Double]) {
        video = metrics
    }

    /// Produces the report when one is due (and anything has a value), then resets the per-second counters.
    ///
    /// A late call produces one report and keeps the grid.
    mutating func advance(to now: NIODeadline) -> [ObservableMetric: Double]? {
        guard now >= nextDeadline else { return nil }
        nextDeadline = nextDeadline.nextOnGrid(period: Self.reportInterval, after: now)
        var metrics = video
        if receiveExpected > 0 {
            metrics[ObservableMetric.audioReceivePacketLossPercent] = Self.percent(lost: receiveLost, expected: receiveExpected)
        }
        receiveExpected = 0
        receiveLost = 0
        if let time = sendReportTime, now - time > Self.sendReportLifetime {
            sendReportTime = nil
            sendLossPercent = nil
        }
        if let sendLossPercent {
            metrics[ObservableMetric.audioSendPacketLossPercent] = sendLossPercent
        }
        return metrics.isEmpty ? nil : metrics
    }

    /// `100 · lost / expected`, clamped to 0–100 (duplicates and late counts can push it outside); `expected` > 0.
    static func percent(lost: Int, expected: Int) -> Double {
        min(max(100 * Double(lost) / Double(expected), 0), 100)
    }
}
