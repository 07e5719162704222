/// What one SUBSCRIBE/SUBSCRIBE_ACK settled about video, for the media side.
struct SessionVideoNegotiation: Sendable, Equatable {
    /// One receive m-line and the stream the server sends on it (SUBSCRIBE_ACK `tracks`).
    struct Track: Sendable, Equatable {
        var mid: String
        var streamId: UInt32
        /// The source (INDEX `group_id`) the stream is a layer of: the video's id, kept while the server switches
        /// layers or the subscription moves to another layer of the same source.
        var groupId: UInt32
        /// The SSRC the server declared for it.
        var ssrc: UInt32
        /// Whose stream it is (from the INDEX the SUBSCRIBE was made with).
        var attendeeId: String
    }

    /// The plan the offer was made from.
    var plan: SessionMediaPlan
    /// The streams received.
    var tracks: [Track]
    /// The server refused this attendee's video (status 206): nothing is sent on the camera m-line.
    var sendingRefused: Bool
    /// The stream id the server allocated to this attendee's camera (SUBSCRIBE_ACK `allocations`), 0 when none.
    var sendStreamId: UInt32 = 0
}
