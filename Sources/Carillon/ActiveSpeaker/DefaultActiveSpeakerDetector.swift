import CarillonRTC
import Dispatch
import NIOCore
import NIOPosix

/// The Chime active-speaker detector: a ``RealtimeObserver`` that turns the session's presence and volume callbacks
/// into ``ActiveSpeakerObserver`` callbacks, running the sans-IO ``ActiveSpeakerDetector`` with one timer.
///
/// Threading: every method may be called from any thread; the detector's state lives on one event loop (a session's
/// own loop for the detector of its `audioVideo`, any loop of the shared group otherwise), and observers are called
/// asynchronously on the callback queue (`DispatchQueue.main` for ``init(selfAttendeeId:)``, as in the Chime SDK; a
/// session passes its own callback queue).
public final class DefaultActiveSpeakerDetector: ActiveSpeakerDetectorFacade, RealtimeObserver, @unchecked Sendable {
    /// Carries app objects (observers, policies, updates) across the event-loop and queue hops.
    private struct Box<Value>: @unchecked Sendable { let value: Value }

    private let eventLoop: any EventLoop
    private let callbackQueue: DispatchQueue
    // Confined to `eventLoop`.
    private var detector: ActiveSpeakerDetector
    private lazy var timer = DeadlineTimer(eventLoop: eventLoop) { [weak self] in self?.apply { $0.advance(to: $1) } }

    /// Creates a detector for the session of `selfAttendeeId` that calls observers on `DispatchQueue.main`.
    public convenience init(selfAttendeeId: String) {
        self.init(selfAttendeeId: selfAttendeeId, callbackQueue: .main)
    }

    /// Creates a detector whose observers are called on `callbackQueue`, running on `eventLoop` (a session passes its
    /// own, so the session's state has one owner).
    init(
        selfAttendeeId: String,
        callbackQueue: DispatchQueue,
        eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()
    ) {
        self.detector = ActiveSpeakerDetector(selfAttendeeId: selfAttendeeId)
        self.callbackQueue = callbackQueue
        self.eventLoop = eventLoop
    }

    // MARK: ActiveSpeakerDetectorFacade

    /// See ``ActiveSpeakerDetectorFacade``.
    public func addActiveSpeakerObserver(policy: any ActiveSpeakerPolicy, observer: any ActiveSpeakerObserver) {
        let box = Box(value: (policy, observer))
        run { $0.addObserver(policy: box.value.0, observer: box.value.1, at: $1) }
    }

    /// See ``ActiveSpeakerDetectorFacade``.
    public func removeActiveSpeakerObserver(observer: any ActiveSpeakerObserver) {
        let box = Box(value: observer)
        run { detector, _ in detector.removeObserver(box.value) }
    }

    // MARK: RealtimeObserver

    /// Scores the changed volumes.
    public func volumeDidChange(volumeUpdates: [VolumeUpdate]) {
        run { $0.volumeDidChange(volumeUpdates, at: $1) }
    }

    /// Ignored.
    public func signalStrengthDidChange(signalUpdates: [SignalUpdate]) {}

    /// Adds the attendees with score 0.
    public func attendeesDidJoin(attendeeInfo: [AttendeeInfo]) {
        run { $0.attendeesDidJoin(attendeeInfo, at: $1) }
    }

    /// Removes the attendees (from the list, then from the scores).
    public func attendeesDidLeave(attendeeInfo: [AttendeeInfo]) {
        run { $0.attendeesDidLeave(attendeeInfo, at: $1) }
    }

    /// Removes the attendees, as for a leave.
    public func attendeesDidDrop(attendeeInfo: [AttendeeInfo]) {
        run { $0.attendeesDidLeave(attendeeInfo, at: $1) }
    }

    /// Ignored: mute is seen through `.muted` volume updates.
    public func attendeesDidMute(attendeeInfo: [AttendeeInfo]) {}

    /// Ignored.
    public func attendeesDidUnmute(attendeeInfo: [AttendeeInfo]) {}

    // MARK: Session hooks

    /// The session's roster changes and volumes, handed over on the session's loop (which is this detector's), so
    /// they are scored at once instead of going to the callback queue and back as an observer's would.
    func sessionEvent(_ event: SessionEvent) {
        switch event {
        case .volumes(let updates):
            apply { $0.volumeDidChange(updates, at: $1) }
        case .roster(let changes):
            if !changes.joined.isEmpty { apply { $0.attendeesDidJoin(changes.joined, at: $1) } }
            let gone = changes.left + changes.dropped
            if !gone.isEmpty { apply { $0.attendeesDidLeave(gone, at: $1) } }
        default:
            break
        }
    }

    /// Forgets every attendee (observers see the list empty); for the end of a session.
    func removeAllAttendees() {
        run { $0.removeAllAttendees(at: $1) }
    }

    // MARK: Running the detector

    private func run(_ step: @escaping (inout ActiveSpeakerDetector, NIODeadline) -> [ActiveSpeakerDetector.Event]) {
        let box = Box(value: step)
        eventLoop.execute { self.apply(box.value) }
    }

    private func apply(_ step: (inout ActiveSpeakerDetector, NIODeadline) -> [ActiveSpeakerDetector.Event]) {
        eventLoop.assertInEventLoop()
        let events = step(&detector, eventLoop.now)
        if !events.isEmpty {
            let box = Box(value: events)
            callbackQueue.async { Self.deliver(box.value) }
        }
        rescheduleTimer()
    }

    private static func deliver(_ events: [ActiveSpeakerDetector.Event]) {
        for event in events {
            switch event {
            case .activeSpeakers(let observer, let attendees): observer.activeSpeakerDidDetect(attendeeInfo: attendees)
            case .scores(let observer, let scores): observer.activeSpeakerScoreDidChange(scores: scores)
            case .bandwidthPriorityChanged: break  // Chime's hasBandwidthPriorityCallback is a no-op.
            }
        }
    }

    private func rescheduleTimer() {
        timer.follow(detector.nextDeadline)
    }
}
