import Dispatch

/// The SDK's entry point: builds a session for one attendee of one meeting.
///
/// Threading: observers of this session are called asynchronously, in order, on its callback queue: a private
/// serial queue by default, or the one given to ``init(configuration:logger:callbackQueue:)`` (e.g. `.main` for a UI
/// app that runs the main queue).
public final class DefaultMeetingSession: MeetingSession, @unchecked Sendable {
    /// The configuration the session was created with.
    public let configuration: MeetingSessionConfiguration
    /// The logger the session writes to.
    public let logger: any Logger
    /// Session control and realtime features.
    public let audioVideo: any AudioVideoFacade

    /// Creates a session whose callbacks run on a private serial queue.
    public convenience init(configuration: MeetingSessionConfiguration, logger: any Logger) {
        self.init(configuration: configuration, logger: logger,
                  callbackQueue: DispatchQueue(label: "carillon.session.\(configuration.credentials.attendeeId)"))
    }

    /// Creates a session whose callbacks run on `callbackQueue` (which should be serial to keep their order).
    public init(configuration: MeetingSessionConfiguration, logger: any Logger, callbackQueue: DispatchQueue) {
        self.configuration = configuration
        self.logger = logger
        self.audioVideo = DefaultAudioVideoFacade(configuration: configuration, logger: logger, callbackQueue: callbackQueue)
    }
}
