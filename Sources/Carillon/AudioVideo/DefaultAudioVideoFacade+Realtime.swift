import CarillonCodecs
import Foundation

/// The realtime controller of the session: local mute, Voice Focus, realtime and data-message observers, and
/// sending data messages. Threading: any thread, as the rest of the facade.
extension DefaultAudioVideoFacade {

    /// See ``RealtimeControllerFacade``.
    public func realtimeLocalMute() -> Bool { engine?.setMuted(true) ?? false }
    /// See ``RealtimeControllerFacade``.
    public func realtimeLocalUnmute() -> Bool { engine?.setMuted(false) ?? false }
    /// See ``RealtimeControllerFacade``.
    public func realtimeSetVoiceFocusEnabled(enabled: Bool) -> Bool {
        let action = enabled ? "enable" : "disable"
        guard let engine else {
            logger.error(msg: "realtimeSetVoiceFocusEnabled: cannot \(action) Voice Focus: \(VoiceFocusError.audioClientNotStarted)")
            publishVoiceFocus(enabled, failure: .audioClientNotStarted)
            return false
        }
        var library: RNNoiseLibrary?
        if enabled {
            switch RNNoiseLibrary.shared {
            case .success(let loaded):
                library = loaded
            case .failure(let reason):
                logger.error(msg: "realtimeSetVoiceFocusEnabled: cannot enable Voice Focus: \(VoiceFocusError.notInitialized): \(reason)")
                publishVoiceFocus(enabled, failure: .notInitialized)
                return false
            }
        }
        if let error = engine.setVoiceFocus(library) {
            logger.error(msg: "realtimeSetVoiceFocusEnabled: cannot \(action) Voice Focus: \(error) (the session is not in the meeting)")
            publishVoiceFocus(enabled, failure: error)
            return false
        }
        logger.info(msg: "Voice Focus \(enabled ? "enabled with RNNoise from \(library?.path ?? "")" : "disabled")")
        publishVoiceFocus(enabled, failure: nil)
        return true
    }

    /// Records a Voice Focus change or refusal in the meeting history and for the event reporter, with the error as
    /// `voiceFocusError`; as in Chime, observers are not told.
    private func publishVoiceFocus(_ enabled: Bool, failure: VoiceFocusError?) {
        let name: EventName = switch (enabled, failure) {
        case (true, nil): .voiceFocusEnabled
        case (false, nil): .voiceFocusDisabled
        case (true, _): .voiceFocusEnableFailed
        case (false, _): .voiceFocusDisableFailed
        }
        let attributes: [AnyHashable: Any] = failure.map { [EventAttributeName.voiceFocusError: "\($0)"] } ?? [:]
        analytics.publishEvent(name: name, attributes: attributes, notifyObservers: false)
    }

    /// See ``RealtimeControllerFacade``.
    public func realtimeIsVoiceFocusEnabled() -> Bool {
        guard let engine, engine.isInMeeting else { return false }
        return engine.isVoiceFocusEnabled
    }

    /// See ``RealtimeControllerFacade``.
    public func addRealtimeObserver(observer: any RealtimeObserver) { observers.add(observer) }
    /// See ``RealtimeControllerFacade``.
    public func removeRealtimeObserver(observer: any RealtimeObserver) { observers.remove(observer) }

    /// See ``RealtimeControllerFacade``.
    public func addRealtimeDataMessageObserver(topic: String, observer: any DataMessageObserver) {
        observers.add(observer, topic: topic)
    }

    /// See ``RealtimeControllerFacade``.
    public func removeRealtimeDataMessageObserverFromTopic(topic: String) {
        observers.removeDataMessageObservers(topic: topic)
    }

    /// See ``RealtimeControllerFacade``.
    public func realtimeSendDataMessage(topic: String, data: Any, lifetimeMs: Int32 = 0) throws {
        guard let engine, engine.isInMeeting else {
            logger.error(msg: "realtimeSendDataMessage: the session is not in a meeting")
            throw MediaError.illegalState
        }
        let bytes = try DataMessagePayload.bytes(topic: topic, data: data, lifetimeMs: lifetimeMs)
        guard engine.sendDataMessage(topic: topic, data: bytes, lifetimeMs: lifetimeMs) else { throw MediaError.illegalState }
    }
}
