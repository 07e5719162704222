import Carillon
import Foundation

/// Prints one headless attendee's session events, roster changes, active speakers, data messages and metrics as
/// readable lines or JSON objects (``EventLine``), and hands volumes to whoever tracks them (printing every volume
/// change would flood the output).
///
/// Threading: called on the session's serial callback queue; `output` must be safe to call from it.
final class AttendeeEventPrinter: AudioVideoObserver, RealtimeObserver, DataMessageObserver, ActiveSpeakerObserver,
    MetricsObserver, @unchecked Sendable {
    private let prefix: String
    private let line: EventLine
    private let onStop: @Sendable (MeetingSessionStatus) -> Void
    private let onStart: @Sendable (Bool) -> Void
    private let onMessage: @Sendable (DataMessage) -> Void
    private let onRoster: @Sendable (RosterChange) -> Void
    private let onVolumes: @Sendable ([VolumeUpdate]) -> Void
    private let onActiveSpeakers: @Sendable ([String]) -> Void
    private let onVideoSources: @Sendable (_ available: [RemoteVideoSource], _ unavailable: [RemoteVideoSource]) -> Void

    /// What changed in the roster, for callers that track it (the demo waits on these).
    enum RosterChange {
        case joined([AttendeeInfo]), left([AttendeeInfo]), dropped([AttendeeInfo])
        case muted([AttendeeInfo]), unmuted([AttendeeInfo])
    }

    /// How long the session keeps reconnecting, said when it starts to (nil says nothing).
    private let reconnectTimeoutSeconds: Int?

    init(
        prefix: String,
        json: Bool = false,
        reconnectTimeoutSeconds: Int? = nil,
        output: @escaping @Sendable (String) -> Void = { StandardOutput.line($0) },
        onStart: @escaping @Sendable (Bool) -> Void = { _ in },
        onStop: @escaping @Sendable (MeetingSessionStatus) -> Void = { _ in },
        onMessage: @escaping @Sendable (DataMessage) -> Void = { _ in },
        onRoster: @escaping @Sendable (RosterChange) -> Void = { _ in },
        onVolumes: @escaping @Sendable ([VolumeUpdate]) -> Void = { _ in },
        onActiveSpeakers: @escaping @Sendable ([String]) -> Void = { _ in },
        onVideoSources: @escaping @Sendable (_ available: [RemoteVideoSource], _ unavailable: [RemoteVideoSource]) -> Void
            = { _, _ in }
    ) {
        self.prefix = prefix
        self.reconnectTimeoutSeconds = reconnectTimeoutSeconds
        self.line = EventLine(json: json, output: output)
        self.onStart = onStart
        self.onStop = onStop
        self.onMessage = onMessage
        self.onRoster = onRoster
        self.onVolumes = onVolumes
        self.onActiveSpeakers = onActiveSpeakers
        self.onVideoSources = onVideoSources
    }

    private func say(_ event: String, _ fields: [String: any Sendable], _ text: String) {
        line.emit(event, fields, text: "\(prefix)\(text)")
    }

    private func say(_ event: String, _ text: String) { say(event, [:], text) }

    /// The `--json` fields naming `attendees`: `attendees` (ExternalUserIds) and `attendeeIds`, in one order (by
    /// ExternalUserId), as every event names attendees (one attendee: `attendee` and `attendeeId`).
    private func people(_ attendees: [AttendeeInfo]) -> [String: any Sendable] {
        let sorted = attendees.sorted { ($0.externalUserId, $0.attendeeId) < ($1.externalUserId, $1.attendeeId) }
        return ["attendees": sorted.map(\.externalUserId), "attendeeIds": sorted.map(\.attendeeId)]
    }

    private func names(_ attendees: [AttendeeInfo]) -> String {
        attendees.map(\.externalUserId).sorted().joined(separator: ", ")
    }

    // MARK: AudioVideoObserver

    func audioSessionDidStartConnecting(reconnecting: Bool) {
        let limit = reconnectTimeoutSeconds.map { " (gives up after \($0) s without the server, --reconnect-timeout)" } ?? ""
        say("connecting", ["reconnecting": reconnecting], reconnecting ? "reconnecting...\(limit)" : "connecting...")
    }

    func audioSessionDidStart(reconnecting: Bool) {
        say("started", ["reconnecting": reconnecting], reconnecting ? "reconnected" : "in the meeting")
        onStart(reconnecting)
    }

    func audioSessionDidDrop() { say("dropped", "connection dropped") }

    func audioSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {
        say("stopped", ["status": "\(sessionStatus.statusCode)"], "session stopped (\(sessionStatus.statusCode))")
        onStop(sessionStatus)
    }

    func audioSessionDidCancelReconnect() { say("cancelledReconnect", "gave up reconnecting") }
    func connectionDidRecover() { say("connectionRecovered", "connection recovered") }
    func connectionDidBecomePoor() { say("connectionPoor", "connection became poor") }
    func videoSessionDidStartConnecting() {}
    func videoSessionDidStartWithStatus(sessionStatus: MeetingSessionStatus) {
        guard sessionStatus.statusCode != .ok else { return }
        say("videoStarted", ["status": "\(sessionStatus.statusCode)"], "video: \(sessionStatus.statusCode)")
    }
    func videoSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {}
    func remoteVideoSourcesDidBecomeAvailable(sources: [RemoteVideoSource]) { onVideoSources(sources, []) }
    func remoteVideoSourcesDidBecomeUnavailable(sources: [RemoteVideoSource]) { onVideoSources([], sources) }
    func cameraSendAvailabilityDidChange(available: Bool) {}

    // MARK: RealtimeObserver

    func volumeDidChange(volumeUpdates: [VolumeUpdate]) { onVolumes(volumeUpdates) }
    func signalStrengthDidChange(signalUpdates: [SignalUpdate]) {}

    func attendeesDidJoin(attendeeInfo: [AttendeeInfo]) {
        say("joined", people(attendeeInfo), "joined: \(names(attendeeInfo))")
        onRoster(.joined(attendeeInfo))
    }

    func attendeesDidLeave(attendeeInfo: [AttendeeInfo]) {
        say("left", people(attendeeInfo), "left: \(names(attendeeInfo))")
        onRoster(.left(attendeeInfo))
    }

    func attendeesDidDrop(attendeeInfo: [AttendeeInfo]) {
        say("dropped", people(attendeeInfo), "dropped: \(names(attendeeInfo))")
        onRoster(.dropped(attendeeInfo))
    }

    func attendeesDidMute(attendeeInfo: [AttendeeInfo]) {
        say("muted", people(attendeeInfo), "muted: \(names(attendeeInfo))")
        onRoster(.muted(attendeeInfo))
    }

    func attendeesDidUnmute(attendeeInfo: [AttendeeInfo]) {
        say("unmuted", people(attendeeInfo), "unmuted: \(names(attendeeInfo))")
        onRoster(.unmuted(attendeeInfo))
    }

    // MARK: ActiveSpeakerObserver

    var observerId: String { "carillon-cli-printer" }

    func activeSpeakerDidDetect(attendeeInfo: [AttendeeInfo]) {
        let names = attendeeInfo.map(\.externalUserId)
        // In the detector's order (most active first), not sorted.
        say("activeSpeakers", ["attendees": names, "attendeeIds": attendeeInfo.map(\.attendeeId)],
            names.isEmpty ? "active speakers: none" : "active speakers: \(names.joined(separator: ", "))")
        onActiveSpeakers(names)
    }

    // MARK: MetricsObserver

    func metricsDidReceive(metrics: [AnyHashable: Any]) {
        let values = metrics.compactMap { key, value -> (ObservableMetric, Double)? in
            guard let metric = key.base as? ObservableMetric, let number = value as? Double else { return nil }
            return (metric, number)
        }.sorted { $0.0.rawValue < $1.0.rawValue }
        say("metrics", Dictionary(uniqueKeysWithValues: values.map { ($0.0.description, $0.1 as any Sendable) }),
            "metrics: " + values.map { Self.describe($0.0, $0.1) }.joined(separator: ", "))
    }

    /// A metric with its unit, for text lines (`--json` keeps the SDK's numbers: percent, bit/s, fps, ms).
    static func describe(_ metric: ObservableMetric, _ value: Double) -> String {
        let name = metric.description
        if name.hasSuffix("Percent") { return String(format: "%@ %.1f %%", name, value) }
        if name.hasSuffix("Bitrate") || name.hasSuffix("Bandwidth") {
            return String(format: "%@ %.0f kbit/s", name, value / 1000)
        }
        if name.hasSuffix("Fps") { return String(format: "%@ %.1f fps", name, value) }
        if name.hasSuffix("RttMs") { return String(format: "%@ %.0f ms", name, value) }
        return String(format: "%@ %.1f", name, value)
    }

    // MARK: DataMessageObserver

    func dataMessageDidReceived(dataMessage: DataMessage) {
        let text = dataMessage.text() ?? "<\(dataMessage.data.count) bytes>"
        let sender = dataMessage.senderExternalUserId.isEmpty ? dataMessage.senderAttendeeId : dataMessage.senderExternalUserId
        say("dataMessage", ["topic": dataMessage.topic, "from": sender, "fromAttendeeId": dataMessage.senderAttendeeId,
                            "text": text, "throttled": dataMessage.throttled],
            dataMessage.throttled
            ? "message on \(dataMessage.topic) was throttled by the server: \(text)"
            : "message on \(dataMessage.topic) from \(sender): \(text)")
        onMessage(dataMessage)
    }
}
