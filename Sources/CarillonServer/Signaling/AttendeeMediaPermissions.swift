import CarillonProtocol

/// What one signaling session may send and receive, from its attendee's capabilities (`SendReceive`, `Send`,
/// `Receive`, `None`; `control-api.md` §7.2): enforced by ``MeetingSignalingCore`` when the session joins, subscribes
/// and publishes, and again at once when UpdateAttendeeCapabilities changes them.
///
/// An attendee's main session sends audio and camera video by its Audio and Video capabilities, hears the meeting by
/// Audio, and receives cameras by Video and content shares by Content; its `#content` session sends by Content (the
/// share's audio with it) and receives nothing.
public struct AttendeeMediaPermissions: Hashable, Sendable {
    /// Its audio is mixed (otherwise it is held muted).
    public var sendsAudio: Bool
    /// It hears the meeting (otherwise its downlink carries silence).
    public var receivesAudio: Bool
    /// It may publish video: the camera, or for a `#content` session the share.
    public var sendsVideo: Bool
    /// It may receive other attendees' cameras.
    public var receivesVideo: Bool
    /// It may receive content shares.
    public var receivesContent: Bool

    /// Everything allowed (`SendReceive` for all three).
    public static let all = AttendeeMediaPermissions(sendsAudio: true, sendsVideo: true, receivesVideo: true,
                                                     receivesContent: true)

    /// Creates permissions member by member.
    public init(sendsAudio: Bool, receivesAudio: Bool = true, sendsVideo: Bool, receivesVideo: Bool,
                receivesContent: Bool) {
        self.sendsAudio = sendsAudio
        self.receivesAudio = receivesAudio
        self.sendsVideo = sendsVideo
        self.receivesVideo = receivesVideo
        self.receivesContent = receivesContent
    }

    /// The permissions of an attendee's main session (`contentSession` false) or of its `#content` session; absent
    /// capabilities are `SendReceive`.
    public init(_ capabilities: ControlAPI.AttendeeCapabilities?, contentSession: Bool = false) {
        let content = Self.sends(capabilities?.content)
        if contentSession {
            self.init(sendsAudio: content, receivesAudio: false, sendsVideo: content, receivesVideo: false,
                      receivesContent: false)
        } else {
            self.init(sendsAudio: Self.sends(capabilities?.audio), receivesAudio: Self.receives(capabilities?.audio),
                      sendsVideo: Self.sends(capabilities?.video),
                      receivesVideo: Self.receives(capabilities?.video), receivesContent: Self.receives(capabilities?.content))
        }
    }

    private static func sends(_ capability: String?) -> Bool {
        capability == nil || capability == "SendReceive" || capability == "Send"
    }

    private static func receives(_ capability: String?) -> Bool {
        capability == nil || capability == "SendReceive" || capability == "Receive"
    }
}
