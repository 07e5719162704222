import NIOCore

/// The sans-IO active-speaker detector (`policies.md` §1.4, `api-inventory.md` §1.4): fed presence and volume
/// changes with the current time, it returns the callbacks to deliver and reports when it next needs to run.
///
/// It never reads the clock, starts timers or dispatches; its owner calls ``advance(to:)`` at ``nextDeadline`` and
/// delivers the returned ``Event``s in order on the callback queue.
///
/// Mechanics (constants as in the Chime SDKs):
/// * A volume update stamps the attendee's last activity, remembers its level, and scores it with each
///   policy; a score that differs from the stored one is stored (also stamping the activity) and may change the list.
/// * Every 200 ms (a grid per policy, starting when the policy is first registered) every attendee without activity
///   for more than 1000 ms is re-scored with its last level (see the second difference below).
/// * A join adds the attendee with score 0; a leave or drop sets the score to 0, updates the list, then forgets the
///   attendee (it no longer appears in score maps).
/// * The list is rebuilt only when the attendee whose score changed enters or leaves it (score > 0 versus
///   membership): all attendees with score > 0, highest score first, equal scores by attendee id. Each rebuild is
///   delivered to the policy's observers.
/// * Bandwidth priority: the local attendee heads some policy's list and that policy prioritises; changes are
///   reported as ``Event/bandwidthPriorityChanged(_:)``.
///
/// Differences from the Chime SDK (deliberate):
/// * Chime keeps one score map and list for all observers, so observers with different policies overwrite each
///   other's scores and a shared policy instance is stepped once per observer. Here each policy instance has its own
///   scores and list, and is called once per update.
/// * Chime re-scores an idle attendee as silent (`.notSpeaking`, or `.muted`), whatever its last level. Volume updates
///   come only when a level changes (`policies.md` §1.1), so Chime relies on levels that fluctuate all the time; a
///   steady talker (a tone, a loud constant voice) gets one update and is then decayed as if silent, and each
///   other talker's first update erodes it to 0 (`takeoverRate` 0.2 > the first score 0.1): three steady talkers
///   collapse to the last one within about a second. Here the idle re-scoring uses the attendee's last level, so an
///   unchanged speaking level keeps counting as speaking and equal steady talkers keep their places (each at 0.1,
///   each re-scoring eroding the others, no list change). Silence still decays exactly as in Chime: the realtime
///   layer reports the change to `.notSpeaking` (Carillon's server reports a level that stops within 200 ms), and
///   from then on the timer decays the score by 0.9 about once a second.
struct ActiveSpeakerDetector {
    /// How often idle attendees are re-scored (`activityUpdateIntervalMs`).
    static let activityUpdateInterval: TimeAmount = .milliseconds(200)
    /// How long without activity before an attendee is re-scored with its last level (`activityWaitIntervalMs`).
    static let activityWaitInterval: TimeAmount = .milliseconds(1000)

    /// A callback to deliver.
    enum Event {
        /// `observer.activeSpeakerDidDetect(attendeeInfo: attendees)`.
        case activeSpeakers(observer: any ActiveSpeakerObserver, attendees: [AttendeeInfo])
        /// `observer.activeSpeakerScoreDidChange(scores: scores)`.
        case scores(observer: any ActiveSpeakerObserver, scores: [AttendeeInfo: Double])
        /// The local attendee gained or lost video send bandwidth priority.
        case bandwidthPriorityChanged(Bool)
    }

    private struct Registration {
        let observer: any ActiveSpeakerObserver
        let policyKey: ObjectIdentifier
        let scoresInterval: TimeAmount?
        var nextScores: NIODeadline?
    }

    private struct PolicyState {
        let policy: any ActiveSpeakerPolicy
        var scores: [AttendeeInfo: Double] = [:]
        var lastActivity: [AttendeeInfo: NIODeadline] = [:]
        var activeSpeakers: [AttendeeInfo] = []
        var nextTick: NIODeadline
        var observerIds: [String] = []
    }

    private let selfAttendeeId: String
    /// Known attendees and their last volume level (`.notSpeaking` until the first update), which the idle
    /// re-scoring repeats.
    private var attendees: [AttendeeInfo: VolumeLevel] = [:]
    private var registrations: [String: Registration] = [:]
    private var registrationOrder: [String] = []
    private var states: [ObjectIdentifier: PolicyState] = [:]
    private var stateOrder: [ObjectIdentifier] = []
    private(set) var hasBandwidthPriority = false

    /// Creates a detector for the session of `selfAttendeeId`.
    init(selfAttendeeId: String) {
        self.selfAttendeeId = selfAttendeeId
    }

    /// When ``advance(to:)`` must next run; nil while no observer is registered.
    var nextDeadline: NIODeadline? {
        let ticks = states.values.map(\.nextTick)
        let scores = registrations.values.compactMap(\.nextScores)
        return (ticks + scores).min()
    }

    /// The current list of the policy `observer` was registered with (empty when it is not registered).
    func activeSpeakers(for observer: any ActiveSpeakerObserver) -> [AttendeeInfo] {
        registrations[observer.observerId].flatMap { states[$0.policyKey]?.activeSpeakers } ?? []
    }

    // MARK: Registrations

    /// Registers `observer` with `policy`, replacing an observer with the same id; returns the current list for it
    /// when that list is not empty.
    mutating func addObserver(policy: any ActiveSpeakerPolicy, observer: any ActiveSpeakerObserver, at now: NIODeadline) -> [Event] {
        let key = ObjectIdentifier(policy)
        var events = removeObserver(observerId: observer.observerId, keeping: key)
        if states[key] == nil {
            var state = PolicyState(policy: policy, nextTick: now + Self.activityUpdateInterval)
            for attendee in attendees.keys {
                state.scores[attendee] = 0
                state.lastActivity[attendee] = now
            }
            states[key] = state
            stateOrder.append(key)
        }
        states[key]?.observerIds.append(observer.observerId)
        let intervalMs = observer.scoresCallbackIntervalMs
        let interval: TimeAmount? = intervalMs > 0 ? .milliseconds(Int64(intervalMs)) : nil
        registrations[observer.observerId] = Registration(
            observer: observer,
            policyKey: key,
            scoresInterval: interval,
            nextScores: interval.map { now + $0 }
        )
        registrationOrder.append(observer.observerId)
        if let list = states[key]?.activeSpeakers, !list.isEmpty {
            events.append(.activeSpeakers(observer: observer, attendees: list))
        }
        return events
    }

    /// Unregisters the observer with `observer.observerId`; no further events name it.
    mutating func removeObserver(_ observer: any ActiveSpeakerObserver) -> [Event] {
        removeObserver(observerId: observer.observerId, keeping: nil)
    }

    /// Removes a registration, and its policy's state when no other registration uses it (unless it is `kept`).
    private mutating func removeObserver(observerId: String, keeping kept: ObjectIdentifier?) -> [Event] {
        guard let registration = registrations.removeValue(forKey: observerId) else { return [] }
        registrationOrder.removeAll { $0 == observerId }
        let key = registration.policyKey
        states[key]?.observerIds.removeAll { $0 == observerId }
        if key != kept, states[key]?.observerIds.isEmpty == true {
            states[key] = nil
            stateOrder.removeAll { $0 == key }
            return updateBandwidthPriority()
        }
        return []
    }

    // MARK: Inputs

    /// Attendees joined: each unknown one gets score 0 with every policy.
    mutating func attendeesDidJoin(_ joined: [AttendeeInfo], at now: NIODeadline) -> [Event] {
        var events: [Event] = []
        for attendee in joined where attendees[attendee] == nil {
            attendees[attendee] = .notSpeaking
            for key in stateOrder {
                states[key]?.scores[attendee] = 0
                states[key]?.lastActivity[attendee] = now
                events += updateActiveSpeakers(key, changed: attendee)
            }
        }
        return events
    }

    /// Attendees left or dropped: score 0 (leaving the list, if they were in it), then forgotten.
    mutating func attendeesDidLeave(_ left: [AttendeeInfo], at now: NIODeadline) -> [Event] {
        var events: [Event] = []
        for attendee in left where attendees[attendee] != nil {
            attendees[attendee] = nil
            for key in stateOrder {
                states[key]?.scores[attendee] = 0
                events += updateActiveSpeakers(key, changed: attendee)
                states[key]?.scores[attendee] = nil
                states[key]?.lastActivity[attendee] = nil
            }
        }
        return events
    }

    /// Forgets every attendee, as if all left (for the end of a session).
    mutating func removeAllAttendees(at now: NIODeadline) -> [Event] {
        attendeesDidLeave(attendees.keys.sorted(), at: now)
    }

    /// Volume changes, in order; an attendee not seen before joins implicitly.
    mutating func volumeDidChange(_ updates: [VolumeUpdate], at now: NIODeadline) -> [Event] {
        var events: [Event] = []
        for update in updates {
            let attendee = update.attendeeInfo
            attendees[attendee] = update.volumeLevel
            for key in stateOrder {
                states[key]?.lastActivity[attendee] = now
                events += updateScore(key, attendee: attendee, volume: update.volumeLevel, at: now)
            }
        }
        return events
    }

    /// Runs what is due at `now`: the silence re-scoring of each policy and the score callbacks.
    ///
    /// A late call runs each due timer once, at `now`, and keeps its grid.
    mutating func advance(to now: NIODeadline) -> [Event] {
        var events: [Event] = []
        for key in stateOrder {
            guard let state = states[key], state.nextTick <= now else { continue }
            states[key]?.nextTick = state.nextTick.nextOnGrid(period: Self.activityUpdateInterval, after: now)
            for attendee in state.scores.keys.sorted() {
                guard let last = states[key]?.lastActivity[attendee], now - last > Self.activityWaitInterval else { continue }
                events += updateScore(key, attendee: attendee, volume: attendees[attendee] ?? .notSpeaking, at: now)
            }
        }
        for id in registrationOrder {
            guard let registration = registrations[id], let due = registration.nextScores, due <= now,
                let interval = registration.scoresInterval
            else { continue }
            registrations[id]?.nextScores = due.nextOnGrid(period: interval, after: now)
            events.append(.scores(observer: registration.observer, scores: states[registration.policyKey]?.scores ?? [:]))
        }
        return events
    }

    // MARK: Scoring

    private mutating func updateScore(_ key: ObjectIdentifier, attendee: AttendeeInfo, volume: VolumeLevel, at now: NIODeadline) -> [Event] {
        guard let state = states[key] else { return [] }
        let score = state.policy.calculateScore(attendeeInfo: attendee, volume: volume)
        guard state.scores[attendee] != score else { return [] }
        states[key]?.scores[attendee] = score
        states[key]?.lastActivity[attendee] = now
        return updateActiveSpeakers(key, changed: attendee)
    }

    private mutating func updateActiveSpeakers(_ key: ObjectIdentifier, changed attendee: AttendeeInfo) -> [Event] {
        guard let state = states[key] else { return [] }
        let active = (state.scores[attendee] ?? 0) > 0
        guard active != state.activeSpeakers.contains(attendee) else { return [] }
        let list = state.scores.filter { $0.value > 0 }
            .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map(\.key)
        states[key]?.activeSpeakers = list
        var events: [Event] = state.observerIds.compactMap { id in
            registrations[id].map { .activeSpeakers(observer: $0.observer, attendees: list) }
        }
        events += updateBandwidthPriority()
        return events
    }

    private mutating func updateBandwidthPriority() -> [Event] {
        let priority = stateOrder.contains { key in
            guard let state = states[key] else { return false }
            return state.activeSpeakers.first?.attendeeId == selfAttendeeId
                && state.policy.prioritizeVideoSendBandwidthForActiveSpeaker()
        }
        guard priority != hasBandwidthPriority else { return [] }
        hasBandwidthPriority = priority
        return [.bandwidthPriorityChanged(priority)]
    }
}
