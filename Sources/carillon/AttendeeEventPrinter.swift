import Carillon
import Foundation

/// Prints one headless attendee's session events, roster changes, active speakers and data messages as readable
/// lines, and hands volumes to whoever tracks them (printing every volume change would flood the output).
///
/// Threading: called on the session's serial callback queue; `output` must be safe to call from it.
final class AttendeeEventPrinter: AudioVideoObserver, RealtimeObserver, DataMessageObserver, ActiveSpeakerObserver,
    MetricsObserver, @unchecked Sendable {
    private let prefix: String
    private let output: @Sendable (String) -> Void
    private let onStop: @Sendable (MeetingSessionStatus) -> Void
    private let onStart: @Sendable (Bool) -> Void
    private let onMessage: @Sendable (DataMessage) -> Void
    private let onRoster: @Sendable (RosterChange) -> Void
    private let onVolumes: @Sendable ([VolumeUpdate]) -> Void
    private let onActiveSpeakers: @Sendable ([String]) -> Void

    /// What changed in the roster, for callers that track it (the demo waits on these).
    enum RosterChange {
        case joined([AttendeeInfo]), left([AttendeeInfo]), dropped([AttendeeInfo])
        case muted([AttendeeInfo]), unmuted([AttendeeInfo])
    }

    init(
        prefix: String,
        output: @escaping @Sendable (String) -> Void = { StandardOutput.line($0) },
        onStart: @escaping @Sendable (Bool) -> Void = { _ in },
        onStop: @escaping @Sendable (MeetingSessionStatus) -> Void = { _ in },
        onMessage: @escaping @Sendable (DataMessage) -> Void = { _ in },
        onRoster: @escaping @Sendable (RosterChange) -> Void = { _ in },
        onVolumes: @escaping @Sendable ([VolumeUpdate]) -> Void = { _ in },
        onActiveSpeakers: @escaping @Sendable ([String]) -> Void = { _ in }
    ) {
        self.prefix = prefix
        self.output = output
        self.onStart = onStart
        self.onStop = onStop
        self.onMessage = onMessage
        self.onRoster = onRoster
        self.onVolumes = onVolumes
        self.onActiveSpeakers = onActiveSpeakers
    }

    private func say(_ text: String) { output("\(prefix)\(text)") }

    private func names(_ attendees: [AttendeeInfo]) -> String {
        attendees.map(\.externalUserId).sorted().joined(separator: ", ")
    }

    // MARK: AudioVideoObserver

    func audioSessionDidStartConnecting(reconnecting: Bool) {
        say(reconnecting ? "reconnecting..." : "connecting...")
    }

    func audioSessionDidStart(reconnecting: Bool) {
        say(reconnecting ? "reconnected" : "in the meeting")
        onStart(reconnecting)
    }

    func audioSessionDidDrop() { say("connection dropped") }

    func audioSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {
        say("session stopped (\(sessionStatus.statusCode))")
        onStop(sessionStatus)
    }

    func audioSessionDidCancelReconnect() { say("gave up reconnecting") }
    func connectionDidRecover() { say("connection recovered") }
    func connectionDidBecomePoor() { say("connection became poor") }
    func videoSessionDidStartConnecting() {}
    func videoSessionDidStartWithStatus(sessionStatus: MeetingSessionStatus) {}
    func videoSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {}
    func remoteVideoSourcesDidBecomeAvailable(sources: [RemoteVideoSource]) {}
    func remoteVideoSourcesDidBecomeUnavailable(sources: [RemoteVideoSource]) {}
    func cameraSendAvailabilityDidChange(available: Bool) {}

    // MARK: RealtimeObserver

    func volumeDidChange(volumeUpdates: [VolumeUpdate]) { onVolumes(volumeUpdates) }
    func signalStrengthDidChange(signalUpdates: [SignalUpdate]) {}

    func attendeesDidJoin(attendeeInfo: [AttendeeInfo]) {
        say("joined: \(names(attendeeInfo))")
        onRoster(.joined(attendeeInfo))
    }

    func attendeesDidLeave(attendeeInfo: [AttendeeInfo]) {
        say("left: \(names(attendeeInfo))")
        onRoster(.left(attendeeInfo))
    }

    func attendeesDidDrop(attendeeInfo: [AttendeeInfo]) {
        say("dropped: \(names(attendeeInfo))")
        onRoster(.dropped(attendeeInfo))
    }

    func attendeesDidMute(attendeeInfo: [AttendeeInfo]) {
        say("muted: \(names(attendeeInfo))")
        onRoster(.muted(attendeeInfo))
    }

    func attendeesDidUnmute(attendeeInfo: [AttendeeInfo]) {
        say("unmuted: \(names(attendeeInfo))")
        onRoster(.unmuted(attendeeInfo))
    }

    // MARK: ActiveSpeakerObserver

    var observerId: String { "carillon-cli-printer" }

    func activeSpeakerDidDetect(attendeeInfo: [AttendeeInfo]) {
        let names = attendeeInfo.map(\.externalUserId)
        say(names.isEmpty ? "active speakers: none" : "active speakers: \(names.joined(separator: ", "))")
        onActiveSpeakers(names)
    }

    // MARK: MetricsObserver

    func metricsDidReceive(metrics: [AnyHashable: Any]) {
        let values = metrics.compactMap { key, value -> (ObservableMetric, Double)? in
            guard let metric = key.base as? ObservableMetric, let number = value as? Double else { return nil }
            return (metric, number)
        }.sorted { $0.0.rawValue < $1.0.rawValue }
        say("metrics: " + values.map { String(format: "%@ %.1f", $0.0.description, $0.1) }.joined(separator: ", "))
    }

    // MARK: DataMessageObserver

    func dataMessageDidReceived(dataMessage: DataMessage) {
        let text = dataMessage.text() ?? "<\(dataMessage.data.count) bytes>"
        let sender = dataMessage.senderExternalUserId.isEmpty ? dataMessage.senderAttendeeId : dataMessage.senderExternalUserId
        say(dataMessage.throttled
            ? "message on \(dataMessage.topic) was throttled by the server: \(text)"
            : "message on \(dataMessage.topic) from \(sender): \(text)")
        onMessage(dataMessage)
    }
}
