import CarillonProtocol

/// A stored attendee.
public struct AttendeeRecord: Sendable, Equatable {
    /// Meeting the attendee belongs to.
    public var meetingId: String
    /// Lowercase UUID.
    public var attendeeId: String
    /// The builder's id for the attendee, unique within the meeting.
    public var externalUserId: String
    /// Secret the attendee's client joins with.
    public var joinToken: String
    /// What the attendee may send and receive.
    public var capabilities: ControlAPI.AttendeeCapabilities
    /// Creation order within the store, for stable pagination.
    public var sequence: Int64

    /// Creates a record.
    public init(meetingId: String, attendeeId: String, externalUserId: String, joinToken: String,
                capabilities: ControlAPI.AttendeeCapabilities, sequence: Int64 = 0) {
        self.meetingId = meetingId
        self.attendeeId = attendeeId
        self.externalUserId = externalUserId
        self.joinToken = joinToken
        self.capabilities = capabilities
        self.sequence = sequence
    }
}
