import CarillonProtocol
import Dispatch
import Foundation

/// The session's analytics: publishes events to the meeting history, to the reporter (when the session's
/// ``EventReporterFactory`` made one) and to ``EventAnalyticsObserver``s, merging the session's statistics into the
/// meeting events as Chime does.
///
/// Every event gets `timestampMs`. `meetingStartSucceeded`, `meetingStartFailed`, `meetingReconnected`,
/// `meetingFailed`, `meetingEnded` and `videoClientSignalingDropped` also get `maxVideoTileCount`, `retryCount`,
/// `poorConnectionCount`, `meetingStartDurationMs` and `meetingDurationMs` (0 until the meeting started), and
/// `meetingReconnected` gets `meetingReconnectDurationMs`. The history is never reset.
///
/// Threading: every method may be called from any thread (one lock guards the history, the observers and the
/// statistics, never held while calling out); observers are called on the session's callback queue, in order.
public final class DefaultEventAnalyticsController: EventAnalyticsController, @unchecked Sendable {
    private let configuration: MeetingSessionConfiguration
    private let callbackQueue: DispatchQueue
    private let reporter: (any EventReporter)?
    private let lock = NSLock()
    private var history: [MeetingHistoryEvent] = []
    private var observers: [ObjectIdentifier: any EventAnalyticsObserver] = [:]
    private var statistics = Statistics()

    /// What the meeting events carry, in epoch milliseconds and counts.
    private struct Statistics {
        var startRequestedMs: Int64?
        var startedMs: Int64?
        var droppedMs: Int64?
        var retryCount = 0
        var poorConnectionCount = 0
        var maxVideoTileCount = 0
    }

    /// The events that carry the session's statistics.
    private static let withStatistics: Set<EventName> = [
        .meetingStartSucceeded, .meetingStartFailed, .meetingReconnected, .meetingFailed, .meetingEnded,
        .videoClientSignalingDropped,
    ]

    init(configuration: MeetingSessionConfiguration, callbackQueue: DispatchQueue, reporter: (any EventReporter)?) {
        self.configuration = configuration
        self.callbackQueue = callbackQueue
        self.reporter = reporter
        reporter?.start()
    }

    deinit { reporter?.stop() }

    // MARK: EventAnalyticsController

    /// See ``EventAnalyticsController``.
    public func publishEvent(name: EventName) { publishEvent(name: name, attributes: [:], notifyObservers: true) }

    /// See ``EventAnalyticsController``.
    public func publishEvent(name: EventName, attributes: [AnyHashable: Any]) {
        publishEvent(name: name, attributes: attributes, notifyObservers: true)
    }

    /// See ``EventAnalyticsController``.
    public func publishEvent(name: EventName, attributes: [AnyHashable: Any], notifyObservers: Bool) {
        let now = Self.nowMs()
        var merged = attributes
        merged[EventAttributeName.timestampMs] = now
        let targets: [any EventAnalyticsObserver] = lock.withLock {
            update(for: name, now: now)
            if Self.withStatistics.contains(name) {
                merged[EventAttributeName.maxVideoTileCount] = statistics.maxVideoTileCount
                merged[EventAttributeName.retryCount] = statistics.retryCount
                merged[EventAttributeName.poorConnectionCount] = statistics.poorConnectionCount
                let started = statistics.startedMs
                merged[EventAttributeName.meetingStartDurationMs] =
                    started.flatMap { started in statistics.startRequestedMs.map { started - $0 } } ?? 0
                merged[EventAttributeName.meetingDurationMs] = started.map { now - $0 } ?? 0
                if name == .meetingReconnected, let dropped = statistics.droppedMs {
                    merged[EventAttributeName.meetingReconnectDurationMs] = now - dropped
                    statistics.droppedMs = nil
                }
            }
            history.append(MeetingHistoryEvent(meetingHistoryEventName: MeetingHistoryEventName(name), timestampMs: now))
            return notifyObservers ? Array(observers.values) : []
        }
        reporter?.report(event: SDKEvent(eventName: name, eventAttributes: merged))
        guard !targets.isEmpty else { return }
        let delivery = Delivery(observers: targets, name: name, attributes: merged)
        callbackQueue.async { delivery.deliver() }
    }

    /// See ``EventAnalyticsController``.
    public func pushHistory(historyEventName: MeetingHistoryEventName) {
        let entry = MeetingHistoryEvent(meetingHistoryEventName: historyEventName, timestampMs: Self.nowMs())
        lock.withLock { history.append(entry) }
    }

    // MARK: EventAnalyticsFacade

    /// See ``EventAnalyticsFacade``.
    public func addEventAnalyticsObserver(observer: any EventAnalyticsObserver) {
        lock.withLock { observers[ObjectIdentifier(observer)] = observer }
    }

    /// See ``EventAnalyticsFacade``.
    public func removeEventAnalyticsObserver(observer: any EventAnalyticsObserver) {
        _ = lock.withLock { observers.removeValue(forKey: ObjectIdentifier(observer)) }
    }

    /// See ``EventAnalyticsFacade``.
    public func getMeetingHistory() -> [MeetingHistoryEvent] { lock.withLock { history } }

    /// See ``EventAnalyticsFacade``: string keys, Linux and Carillon values (`osName` "Linux", `sdkName` "carillon").
    public func getCommonEventAttributes() -> [AnyHashable: Any] {
        var system = utsname()
        uname(&system)
        let machine = Self.string(&system.machine), release = Self.string(&system.release)
        var attributes: [AnyHashable: Any] = [
            EventAttributeName.meetingId.description: configuration.meetingId,
            EventAttributeName.attendeeId.description: configuration.credentials.attendeeId,
            EventAttributeName.externalUserId.description: configuration.credentials.externalUserId,
            EventAttributeName.deviceName.description: "Linux \(machine)",
            EventAttributeName.deviceManufacturer.description: "unknown",
            EventAttributeName.deviceModel.description: machine,
            EventAttributeName.osName.description: "Linux",
            EventAttributeName.osVersion.description: release,
            EventAttributeName.sdkName.description: "carillon",
            EventAttributeName.sdkVersion.description: CarillonVersion.current,
            EventAttributeName.mediaSdkVersion.description: CarillonVersion.current,
        ]
        if let external = configuration.externalMeetingId {
            attributes[EventAttributeName.externalMeetingId.description] = external
        }
        return attributes
    }

    // MARK: Statistics the engine feeds

    /// The session is reconnecting (one more retry).
    func reconnecting() {
        let now = Self.nowMs()
        lock.withLock {
            statistics.retryCount += 1
            if statistics.droppedMs == nil { statistics.droppedMs = now }
        }
    }

    /// The connection became poor.
    func connectionBecamePoor() { lock.withLock { statistics.poorConnectionCount += 1 } }

    /// The number of video tiles shown now (the maximum is reported).
    func videoTileCount(_ count: Int) {
        lock.withLock { statistics.maxVideoTileCount = max(statistics.maxVideoTileCount, count) }
    }

    /// Called with the lock held: the statistics that publishing `name` itself moves.
    private func update(for name: EventName, now: Int64) {
        switch name {
        case .meetingStartRequested:
            statistics = Statistics()
            statistics.startRequestedMs = now
        case .meetingStartSucceeded:
            statistics.startedMs = now
        default:
            break
        }
    }

    private static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    private static func string<T>(_ field: inout T) -> String {
        withUnsafeBytes(of: &field) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// One event on its way to the callback queue. `@unchecked Sendable`: the attributes are the numbers and strings
    /// built above and are only read after the hop.
    private struct Delivery: @unchecked Sendable {
        let observers: [any EventAnalyticsObserver]
        let name: EventName
        let attributes: [AnyHashable: Any]

        func deliver() {
            for observer in observers { observer.eventDidReceive(name: name, attributes: attributes) }
        }
    }
}
