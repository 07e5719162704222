/// Publishes events: to the history, to the reporter (if the session has one) and to observers. Apps may publish
/// their own events too.
public protocol EventAnalyticsController: EventAnalyticsFacade {
    /// Publishes `name` with no attributes of its own, notifying observers.
    func publishEvent(name: EventName)
    /// Publishes `name` with `attributes`, notifying observers.
    func publishEvent(name: EventName, attributes: [AnyHashable: Any])
    /// Publishes `name` with `attributes`; observers are called only when `notifyObservers` is true.
    func publishEvent(name: EventName, attributes: [AnyHashable: Any], notifyObservers: Bool)
    /// Appends a history entry without publishing an event.
    func pushHistory(historyEventName: MeetingHistoryEventName)
}
