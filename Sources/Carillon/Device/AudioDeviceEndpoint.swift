/// What a ``MediaDevice`` stands for on this machine: the Linux counterpart of the iOS SDK's
/// `AVAudioSessionPortDescription` for audio devices, and of its `AVCaptureDevice` for cameras.
///
/// A plain value, safe to share.
enum AudioDeviceEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// Which way audio flows through a device.
    enum Direction: String, Hashable, Sendable {
        /// Captures audio for the session to send (a microphone).
        case input
        /// Plays what the session receives (a speaker).
        case output
    }

    /// Made by the app with `MediaDevice(label:type:)`: bound to nothing; a controller matches it to a listed device
    /// by label and type.
    case unspecified
    /// A device of a ``VirtualAudioDevices`` registry; `key` is unique within it (for example `tone:440`).
    case virtual(key: String, direction: Direction)
    /// An ALSA PCM device, `hw:<card>,<device>`.
    case alsa(card: Int, device: Int, direction: Direction)
    /// A camera of a ``VirtualVideoDevices`` registry; `key` is unique within it (for example `y4m:/tmp/a.y4m:4`).
    case virtualCamera(key: String)
    /// A V4L2 camera, by the path of its video node (for example `/dev/video0`).
    case v4l2Camera(path: String)

    /// The direction of audio, nil for ``unspecified`` and cameras.
    var direction: Direction? {
        switch self {
        case .unspecified, .virtualCamera, .v4l2Camera: nil
        case .virtual(_, let direction), .alsa(_, _, let direction): direction
        }
    }

    /// The ALSA name a session opens for PCM `device` of card `card`: `plughw:<card>,<device>`, the card's PCM behind
    /// ALSA's `plug` layer, which converts the session's rate and channel count to what the card takes.
    static func alsaPCMName(card: Int, device: Int) -> String { "plughw:\(card),\(device)" }

    /// A stable identifier such as `virtual:tone:440` or `alsa:hw:1,0:input`.
    var description: String {
        switch self {
        case .unspecified: "unspecified"
        case .virtual(let key, _): "virtual:\(key)"
        case .alsa(let card, let device, let direction): "alsa:hw:\(card),\(device):\(direction.rawValue)"
        case .virtualCamera(let key): "camera:\(key)"
        case .v4l2Camera(let path): "v4l2:\(path)"
        }
    }
}
