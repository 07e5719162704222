/// One remote video stream a receiver asked for, resolved by the signaling core: whose it is and which socket's
/// media carries it.
public struct VideoSourceReference: Sendable, Equatable, Hashable {
    /// The socket (attendee session) that publishes the stream.
    public var publisher: SignalingConnectionID
    /// The stream id the receiver asked for.
    public var streamId: UInt32
    /// The source (publication) the stream belongs to.
    public var groupId: UInt32
    /// The publishing attendee.
    public var attendeeId: String

    /// Creates a reference.
    public init(publisher: SignalingConnectionID, streamId: UInt32, groupId: UInt32, attendeeId: String) {
        self.publisher = publisher
        self.streamId = streamId
        self.groupId = groupId
        self.attendeeId = attendeeId
    }
}
