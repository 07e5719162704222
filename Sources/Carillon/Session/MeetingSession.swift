/// A meeting session: its configuration, logger and `audioVideo` facade.
public protocol MeetingSession: AnyObject {
    /// What the session joins.
    var configuration: MeetingSessionConfiguration { get }
    /// Where the session logs.
    var logger: any Logger { get }
    /// Session control and realtime.
    var audioVideo: any AudioVideoFacade { get }
}
