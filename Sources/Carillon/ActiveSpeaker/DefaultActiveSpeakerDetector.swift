import CarillonRTC
import Dispatch
import NIOCore
import NIOPosix

/// The Chime active-speaker detector: a ``RealtimeObserver`` that turns the session's presence and volume callbacks
/// into ``ActiveSpeakerObserver`` callbacks, running the sans-IO ``ActiveSpeakerDetector`` with one timer.
///
/// The policies are app code, so they run where the app's callbacks do: the detector's state lives on the callback
/// queue (`DispatchQueue.main` for ``init(selfAttendeeId:)``, as in the Chime SDK; a session passes its own callback
/// queue), which calls ``ActiveSpeakerPolicy/calculateScore(attendeeInfo:volume:)`` and the observers, never the
/// session's event loop. The clock and the timer are the event loop's (a session's own loop for the detector of its
/// `audioVideo`, any loop of the shared group otherwise): every input passes through the loop, which stamps it with
/// its `now` and hands it on to the queue, so inputs keep their order and time never goes back; after each step the
/// queue gives the loop the detector's next deadline, and the loop's timer hands the tick back.
///
/// Cost: one hop to the queue per input or tick, and one back to the loop per step (volumes change at most five
/// times a second). Threading: every method may be called from any thread; the event loop must accept work from
/// other threads (any NIO loop but `EmbeddedEventLoop`).
public final class DefaultActiveSpeakerDetector: ActiveSpeakerDetectorFacade, RealtimeObserver, @unchecked Sendable {
    /// Carries app objects (observers, policies, updates) across the event-loop and queue hops.
    private struct Box<Value>: @unchecked Sendable { let value: Value }
    private typealias Step = (inout ActiveSpeakerDetector, NIODeadline) -> [ActiveSpeakerDetector.Event]

    private let eventLoop: any EventLoop
    private let callbackQueue: DispatchQueue
    // Confined to `callbackQueue`.
    private var detector: ActiveSpeakerDetector
    // Confined to `eventLoop`.
    private lazy var timer = DeadlineTimer(eventLoop: eventLoop) { [weak self] in self?.stamp { $0.advance(to: $1) } }

    /// Creates a detector for the session of `selfAttendeeId` that calls observers on `DispatchQueue.main`.
    public convenience init(selfAttendeeId: String) {
        self.init(selfAttendeeId: selfAttendeeId, callbackQueue: .main)
    }

    /// Creates a detector whose policies and observers are called on `callbackQueue`, on the clock and timer of
    /// `eventLoop` (a session passes its own).
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

    /// The session's roster changes and volumes, handed over on the session's loop (which is this detector's clock),
    /// so they go to the callback queue once, not there and back as an observer's would.
    func sessionEvent(_ event: SessionEvent) {
        switch event {
        case .volumes(let updates):
            stamp { $0.volumeDidChange(updates, at: $1) }
        case .roster(let changes):
            if !changes.joined.isEmpty { stamp { $0.attendeesDidJoin(changes.joined, at: $1) } }
            let gone = changes.left + changes.dropped
            if !gone.isEmpty { stamp { $0.attendeesDidLeave(gone, at: $1) } }
        default:
            break
        }
    }

    /// Forgets every attendee (observers see the list empty); for the end of a session.
    func removeAllAttendees() {
        run { $0.removeAllAttendees(at: $1) }
    }

    // MARK: Running the detector

    /// From any thread: through the loop (for its `now`) to the queue.
    private func run(_ step: @escaping Step) {
        let box = Box(value: step)
        eventLoop.execute { self.stamp(box.value) }
    }

    /// On the loop: stamps `step` with the loop's `now` and hands it to the queue.
    private func stamp(_ step: @escaping Step) {
        eventLoop.assertInEventLoop()
        let now = eventLoop.now
        let box = Box(value: step)
        callbackQueue.async { self.apply(box.value, at: now) }
    }

    /// On the queue: runs `step`, calls the observers, and gives the loop the next deadline.
    private func apply(_ step: Step, at now: NIODeadline) {
        Self.deliver(step(&detector, now))
        let deadline = detector.nextDeadline
        eventLoop.execute { self.timer.follow(deadline) }
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
}
