/// What kind of device a ``MediaDevice`` is, with the Chime SDK's raw values.
///
/// On Linux the audio cases describe what a device most likely is, not an iOS audio route: see
/// ``DefaultDeviceController`` for how ALSA cards and the virtual devices map to them. A plain value, safe to share.
public enum MediaDeviceType: Int, CustomStringConvertible, Sendable, CaseIterable {
    /// A Bluetooth headset or speaker.
    case audioBluetooth = 0
    /// A wired (analogue or USB) headset or headphones.
    case audioWiredHeadset = 1
    /// The machine's own loudspeaker (on Linux: a built-in or default playback device).
    case audioBuiltInSpeaker = 2
    /// The machine's own microphone (on iOS the handset receiver and built-in microphone).
    case audioHandset = 3
    /// A front-facing camera.
    case videoFrontCamera = 4
    /// A back-facing camera.
    case videoBackCamera = 5
    /// Anything else: HDMI and loopback devices, and Carillon's virtual devices.
    case other = 6

    /// The case name.
    public var description: String {
        switch self {
        case .audioBluetooth: "audioBluetooth"
        case .audioWiredHeadset: "audioWiredHeadset"
        case .audioBuiltInSpeaker: "audioBuiltInSpeaker"
        case .audioHandset: "audioHandset"
        case .videoFrontCamera: "videoFrontCamera"
        case .videoBackCamera: "videoBackCamera"
        case .other: "other"
        }
    }
}
