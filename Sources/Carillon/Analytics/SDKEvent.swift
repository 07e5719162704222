/// An event as handed to an ``EventReporter``: its name and attributes (keys are ``EventAttributeName`` values).
///
/// Threading: immutable after creation; `@unchecked Sendable` because Chime's attribute dictionary is
/// `[AnyHashable: Any]`, whose values are the plain numbers and strings the SDK puts there.
public final class SDKEvent: @unchecked Sendable {
    /// The event's name (the case description).
    public let name: String
    /// The event's attributes.
    public let eventAttributes: [AnyHashable: Any]

    /// An event named after a history event.
    public init(meetingHistoryEventName: MeetingHistoryEventName, eventAttributes: [AnyHashable: Any]) {
        self.name = meetingHistoryEventName.description
        self.eventAttributes = eventAttributes
    }

    /// An event named after an event name.
    public init(eventName: EventName, eventAttributes: [AnyHashable: Any]) {
        self.name = eventName.description
        self.eventAttributes = eventAttributes
    }
}
