/// The states of one attendee's content share as a synchronous state machine (sans-IO): what
/// ``DefaultContentShareController`` does when the app starts or stops a share and when the share's session starts or
/// stops (`api-inventory.md` §2.11).
///
/// `connecting` → `sharing` when the share's session is in the meeting (`contentShareStarted`,
/// ``ContentShareObserver/contentShareDidStart()``); any stop of the session ends the share: `.ok` after the app's stop
/// (`contentShareStopped`, status ``ContentShareStatusCode/ok``), anything else a failure (`contentShareFailed`,
/// ``ContentShareStatusCode/videoServiceFailed``). Unlike Chime, a stop while still connecting stops the connection
/// (Chime ignores it), and a start while the previous session is still leaving waits for it and then starts.
///
/// Threading: not thread-safe; its owner guards it.
struct ContentShareLifecycle: Sendable, Equatable {
    enum State: Sendable, Equatable {
        case idle
        case connecting
        case sharing
        /// The app stopped; the session is leaving. `restart`: the app started again meanwhile.
        case stopping(restart: Bool)
    }

    /// What the owner does, in order.
    enum Effect: Sendable, Equatable {
        /// Publish this analytics event (with `contentShareError` when given).
        case publish(EventName, error: String?)
        /// Start the share's session (join as `<attendeeId>#content`).
        case startSession
        /// Hand the (new) source's frames to the session: attach it and send.
        case sendSource
        /// Stop the share's session (it leaves the meeting).
        case stopSession
        /// Stop sending and leave the source.
        case releaseSource
        /// Tell the observers the share started.
        case notifyStarted
        /// Tell the observers the share stopped with this status and, for a failure, the share session's status
        /// that caused it (the `contentShare*` metrics stop with it: they are only forwarded while sharing).
        case notifyStopped(ContentShareStatusCode, cause: MeetingSessionStatusCode?)
    }

    private(set) var state = State.idle

    /// Whether the share's session is in the meeting.
    var isSharing: Bool { state == .sharing }

    /// The app starts a share (or gives a running one a new source).
    mutating func start() -> [Effect] {
        let requested = Effect.publish(.contentShareStartRequested, error: nil)
        switch state {
        case .idle:
            state = .connecting
            return [requested, .startSession, .sendSource]
        case .connecting, .sharing:
            return [requested, .sendSource]
        case .stopping:
            state = .stopping(restart: true)
            return [requested]
        }
    }

    /// The app stops the share.
    mutating func stop() -> [Effect] {
        switch state {
        case .idle, .stopping(restart: false):
            return []
        case .stopping(restart: true):
            state = .stopping(restart: false)
            return []
        case .connecting, .sharing:
            state = .stopping(restart: false)
            return [.releaseSource, .stopSession]
        }
    }

    /// The share's session is in the meeting (`reconnecting`: again, after a drop, which the app is not told).
    mutating func sessionStarted(reconnecting: Bool) -> [Effect] {
        guard state == .connecting else { return [] }
        state = .sharing
        return [.publish(.contentShareStarted, error: nil), .notifyStarted]
    }

    /// The share's session stopped with `code` (`.ok` after a stop the app asked for).
    mutating func sessionStopped(_ code: MeetingSessionStatusCode) -> [Effect] {
        let restart = state == .stopping(restart: true)
        let asked = if case .stopping = state { true } else { false }
        guard state != .idle else { return [] }
        state = .idle
        var effects: [Effect] = [.releaseSource]
        if code == .ok && asked {
            effects += [.publish(.contentShareStopped, error: nil), .notifyStopped(.ok, cause: nil)]
        } else {
            effects += [.publish(.contentShareFailed, error: "\(code)"), .notifyStopped(.videoServiceFailed, cause: code)]
        }
        if restart {
            state = .connecting
            effects += [.startSession, .sendSource]
        }
        return effects
    }
}
