/// A meeting as CreateMeeting returns it. Decodable from the REST API's JSON.
public final class Meeting: Decodable, Sendable {
    let externalMeetingId: String?
    let mediaPlacement: MediaPlacement
    let meetingFeatures: MeetingFeatures
    let mediaRegion: String
    let meetingId: String
    let primaryMeetingId: String?

    enum CodingKeys: String, CodingKey {
        case externalMeetingId = "ExternalMeetingId", mediaPlacement = "MediaPlacement", meetingFeatures = "MeetingFeatures"
        case mediaRegion = "MediaRegion", meetingId = "MeetingId", primaryMeetingId = "PrimaryMeetingId"
    }

    private struct Features: Decodable {
        struct Resolution: Decodable {
            let maxResolution: String?
            enum CodingKeys: String, CodingKey { case maxResolution = "MaxResolution" }
        }
        let video: Resolution?
        let content: Resolution?
        enum CodingKeys: String, CodingKey { case video = "Video", content = "Content" }
    }

    /// Creates a meeting with default features and no primary meeting.
    public convenience init(externalMeetingId: String?, mediaPlacement: MediaPlacement, mediaRegion: String, meetingId: String) {
        self.init(externalMeetingId: externalMeetingId, mediaPlacement: mediaPlacement, meetingFeatures: MeetingFeatures(),
                  mediaRegion: mediaRegion, meetingId: meetingId, primaryMeetingId: nil)
    }

    /// Creates a meeting.
    public init(externalMeetingId: String?, mediaPlacement: MediaPlacement, meetingFeatures: MeetingFeatures,
                mediaRegion: String, meetingId: String, primaryMeetingId: String?) {
        self.externalMeetingId = externalMeetingId
        self.mediaPlacement = mediaPlacement
        self.meetingFeatures = meetingFeatures
        self.mediaRegion = mediaRegion
        self.meetingId = meetingId
        self.primaryMeetingId = primaryMeetingId
    }

    /// Decodes a `Meeting` object of the API's JSON; unknown keys are ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        meetingId = try container.decode(String.self, forKey: .meetingId)
        externalMeetingId = try container.decodeIfPresent(String.self, forKey: .externalMeetingId)
        mediaRegion = try container.decodeIfPresent(String.self, forKey: .mediaRegion) ?? ""
        mediaPlacement = try container.decode(MediaPlacement.self, forKey: .mediaPlacement)
        primaryMeetingId = try container.decodeIfPresent(String.self, forKey: .primaryMeetingId)
        let features = try container.decodeIfPresent(Features.self, forKey: .meetingFeatures)
        meetingFeatures = MeetingFeatures(video: features?.video?.maxResolution, content: features?.content?.maxResolution)
    }
}
