/// A change of one attendee's signal strength.
public final class SignalUpdate: Sendable {
    /// Whose signal.
    public let attendeeInfo: AttendeeInfo
    /// The new strength.
    public let signalStrength: SignalStrength

    /// Creates an update.
    public init(attendeeInfo: AttendeeInfo, signalStrength: SignalStrength) {
        self.attendeeInfo = attendeeInfo
        self.signalStrength = signalStrength
    }
}
