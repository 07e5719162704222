import Carillon
import Foundation
import Synchronization

/// Records everything one SDK session reports, and lets a test wait for a condition on it.
final class SessionProbe: AudioVideoObserver, RealtimeObserver, DataMessageObserver, MetricsObserver, ActiveSpeakerObserver,
    Sendable {
    struct Record: Sendable {
        var events: [String] = []
        var roster: Set<String> = []
        var muted: Set<String> = []
        var dropped: [String] = []
        var left: [String] = []
        var messages: [DataMessage] = []
        var stopStatus: MeetingSessionStatusCode?
        var starts: [Bool] = []
        /// The latest signal strength reported per attendee id.
        var signals: [String: SignalStrength] = [:]
        /// The latest volume reported per attendee id.
        var volumes: [String: VolumeLevel] = [:]
        /// Every metrics report, by metric name.
        var metrics: [[String: Double]] = []
        /// The latest active-speaker list, by external user id.
        var activeSpeakers: [String] = []
    }

    let name: String
    private let record = Mutex(Record())

    init(name: String) { self.name = name }

    var snapshot: Record { record.withLock { $0 } }

    /// Waits until `condition` holds on the record, or fails after `timeout`.
    func wait(
        _ what: String,
        timeout: Duration = .seconds(10),
        until condition: (Record) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(snapshot) {
            guard ContinuousClock.now < deadline else {
                throw ProbeTimeout(description: "\(name): timed out waiting for \(what); saw \(snapshot.events)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    private func note(_ event: String, _ change: (inout Record) -> Void = { _ in }) {
        record.withLock {
            $0.events.append(event)
            change(&$0)
        }
    }

    func audioSessionDidStartConnecting(reconnecting: Bool) { note("connecting(\(reconnecting))") }
    func audioSessionDidStart(reconnecting: Bool) { note("start(\(reconnecting))") { $0.starts.append(reconnecting) } }
    func audioSessionDidDrop() { note("drop") }
    func audioSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {
        note("stop(\(sessionStatus.statusCode))") { $0.stopStatus = sessionStatus.statusCode }
    }
    func audioSessionDidCancelReconnect() { note("cancelReconnect") }
    func connectionDidRecover() { note("recover") }
    func connectionDidBecomePoor() { note("poor") }
    func videoSessionDidStartConnecting() {}
    func videoSessionDidStartWithStatus(sessionStatus: MeetingSessionStatus) {}
    func videoSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {}
    func remoteVideoSourcesDidBecomeAvailable(sources: [RemoteVideoSource]) {}
    func remoteVideoSourcesDidBecomeUnavailable(sources: [RemoteVideoSource]) {}
    func cameraSendAvailabilityDidChange(available: Bool) {}
    func volumeDidChange(volumeUpdates: [VolumeUpdate]) {
        record.withLock { record in
            for update in volumeUpdates { record.volumes[update.attendeeInfo.externalUserId] = update.volumeLevel }
        }
    }

    func signalStrengthDidChange(signalUpdates: [SignalUpdate]) {
        record.withLock { record in
            for update in signalUpdates { record.signals[update.attendeeInfo.externalUserId] = update.signalStrength }
        }
    }

    func attendeesDidJoin(attendeeInfo: [AttendeeInfo]) {
        let names = attendeeInfo.map(\.externalUserId)
        note("join(\(names.sorted()))") { $0.roster.formUnion(names) }
    }

    func attendeesDidLeave(attendeeInfo: [AttendeeInfo]) {
        let names = attendeeInfo.map(\.externalUserId)
        note("leave(\(names.sorted()))") {
            $0.roster.subtract(names)
            $0.left += names
        }
    }

    func attendeesDidDrop(attendeeInfo: [AttendeeInfo]) {
        let names = attendeeInfo.map(\.externalUserId)
        note("dropped(\(names.sorted()))") {
            $0.roster.subtract(names)
            $0.dropped += names
        }
    }

    func attendeesDidMute(attendeeInfo: [AttendeeInfo]) {
        let names = attendeeInfo.map(\.externalUserId)
        note("mute(\(names.sorted()))") { $0.muted.formUnion(names) }
    }

    func attendeesDidUnmute(attendeeInfo: [AttendeeInfo]) {
        let names = attendeeInfo.map(\.externalUserId)
        note("unmute(\(names.sorted()))") { $0.muted.subtract(names) }
    }

    func metricsDidReceive(metrics: [AnyHashable: Any]) {
        var report: [String: Double] = [:]
        for (key, value) in metrics {
            if let metric = key.base as? ObservableMetric, let value = value as? Double { report[metric.description] = value }
        }
        record.withLock { $0.metrics.append(report) }
    }

    var observerId: String { "probe-\(name)" }

    func activeSpeakerDidDetect(attendeeInfo: [AttendeeInfo]) {
        let names = attendeeInfo.map(\.externalUserId)
        record.withLock { $0.activeSpeakers = names }
    }

    func dataMessageDidReceived(dataMessage: DataMessage) {
        note("message(\(dataMessage.topic))") { $0.messages.append(dataMessage) }
    }
}

struct ProbeTimeout: Error, CustomStringConvertible {
    let description: String
}
