/// How `start(audioVideoConfiguration:)` sets up the session.
public final class AudioVideoConfiguration: Sendable, CustomStringConvertible {
    /// `.stereo48K`.
    public static let defaultAudioMode: AudioMode = .stereo48K
    /// `.inputAndOutput`.
    public static let defaultAudioDeviceCapabilities: AudioDeviceCapabilities = .inputAndOutput
    /// `false`.
    public static let defaultCallKitEnabled = false
    /// `true`.
    public static let defaultEnableAudioRedundancy = true
    /// HD.
    public static let defaultVideoMaxResolution: VideoResolution = .videoResolutionHD
    /// 180 000 ms.
    public static let defaultReconnectTimeoutMs = 180_000

    /// Audio format.
    public let audioMode: AudioMode
    /// Which audio devices are opened.
    public let audioDeviceCapabilities: AudioDeviceCapabilities
    /// CallKit integration; meaningless on Linux, kept for source compatibility.
    public let callKitEnabled: Bool
    /// Redundant audio under loss.
    public let enableAudioRedundancy: Bool
    /// Stored only; the effective cap comes from `MeetingFeatures`, as in the Chime SDK.
    public let videoMaxResolution: VideoResolution
    /// How long the session keeps trying to reconnect after losing the connection, in milliseconds.
    public let reconnectTimeoutMs: Int

    /// All defaults.
    public convenience init() { self.init(audioMode: Self.defaultAudioMode) }
    /// Defaults but the audio mode.
    public convenience init(audioMode: AudioMode) { self.init(audioMode: audioMode, callKitEnabled: Self.defaultCallKitEnabled) }
    /// Defaults but the device capabilities.
    public convenience init(audioDeviceCapabilities: AudioDeviceCapabilities) {
        self.init(audioMode: Self.defaultAudioMode, audioDeviceCapabilities: audioDeviceCapabilities,
                  callKitEnabled: Self.defaultCallKitEnabled, enableAudioRedundancy: Self.defaultEnableAudioRedundancy,
                  videoMaxResolution: Self.defaultVideoMaxResolution, reconnectTimeoutMs: Self.defaultReconnectTimeoutMs)
    }
    /// Defaults but CallKit.
    public convenience init(callKitEnabled: Bool) { self.init(audioMode: Self.defaultAudioMode, callKitEnabled: callKitEnabled) }
    /// Defaults but audio redundancy.
    public convenience init(enableAudioRedundancy: Bool) {
        self.init(audioMode: Self.defaultAudioMode, callKitEnabled: Self.defaultCallKitEnabled,
                  enableAudioRedundancy: enableAudioRedundancy)
    }
    /// Defaults but the video resolution.
    public convenience init(videoMaxResolution: VideoResolution) {
        self.init(audioMode: Self.defaultAudioMode, callKitEnabled: Self.defaultCallKitEnabled,
                  enableAudioRedundancy: Self.defaultEnableAudioRedundancy, videoMaxResolution: videoMaxResolution)
    }
    /// Defaults but the reconnect budget.
    public convenience init(reconnectTimeoutMs: Int) {
        self.init(audioMode: Self.defaultAudioMode, audioDeviceCapabilities: Self.defaultAudioDeviceCapabilities,
                  callKitEnabled: Self.defaultCallKitEnabled, enableAudioRedundancy: Self.defaultEnableAudioRedundancy,
                  videoMaxResolution: Self.defaultVideoMaxResolution, reconnectTimeoutMs: reconnectTimeoutMs)
    }
    /// Audio mode and CallKit.
    public convenience init(audioMode: AudioMode, callKitEnabled: Bool) {
        self.init(audioMode: audioMode, callKitEnabled: callKitEnabled, enableAudioRedundancy: Self.defaultEnableAudioRedundancy)
    }
    /// Audio mode, CallKit and redundancy.
    public convenience init(audioMode: AudioMode, callKitEnabled: Bool, enableAudioRedundancy: Bool) {
        self.init(audioMode: audioMode, callKitEnabled: callKitEnabled, enableAudioRedundancy: enableAudioRedundancy,
                  videoMaxResolution: Self.defaultVideoMaxResolution)
    }
    /// Audio mode, CallKit, redundancy and video resolution.
    public convenience init(audioMode: AudioMode, callKitEnabled: Bool, enableAudioRedundancy: Bool,
                            videoMaxResolution: VideoResolution) {
        self.init(audioMode: audioMode, audioDeviceCapabilities: Self.defaultAudioDeviceCapabilities,
                  callKitEnabled: callKitEnabled, enableAudioRedundancy: enableAudioRedundancy,
                  videoMaxResolution: videoMaxResolution)
    }
    /// Everything but the reconnect budget.
    public convenience init(audioMode: AudioMode, audioDeviceCapabilities: AudioDeviceCapabilities, callKitEnabled: Bool,
                            enableAudioRedundancy: Bool, videoMaxResolution: VideoResolution) {
        self.init(audioMode: audioMode, audioDeviceCapabilities: audioDeviceCapabilities, callKitEnabled: callKitEnabled,
                  enableAudioRedundancy: enableAudioRedundancy, videoMaxResolution: videoMaxResolution,
                  reconnectTimeoutMs: Self.defaultReconnectTimeoutMs)
    }
    /// The designated initialiser.
    public init(audioMode: AudioMode, audioDeviceCapabilities: AudioDeviceCapabilities, callKitEnabled: Bool,
                enableAudioRedundancy: Bool, videoMaxResolution: VideoResolution, reconnectTimeoutMs: Int) {
        self.audioMode = audioMode
        self.audioDeviceCapabilities = audioDeviceCapabilities
        self.callKitEnabled = callKitEnabled
        self.enableAudioRedundancy = enableAudioRedundancy
        self.videoMaxResolution = videoMaxResolution
        self.reconnectTimeoutMs = reconnectTimeoutMs
    }

    /// The six fields as `name: value`, comma-separated.
    public var description: String {
        "audioMode: \(audioMode), audioDeviceCapabilities: \(audioDeviceCapabilities), callKitEnabled: \(callKitEnabled), "
            + "enableAudioRedundancy: \(enableAudioRedundancy), videoMaxResolution: \(videoMaxResolution), "
            + "reconnectTimeoutMs: \(reconnectTimeoutMs)"
    }
}
