import CarillonProtocol
import Foundation

/// Persistent meetings, attendees, tags, idempotency records and server settings.
///
/// The seam for scaling out: today `SQLiteMeetingStore`, later a database shared by several control nodes.
/// Threading: implementations are safe from any task.
public protocol MeetingStore: Sendable {
    /// Stores a new meeting, remembering `idempotencyKey` (access key id, ClientRequestToken, fingerprint of the
    /// request) in the same transaction when given.
    func insertMeeting(_ meeting: MeetingRecord, idempotencyKey: IdempotencyKey?) async throws
    /// The meeting an earlier request with this access key and token created, with that request's fingerprint.
    func idempotentMeeting(accessKeyId: String, token: String) async throws -> (meetingId: String, fingerprint: String)?
    /// Forgets the idempotency records of meetings created before `date` (a retry of such a request creates a new
    /// meeting); returns how many it removed.
    func expireIdempotencyRecords(createdBefore date: Date) async throws -> Int
    /// One meeting.
    func meeting(id: String) async throws -> MeetingRecord?
    /// All meetings, oldest first.
    func meetings() async throws -> [MeetingRecord]
    /// Up to `limit` meetings created after the one numbered `sequence` (0 from the first), oldest first, each with
    /// its number (the cursor for the next page).
    func meetings(after sequence: Int64, limit: Int) async throws -> [(record: MeetingRecord, sequence: Int64)]
    /// How many meetings and attendees the store holds (metrics and readiness).
    func counts() async throws -> (meetings: Int, attendees: Int)
    /// Deletes a meeting with its attendees and tags; false when it did not exist.
    func deleteMeeting(id: String) async throws -> Bool
    /// Adds an attendee unless the ExternalUserId exists (returns that one) or the meeting is full.
    func insertAttendee(_ attendee: AttendeeRecord, limit: Int) async throws -> AttendeeInsertion
    /// One attendee of a meeting.
    func attendee(meetingId: String, attendeeId: String) async throws -> AttendeeRecord?
    /// The attendee holding a join token.
    func attendee(joinToken: String) async throws -> AttendeeRecord?
    /// Up to `limit` attendees of a meeting created after `sequence`, in creation order.
    func attendees(meetingId: String, after sequence: Int64, limit: Int) async throws -> [AttendeeRecord]
    /// Deletes an attendee; false when it did not exist.
    func deleteAttendee(meetingId: String, attendeeId: String) async throws -> Bool
    /// Replaces the capabilities of the given attendees (or of all but `excluding` when `attendeeIds` is nil);
    /// returns the updated records.
    func updateCapabilities(meetingId: String, attendeeIds: [String]?, excluding: Set<String>,
                            capabilities: ControlAPI.AttendeeCapabilities) async throws -> [AttendeeRecord]
    /// The tags of a meeting.
    func tags(meetingId: String) async throws -> [ControlAPI.Tag]
    /// Replaces the whole tag set of a meeting.
    func setTags(meetingId: String, tags: [ControlAPI.Tag]) async throws
    /// A server setting.
    func setting(_ key: String) async throws -> String?
    /// Stores a server setting.
    func setSetting(_ key: String, value: String) async throws
    /// The setting, after storing `value` when the key has none: of several nodes starting at once with their own
    /// values, one wins and every one reads the winner's.
    func setting(_ key: String, orInsert value: String) async throws -> String

    // MARK: Media capture pipelines

    /// Stores a new pipeline unless its meeting already has an active one or `activeLimit` pipelines are active; with
    /// an idempotency key, a repeat of the same request returns the pipeline it created.
    func insertCapturePipeline(_ pipeline: MediaCapturePipelineRecord, idempotencyKey: IdempotencyKey?,
                               activeLimit: Int) async throws -> MediaCapturePipelineInsertion
    /// One pipeline.
    func capturePipeline(id: String) async throws -> MediaCapturePipelineRecord?
    /// Up to `limit` pipelines created after the one numbered `sequence` (0 from the first), oldest first, each with its
    /// number (the cursor for the next page).
    func capturePipelines(after sequence: Int64, limit: Int) async throws -> [(record: MediaCapturePipelineRecord, sequence: Int64)]
    /// Every pipeline whose status is not final (Initializing, InProgress, Stopping), oldest first.
    func unfinishedCapturePipelines() async throws -> [MediaCapturePipelineRecord]
    /// Moves a pipeline to `status` at `date` if its status is one of `from`; returns the record as it is afterwards
    /// (nil for an unknown id).
    func updateCapturePipeline(id: String, status: MediaCapturePipelineStatus, from: Set<MediaCapturePipelineStatus>,
                               at date: Date) async throws -> MediaCapturePipelineRecord?
}
