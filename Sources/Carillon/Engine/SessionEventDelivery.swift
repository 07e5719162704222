import CarillonCodecs
import Dispatch

/// What a session tells the app: each ``SessionEvent`` and the media side's deliveries (remote video frames and
/// announcements, metrics, connection verdicts) to the observers on the callback queue, with the meeting events of
/// the analytics and the log lines that go with them. `SessionEngine`'s half that talks to the app, apart from its
/// I/O.
///
/// Threading: called on the session's event loop only (it keeps whether the current start reached the meeting);
/// observers run on the callback queue.
final class SessionEventDelivery {
    private let observers: ObserverRegistry
    private let analytics: DefaultEventAnalyticsController?
    private let callbackQueue: DispatchQueue
    private let logger: any Logger
    /// Whether the current start reached the meeting: a stop before that is `meetingStartFailed`.
    private var startSucceeded = false
    /// The app's `RemoteVideoSource` objects, one per attendee id (reused, as apps key subscriptions by them).
    /// Confined to the callback queue.
    private let remoteVideoSources = RemoteVideoSourceCache()
    /// The session's active-speaker detector, on this loop too: fed the roster and volumes directly.
    private let activeSpeakerDetector: DefaultActiveSpeakerDetector?
    /// Where remote video goes (the tile controller); set once by the facade before `start`.
    var remoteVideoSink: (any RemoteVideoFrameSink)?

    init(observers: ObserverRegistry, analytics: DefaultEventAnalyticsController?, callbackQueue: DispatchQueue,
         logger: any Logger, activeSpeakerDetector: DefaultActiveSpeakerDetector? = nil) {
        self.activeSpeakerDetector = activeSpeakerDetector
        self.observers = observers
        self.analytics = analytics
        self.callbackQueue = callbackQueue
        self.logger = logger
    }

    /// The media side's deliveries: remote video, metrics and connection verdicts (others are not the app's).
    func deliver(_ effect: SessionMediaEffect, now: SessionTime) {
        let observers = self.observers
        switch effect {
        case .remoteVideoFrame(let image, let timestamp, let videoId, let attendeeId):
            guard let sink = remoteVideoSink else { return }
            callbackQueue.async {
                sink.remoteVideoFrame(image, timestampNanoseconds: timestamp, videoId: videoId,
                                      attendeeId: attendeeId, pausedForPoorConnection: false)
            }
        case .remoteVideoArrived(let width, let height, let timestamp, let videoId, let attendeeId):
            guard let sink = remoteVideoSink else { return }
            callbackQueue.async {
                sink.remoteVideoArrived(width: width, height: height, timestampNanoseconds: timestamp,
                                        videoId: videoId, attendeeId: attendeeId)
            }
        case .remoteVideoPausedAtSource(let videoId, let attendeeId):
            guard let sink = remoteVideoSink else { return }
            let timestamp = Int64(truncatingIfNeeded: now.monotonic.uptimeNanoseconds)
            callbackQueue.async {
                sink.remoteVideoFrame(nil, timestampNanoseconds: timestamp, videoId: videoId, attendeeId: attendeeId,
                                      pausedForPoorConnection: true)
            }
        case .metrics(let metrics):
            deliver(metrics)
        case .connectionBecamePoor:
            logger.info(msg: "the connection became poor (under half of the expected audio arrives)")
            analytics?.connectionBecamePoor()
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.connectionDidBecomePoor() } }
        case .connectionRecovered:
            logger.info(msg: "the connection recovered")
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.connectionDidRecover() } }
        default:
            break
        }
    }

    /// The meeting event of a stop: `meetingStartFailed` before the meeting was reached, `meetingEnded` for a leave
    /// or an end the server decided (hung up, joined elsewhere, call ended), `meetingFailed` otherwise.
    private func publishStop(_ code: MeetingSessionStatusCode) {
        guard let analytics else { return }
        let status: [AnyHashable: Any] = [EventAttributeName.meetingStatus: code.description]
        var failure = status
        failure[EventAttributeName.meetingErrorMessage] = "session stopped with \(code)"
        if !startSucceeded {
            analytics.publishEvent(name: .meetingStartFailed, attributes: failure)
        } else if [.ok, .audioServerHungup, .audioJoinedFromAnotherDevice, .audioCallEnded].contains(code) {
            analytics.publishEvent(name: .meetingEnded, attributes: status)
        } else {
            analytics.publishEvent(name: .meetingFailed, attributes: failure)
        }
    }

    private func deliver(_ metrics: [ObservableMetric: Double]) {
        let observers = self.observers
        callbackQueue.async {
            let dictionary = Dictionary(uniqueKeysWithValues: metrics.map { (AnyHashable($0.key), $0.value as Any) })
            observers.metricsObservers.forEach { $0.metricsDidReceive(metrics: dictionary) }
        }
    }

    /// Tells the app about `event` (and the analytics).
    func deliver(_ event: SessionEvent) {
        // The detector runs on this loop: the roster and volumes reach it without the callback queue's round trip.
        activeSpeakerDetector?.sessionEvent(event)
        let observers = self.observers
        let logger = self.logger
        switch event {
        case .startConnecting(let reconnecting):
            if reconnecting {
                analytics?.reconnecting()
            } else {
                startSucceeded = false
                analytics?.publishEvent(name: .meetingStartRequested)
            }
            logger.info(msg: reconnecting ? "reconnecting" : "connecting")
            callbackQueue.async {
                observers.audioVideoObservers.forEach { $0.audioSessionDidStartConnecting(reconnecting: reconnecting) }
                // The video side connects with the session (one connection carries both).
                if !reconnecting { observers.audioVideoObservers.forEach { $0.videoSessionDidStartConnecting() } }
            }
        case .started(let reconnecting):
            startSucceeded = true
            analytics?.publishEvent(name: reconnecting ? .meetingReconnected : .meetingStartSucceeded)
            logger.info(msg: reconnecting ? "reconnected" : "joined the meeting")
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.audioSessionDidStart(reconnecting: reconnecting) } }
        case .dropped:
            logger.info(msg: "connection dropped")
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.audioSessionDidDrop() } }
        case .cancelledReconnect:
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.audioSessionDidCancelReconnect() } }
        case .stopped(let code):
            publishStop(code)
            logger.info(msg: "session stopped: \(code)")
            let status = MeetingSessionStatus(statusCode: code)
            let videoStatus = MeetingSessionStatus(statusCode: code == .ok ? .ok : .videoServiceUnavailable)
            callbackQueue.async {
                observers.audioVideoObservers.forEach { $0.audioSessionDidStopWithStatus(sessionStatus: status) }
                observers.audioVideoObservers.forEach { $0.videoSessionDidStopWithStatus(sessionStatus: videoStatus) }
            }
        case .roster(let changes):
            callbackQueue.async {
                for observer in observers.realtimeObservers {
                    if !changes.joined.isEmpty { observer.attendeesDidJoin(attendeeInfo: changes.joined) }
                    if !changes.left.isEmpty { observer.attendeesDidLeave(attendeeInfo: changes.left) }
                    if !changes.dropped.isEmpty { observer.attendeesDidDrop(attendeeInfo: changes.dropped) }
                    if !changes.muted.isEmpty { observer.attendeesDidMute(attendeeInfo: changes.muted) }
                    if !changes.unmuted.isEmpty { observer.attendeesDidUnmute(attendeeInfo: changes.unmuted) }
                }
            }
        case .remoteVideoSources(let available, let unavailable):
            let cache = remoteVideoSources
            callbackQueue.async {
                let gone = cache.remove(unavailable)
                let added = cache.sources(for: available)
                if !gone.isEmpty { observers.audioVideoObservers.forEach { $0.remoteVideoSourcesDidBecomeUnavailable(sources: gone) } }
                if !added.isEmpty { observers.audioVideoObservers.forEach { $0.remoteVideoSourcesDidBecomeAvailable(sources: added) } }
            }
        case .videoStarted(let code):
            logger.info(msg: "video started: \(code)")
            let status = MeetingSessionStatus(statusCode: code)
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.videoSessionDidStartWithStatus(sessionStatus: status) } }
        case .cameraSendAvailability(let available):
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.cameraSendAvailabilityDidChange(available: available) } }
        case .volumes(let updates):
            callbackQueue.async { observers.realtimeObservers.forEach { $0.volumeDidChange(volumeUpdates: updates) } }
        case .signalStrengths(let updates):
            callbackQueue.async { observers.realtimeObservers.forEach { $0.signalStrengthDidChange(signalUpdates: updates) } }
        case .dataMessages(let messages):
            callbackQueue.async {
                for message in messages {
                    observers.dataMessageObservers(topic: message.topic).forEach { $0.dataMessageDidReceived(dataMessage: message) }
                }
            }
        }
    }
}
