/// Everything a session needs to join: meeting id, attendee credentials, service URLs and meeting features.
public final class MeetingSessionConfiguration: Sendable {
    /// Meeting id.
    public let meetingId: String
    /// The builder's id for the meeting.
    public let externalMeetingId: String?
    /// Attendee credentials.
    public let credentials: MeetingSessionCredentials
    /// Service URLs (already rewritten).
    public let urls: MeetingSessionURLs
    /// The rewriter applied to service URLs.
    public let urlRewriter: URLRewriter
    /// Resolution caps of the meeting.
    public let meetingFeatures: MeetingFeatures
    /// Primary meeting of a replica meeting.
    public let primaryMeetingId: String?

    /// From CreateMeeting and CreateAttendee responses, URLs unchanged.
    public convenience init(createMeetingResponse: CreateMeetingResponse, createAttendeeResponse: CreateAttendeeResponse) {
        self.init(createMeetingResponse: createMeetingResponse, createAttendeeResponse: createAttendeeResponse,
                  urlRewriter: URLRewriterUtils.defaultUrlRewriter)
    }

    /// From CreateMeeting and CreateAttendee responses, passing every URL through `urlRewriter`.
    public init(createMeetingResponse: CreateMeetingResponse, createAttendeeResponse: CreateAttendeeResponse,
                urlRewriter: @escaping URLRewriter) {
        let meeting = createMeetingResponse.meeting
        let attendee = createAttendeeResponse.attendee
        self.meetingId = meeting.meetingId
        self.externalMeetingId = meeting.externalMeetingId
        self.credentials = MeetingSessionCredentials(
            attendeeId: attendee.attendeeId,
            externalUserId: attendee.externalUserId,
            joinToken: attendee.joinToken
        )
        self.urls = MeetingSessionURLs(
            audioFallbackUrl: meeting.mediaPlacement.audioFallbackUrl,
            audioHostUrl: meeting.mediaPlacement.audioHostUrl,
            turnControlUrl: meeting.mediaPlacement.turnControlUrl,
            signalingUrl: meeting.mediaPlacement.signalingUrl,
            urlRewriter: urlRewriter,
            ingestionUrl: meeting.mediaPlacement.eventIngestionUrl
        )
        self.urlRewriter = urlRewriter
        self.meetingFeatures = meeting.meetingFeatures
        self.primaryMeetingId = meeting.primaryMeetingId
    }

    /// From ids; `urls` are kept as given.
    public convenience init(meetingId: String, credentials: MeetingSessionCredentials, urls: MeetingSessionURLs,
                            urlRewriter: @escaping URLRewriter) {
        self.init(meetingId: meetingId, externalMeetingId: nil, credentials: credentials, urls: urls,
                  urlRewriter: urlRewriter, primaryMeetingId: nil, meetingFeatures: MeetingFeatures())
    }

    /// From ids with an external meeting id.
    public convenience init(meetingId: String, externalMeetingId: String?, credentials: MeetingSessionCredentials,
                            urls: MeetingSessionURLs, urlRewriter: @escaping URLRewriter) {
        self.init(meetingId: meetingId, externalMeetingId: externalMeetingId, credentials: credentials, urls: urls,
                  urlRewriter: urlRewriter, primaryMeetingId: nil, meetingFeatures: MeetingFeatures())
    }

    /// From ids with meeting features.
    public convenience init(meetingId: String, externalMeetingId: String?, credentials: MeetingSessionCredentials,
                            urls: MeetingSessionURLs, urlRewriter: @escaping URLRewriter, meetingFeatures: MeetingFeatures) {
        self.init(meetingId: meetingId, externalMeetingId: externalMeetingId, credentials: credentials, urls: urls,
                  urlRewriter: urlRewriter, primaryMeetingId: nil, meetingFeatures: meetingFeatures)
    }

    /// From ids with a primary meeting id.
    public convenience init(meetingId: String, externalMeetingId: String?, credentials: MeetingSessionCredentials,
                            urls: MeetingSessionURLs, urlRewriter: @escaping URLRewriter, primaryMeetingId: String?) {
        self.init(meetingId: meetingId, externalMeetingId: externalMeetingId, credentials: credentials, urls: urls,
                  urlRewriter: urlRewriter, primaryMeetingId: primaryMeetingId, meetingFeatures: MeetingFeatures())
    }

    /// The designated initialiser.
    public init(meetingId: String, externalMeetingId: String?, credentials: MeetingSessionCredentials,
                urls: MeetingSessionURLs, urlRewriter: @escaping URLRewriter, primaryMeetingId: String?,
                meetingFeatures: MeetingFeatures) {
        self.meetingId = meetingId
        self.externalMeetingId = externalMeetingId
        self.credentials = credentials
        self.urls = urls
        self.urlRewriter = urlRewriter
        self.primaryMeetingId = primaryMeetingId
        self.meetingFeatures = meetingFeatures
    }
}
