/// Receives the events a session publishes (see ``EventName`` for which ones Carillon publishes).
///
/// Threading: called on the session's callback queue, in publishing order.
public protocol EventAnalyticsObserver: AnyObject {
    /// An event was published; `attributes` are keyed by ``EventAttributeName`` values and always hold
    /// `timestampMs`.
    func eventDidReceive(name: EventName, attributes: [AnyHashable: Any])
}
