/// A meeting session: its configuration, logger and `audioVideo` facade.
public protocol MeetingSession: AnyObject {
    /// What the session joins.
    var configuration: MeetingSessionConfiguration { get }
    /// Where the session logs.
    var logger: any Logger { get }
    /// Session control and realtime.
    var audioVideo: any AudioVideoFacade { get }
    /// The session's event analytics (meeting events, history); apps may publish their own events through it.
    var eventAnalyticsController: any EventAnalyticsController { get }
}
