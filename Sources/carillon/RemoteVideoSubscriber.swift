import Carillon
import Synchronization

/// Applies `carillon join --subscribe` options: when an attendee's video source is available and its ExternalUserId
/// known (from the roster, which may come before or after the source), subscribes to it with its option's priority
/// and resolution through `updateVideoSourceSubscriptions`, keyed by the very `RemoteVideoSource` the SDK handed out.
///
/// Threading: called on the session's callback queue (and from the roster callback); the mutex serialises it.
final class RemoteVideoSubscriber: Sendable {
    private struct State {
        var names: [String: String] = [:]
        var sources: [String: RemoteVideoSource] = [:]
        var subscribed: Set<String> = []
    }

    private let options: [String: VideoSubscriptionOption]
    private let update: @Sendable ([RemoteVideoSource: VideoSubscriptionConfiguration]) -> Void
    private let state = Mutex(State())

    /// Subscribes through `update` (the facade's `updateVideoSourceSubscriptions` with nothing removed).
    init(options: [VideoSubscriptionOption],
         update: @escaping @Sendable ([RemoteVideoSource: VideoSubscriptionConfiguration]) -> Void) {
        self.options = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.update = update
    }

    /// Attendees joined: their ExternalUserIds by attendee id.
    func attendeesJoined(_ attendees: [(attendeeId: String, externalUserId: String)]) {
        apply { state in for attendee in attendees { state.names[attendee.attendeeId] = attendee.externalUserId } }
    }

    /// Video sources became available (the SDK's objects).
    func sourcesAvailable(_ sources: [RemoteVideoSource]) {
        apply { state in for source in sources { state.sources[source.attendeeId] = source } }
    }

    /// Video sources went away: the SDK unsubscribed them; a returning source is subscribed again.
    func sourcesUnavailable(_ sources: [RemoteVideoSource]) {
        apply { state in
            for source in sources {
                state.sources[source.attendeeId] = nil
                state.subscribed.remove(source.attendeeId)
            }
        }
    }

    private func apply(_ change: (inout State) -> Void) {
        let added: [(RemoteVideoSource, VideoSubscriptionOption)] = state.withLock { state in
            change(&state)
            var added: [(RemoteVideoSource, VideoSubscriptionOption)] = []
            for (attendeeId, source) in state.sources where !state.subscribed.contains(attendeeId) {
                // A content share `<attendeeId>#content` is matched by `<ExternalUserId>#content`.
                let base = attendeeId.hasSuffix("#content") ? String(attendeeId.dropLast(8)) : attendeeId
                guard let name = state.names[base].map({ attendeeId == base ? $0 : $0 + "#content" }),
                      let option = options[name] else { continue }
                state.subscribed.insert(attendeeId)
                added.append((source, option))
            }
            return added
        }
        guard !added.isEmpty else { return }
        var subscriptions: [RemoteVideoSource: VideoSubscriptionConfiguration] = [:]
        for (source, option) in added { subscriptions[source] = option.configuration }
        update(subscriptions)
    }
}
