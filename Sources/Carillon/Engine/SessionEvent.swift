import CarillonProtocol

/// What the app is told, in order.
enum SessionEvent: Sendable {
    case startConnecting(reconnecting: Bool)
    case started(reconnecting: Bool)
    case dropped
    case cancelledReconnect
    case stopped(MeetingSessionStatusCode)
    case roster(RosterChanges)
    case dataMessages([DataMessage])
    case volumes([VolumeUpdate])
    case signalStrengths([SignalUpdate])
    /// Attendees whose video became available (in INDEX) or went away.
    case remoteVideoSources(available: [String], unavailable: [String])
    /// The video side started: `.ok`, or `.videoAtCapacityViewOnly` when the server refused this attendee's video.
    case videoStarted(MeetingSessionStatusCode)
    /// Whether this attendee may start sending video changed (INDEX `at_capacity`).
    case cameraSendAvailability(Bool)
}
