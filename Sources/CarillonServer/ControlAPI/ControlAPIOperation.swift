/// The control-API operations this server answers, named as Chime names them, and Carillon's own extension
/// (the `operation` label of the request metrics).
public enum ControlAPIOperation: String, Sendable, CaseIterable {
    /// CreateMeeting.
    case createMeeting = "CreateMeeting"
    /// CreateMeetingWithAttendees.
    case createMeetingWithAttendees = "CreateMeetingWithAttendees"
    /// ListMeetings.
    case listMeetings = "ListMeetings"
    /// GetMeeting.
    case getMeeting = "GetMeeting"
    /// DeleteMeeting.
    case deleteMeeting = "DeleteMeeting"
    /// CreateAttendee.
    case createAttendee = "CreateAttendee"
    /// BatchCreateAttendee.
    case batchCreateAttendee = "BatchCreateAttendee"
    /// ListAttendees.
    case listAttendees = "ListAttendees"
    /// GetAttendee.
    case getAttendee = "GetAttendee"
    /// DeleteAttendee.
    case deleteAttendee = "DeleteAttendee"
    /// BatchUpdateAttendeeCapabilitiesExcept.
    case batchUpdateAttendeeCapabilitiesExcept = "BatchUpdateAttendeeCapabilitiesExcept"
    /// UpdateAttendeeCapabilities.
    case updateAttendeeCapabilities = "UpdateAttendeeCapabilities"
    /// StartMeetingTranscription.
    case startMeetingTranscription = "StartMeetingTranscription"
    /// StopMeetingTranscription.
    case stopMeetingTranscription = "StopMeetingTranscription"
    /// TagResource.
    case tagResource = "TagResource"
    /// UntagResource.
    case untagResource = "UntagResource"
    /// ListTagsForResource.
    case listTagsForResource = "ListTagsForResource"
    /// CreateMediaCapturePipeline (Chime SDK Media Pipelines).
    case createMediaCapturePipeline = "CreateMediaCapturePipeline"
    /// GetMediaCapturePipeline.
    case getMediaCapturePipeline = "GetMediaCapturePipeline"
    /// ListMediaCapturePipelines.
    case listMediaCapturePipelines = "ListMediaCapturePipelines"
    /// DeleteMediaCapturePipeline.
    case deleteMediaCapturePipeline = "DeleteMediaCapturePipeline"
    /// Carillon's extension: the cluster's nodes (`GET /carillon/nodes`).
    case listNodes = "CarillonListNodes"
    /// Carillon's extension: every attendee of a meeting with its live state (`GET /carillon/meetings/{id}/attendees`).
    case listLiveAttendees = "CarillonListLiveAttendees"
    /// Carillon's extension: a guest invite link to a meeting (`POST /carillon/meetings/{id}/invites`).
    case createInvite = "CarillonCreateInvite"
    /// Carillon's guest join (`POST /join/<invite>`, from the join page): not signed, the invite is the credential.
    case guestJoin = "CarillonGuestJoin"

    /// The operation a request's method, path segments and `operation` query parameter name; nil for none.
    init?(method: String, segments: [String], operation: String?) {
        switch (method, segments.count, segments.first) {
        case ("POST", 1, "meetings"):
            self = operation == "create-attendees" ? .createMeetingWithAttendees : .createMeeting
        case ("GET", 1, "meetings"): self = .listMeetings
        case ("GET", 2, "meetings"): self = .getMeeting
        case ("DELETE", 2, "meetings"): self = .deleteMeeting
        case ("POST", 3, "meetings") where segments[2] == "attendees":
            self = operation == "batch-create" ? .batchCreateAttendee : .createAttendee
        case ("GET", 3, "meetings") where segments[2] == "attendees": self = .listAttendees
        case ("PUT", 4, "meetings") where segments[2] == "attendees" && segments[3] == "capabilities":
            self = .batchUpdateAttendeeCapabilitiesExcept
        case ("GET", 4, "meetings") where segments[2] == "attendees": self = .getAttendee
        case ("DELETE", 4, "meetings") where segments[2] == "attendees": self = .deleteAttendee
        case ("PUT", 5, "meetings") where segments[2] == "attendees" && segments[4] == "capabilities":
            self = .updateAttendeeCapabilities
        case ("POST", 3, "meetings") where segments[2] == "transcription" && operation == "start":
            self = .startMeetingTranscription
        case ("POST", 3, "meetings") where segments[2] == "transcription" && operation == "stop":
            self = .stopMeetingTranscription
        case ("POST", 1, "tags") where operation == "tag-resource": self = .tagResource
        case ("POST", 1, "tags") where operation == "untag-resource": self = .untagResource
        case ("GET", 1, "tags"): self = .listTagsForResource
        case ("POST", 1, "sdk-media-capture-pipelines"): self = .createMediaCapturePipeline
        case ("GET", 1, "sdk-media-capture-pipelines"): self = .listMediaCapturePipelines
        case ("GET", 2, "sdk-media-capture-pipelines"): self = .getMediaCapturePipeline
        case ("DELETE", 2, "sdk-media-capture-pipelines"): self = .deleteMediaCapturePipeline
        case ("GET", 2, "carillon") where segments[1] == "nodes": self = .listNodes
        case ("GET", 4, "carillon") where segments[1] == "meetings" && segments[3] == "attendees":
            self = .listLiveAttendees
        case ("POST", 4, "carillon") where segments[1] == "meetings" && segments[3] == "invites": self = .createInvite
        default: return nil
        }
    }
}
