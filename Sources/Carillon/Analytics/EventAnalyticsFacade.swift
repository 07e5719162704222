/// The analytics part of `audioVideo`: event observers, the meeting history and the attributes common to every event.
public protocol EventAnalyticsFacade: AnyObject {
    /// Adds an observer (kept strongly until removed, as in Chime).
    func addEventAnalyticsObserver(observer: any EventAnalyticsObserver)
    /// Removes an observer.
    func removeEventAnalyticsObserver(observer: any EventAnalyticsObserver)
    /// Every event published since the session was created, oldest first (never reset, as in Chime).
    func getMeetingHistory() -> [MeetingHistoryEvent]
    /// The attributes of the session and platform every event report carries: `meetingId`, `attendeeId`,
    /// `externalUserId`, `externalMeetingId` (when set), device, OS and SDK names and versions.
    func getCommonEventAttributes() -> [AnyHashable: Any]
}
