/// Mute, Voice Focus, roster observers and data messages.
public protocol RealtimeControllerFacade: AnyObject {
    /// Mutes the microphone: nothing is sent and the other attendees see the mute. Works from the moment `start()`
    /// returns (join muted: media connects muted); false when the session is not started.
    func realtimeLocalMute() -> Bool
    /// Unmutes the microphone; like ``realtimeLocalMute()``, works from `start()` on; false when not started.
    func realtimeLocalUnmute() -> Bool
    /// Turns Voice Focus (noise suppression of the sent audio: fans, typing, background noise) on or off; returns
    /// whether the action was taken.
    ///
    /// Off by default whenever the session starts. `false`, with a log line saying why, when the session is not in
    /// the meeting (``VoiceFocusError/audioClientNotStarted``) or when the suppressor is not available on this
    /// machine (``VoiceFocusError/notInitialized``: no RNNoise library; `make rnnoise` installs it, or
    /// `CARILLON_RNNOISE_LIBRARY` names it). It applies from the next 20 ms frame and lasts across reconnections.
    /// Cost: about 4 % of one core while on (RNNoise at 48 kHz) and 20 ms of added delay. Any thread.
    func realtimeSetVoiceFocusEnabled(enabled: Bool) -> Bool
    /// Whether Voice Focus is on; `false` when the session is not in the meeting. Any thread.
    func realtimeIsVoiceFocusEnabled() -> Bool
    /// Adds a roster observer (kept strongly until removed).
    func addRealtimeObserver(observer: any RealtimeObserver)
    /// Removes a roster observer.
    func removeRealtimeObserver(observer: any RealtimeObserver)
    /// Adds an observer for one topic; works before `start()` so replayed messages are not missed.
    func addRealtimeDataMessageObserver(topic: String, observer: any DataMessageObserver)
    /// Removes every observer of `topic`.
    func removeRealtimeDataMessageObserverFromTopic(topic: String)
    /// Sends a data message to the other attendees.
    ///
    /// `data` may be a `String` (UTF-8), `[UInt8]`, `Data`, or a JSON array or dictionary. Throws
    /// `MediaError.illegalState` when the session is not in the meeting (Carillon reports this instead of dropping
    /// the message silently), else `SendDataMessageError` for a negative lifetime, a bad topic, unsupported data or
    /// more than 2048 bytes. A message with `lifetimeMs > 0` is kept by the server (at most five minutes) and
    /// replayed to attendees who join later.
    func realtimeSendDataMessage(topic: String, data: Any, lifetimeMs: Int32) throws
}
