/// Where ``MeetingEventRouter`` hands meeting events: one server's ``WebhookDispatcher`` (in memory), or a cluster's
/// ``ClusterWebhookQueue`` (in the database).
public protocol MeetingEventSink: Sendable {
    /// Takes `event` for delivery and returns at once (never on a media path).
    func publish(_ event: MeetingEvent)
}
