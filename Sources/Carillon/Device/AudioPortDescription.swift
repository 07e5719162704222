/// The Linux stand-in for iOS's `AVAudioSessionPortDescription`, so that `MediaDevice(label:port:)` compiles and
/// maps a port type to a ``MediaDeviceType`` as the Chime SDK does.
///
/// Carillon's own device list does not use it (ALSA and virtual devices carry their endpoint internally); an app
/// makes one to describe a device, for example in code shared with its iOS build. A plain value, safe to share.
public struct AudioPortDescription: Hashable, Sendable {
    /// iOS's audio port types, by the names `AVAudioSession.Port` gives them.
    public enum PortType: String, Hashable, Sendable, CaseIterable {
        /// One of iOS's port types (see ``AudioPortDescription/mediaDeviceType`` for what each becomes).
        case bluetoothA2DP, bluetoothLE, bluetoothHFP, builtInReceiver, builtInMic, builtInSpeaker, headphones,
             headsetMic, usbAudio, lineIn, lineOut, hdmi, other
    }

    /// The port's type.
    public var portType: PortType
    /// The port's name, shown to people.
    public var portName: String
    /// A stable identifier of the port.
    public var uid: String

    /// Creates a port description.
    public init(portType: PortType, portName: String, uid: String = "") {
        self.portType = portType
        self.portName = portName
        self.uid = uid
    }

    /// The device type Chime gives a port: Bluetooth kinds → `audioBluetooth`; built-in receiver or microphone →
    /// `audioHandset`; headphones or headset microphone → `audioWiredHeadset`; built-in speaker →
    /// `audioBuiltInSpeaker`; anything else → `other`.
    public var mediaDeviceType: MediaDeviceType {
        switch portType {
        case .bluetoothA2DP, .bluetoothLE, .bluetoothHFP: .audioBluetooth
        case .builtInReceiver, .builtInMic: .audioHandset
        case .headphones, .headsetMic: .audioWiredHeadset
        case .builtInSpeaker: .audioBuiltInSpeaker
        case .usbAudio, .lineIn, .lineOut, .hdmi, .other: .other
        }
    }
}
