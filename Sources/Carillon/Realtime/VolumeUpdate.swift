/// A change of one attendee's volume.
public final class VolumeUpdate: Sendable {
    /// Whose volume.
    public let attendeeInfo: AttendeeInfo
    /// The new level.
    public let volumeLevel: VolumeLevel

    /// Creates an update.
    public init(attendeeInfo: AttendeeInfo, volumeLevel: VolumeLevel) {
        self.attendeeInfo = attendeeInfo
        self.volumeLevel = volumeLevel
    }
}
