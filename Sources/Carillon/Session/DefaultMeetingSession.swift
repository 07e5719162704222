import Dispatch

/// The SDK's entry point: builds a session for one attendee of one meeting.
///
/// Threading: observers of this session are called asynchronously, in order, on its callback queue: a private
/// serial queue by default, or the one given to ``init(configuration:logger:callbackQueue:)`` (e.g. `.main` for a UI
/// app that runs the main queue).
///
/// TLS: a `wss://` signaling URL is verified against ``TLSTrustRoots``: the system store plus `CARILLON_CA_FILE`
/// unless ``init(configuration:logger:callbackQueue:tlsTrustRoots:)`` names others.
public final class DefaultMeetingSession: MeetingSession, @unchecked Sendable {
    /// The configuration the session was created with.
    public let configuration: MeetingSessionConfiguration
    /// The logger the session writes to.
    public let logger: any Logger
    /// Session control and realtime features.
    public let audioVideo: any AudioVideoFacade
    /// The session's event analytics: meeting events to observers and the history, and to the reporter the
    /// ``EventReporterFactory`` made (none by default: Carillon has no ingestion service).
    public let eventAnalyticsController: any EventAnalyticsController

    /// Creates a session whose callbacks run on a private serial queue.
    public convenience init(configuration: MeetingSessionConfiguration, logger: any Logger) {
        self.init(configuration: configuration, logger: logger,
                  callbackQueue: DispatchQueue(label: "carillon.session.\(configuration.credentials.attendeeId)"))
    }

    /// Creates a session whose callbacks run on a private serial queue and whose events also go to the reporter
    /// `eventReporterFactory` makes.
    public convenience init(configuration: MeetingSessionConfiguration, logger: any Logger,
                            eventReporterFactory: any EventReporterFactory) {
        self.init(configuration: configuration, logger: logger,
                  callbackQueue: DispatchQueue(label: "carillon.session.\(configuration.credentials.attendeeId)"),
                  tlsTrustRoots: .fromEnvironment(), eventReporterFactory: eventReporterFactory)
    }

    /// Creates a session whose callbacks run on `callbackQueue` (which should be serial to keep their order).
    public convenience init(configuration: MeetingSessionConfiguration, logger: any Logger, callbackQueue: DispatchQueue) {
        self.init(configuration: configuration, logger: logger, callbackQueue: callbackQueue,
                  tlsTrustRoots: .fromEnvironment())
    }

    /// Creates a session whose `wss://` signaling trusts `tlsTrustRoots` (read now; an unreadable file makes
    /// `start()` throw `MediaError.audioFailedToStart`) and whose events also go to the reporter
    /// `eventReporterFactory` makes.
    public init(configuration: MeetingSessionConfiguration, logger: any Logger, callbackQueue: DispatchQueue,
                tlsTrustRoots: TLSTrustRoots,
                eventReporterFactory: any EventReporterFactory = NoopEventReporterFactory()) {
        self.configuration = configuration
        self.logger = logger
        let analytics = DefaultEventAnalyticsController(configuration: configuration, callbackQueue: callbackQueue,
                                                        reporter: eventReporterFactory.createEventReporter())
        self.eventAnalyticsController = analytics
        self.audioVideo = DefaultAudioVideoFacade(configuration: configuration, logger: logger, callbackQueue: callbackQueue,
                                                  tlsTrustRoots: tlsTrustRoots, analytics: analytics)
    }
}
