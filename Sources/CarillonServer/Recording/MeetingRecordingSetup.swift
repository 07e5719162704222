/// What a meeting's recorder writes: a media capture pipeline's artifacts as the control API accepted them.
struct MeetingRecordingSetup: Sendable, Equatable {
    /// The pipeline it records for.
    var pipelineId: String
    /// The mix in `audio/`.
    var recordsAudio = true
    /// Cameras in `video/`.
    var recordsVideo = true
    /// Content shares in `content/`.
    var recordsContent = true
    /// Only these attendees' cameras (by attendee id or ExternalUserId); every camera when both are nil.
    var selectedAttendeeIds: Set<String>?
    var selectedExternalUserIds: Set<String>?
    /// How long each file runs before the next starts, ms; nil: one file per stream.
    var chunkMilliseconds: Int64?

    /// Whether the camera of this attendee is recorded.
    func recordsCamera(attendeeId: String, externalUserId: String?) -> Bool {
        guard recordsVideo else { return false }
        guard selectedAttendeeIds != nil || selectedExternalUserIds != nil else { return true }
        if selectedAttendeeIds?.contains(attendeeId) == true { return true }
        if let externalUserId, selectedExternalUserIds?.contains(externalUserId) == true { return true }
        return false
    }
}
