import Foundation
import Logging

/// A cluster's webhook delivery through the database (``PostgresMeetingStore/enqueueWebhook(meetingId:body:subscription:)``):
/// every node queues the events it sees, and every node delivers from the one queue, so an event is sent once, by
/// whichever node takes it, in order within its meeting, and survives the node that saw it. Which meetings want events
/// is kept in the database too (their MeetingStarted subscribes them), since a meeting created through one node has
/// its attendees' events on another.
///
/// ``publish(_:)`` returns at once: events go into the database in the order they were published, from one task.
/// Delivery polls the queue every ``idlePoll`` while it is empty. Signing and posting are the dispatcher's
/// (``WebhookDispatcher/post(_:to:logger:)``); retries back off as its core does.
///
/// Threading: safe from any thread.
final class ClusterWebhookQueue: MeetingEventSink {
    /// How often an empty queue is looked at again.
    static let idlePoll = Duration.milliseconds(250)

    private let store: PostgresMeetingStore
    private let target: WebhookTarget
    private let logger: Logger
    private let events: AsyncStream<MeetingEvent>
    private let input: AsyncStream<MeetingEvent>.Continuation

    init(store: PostgresMeetingStore, target: WebhookTarget, logger: Logger) {
        self.store = store
        self.target = target
        self.logger = logger
        (events, input) = AsyncStream.makeStream(of: MeetingEvent.self,
                                                 bufferingPolicy: .bufferingOldest(target.queueLimit))
    }

    func publish(_ event: MeetingEvent) {
        if case .dropped = input.yield(event) {
            logger.warning("webhook: \(event.eventType.rawValue) dropped, \(target.queueLimit) events wait for the database")
        }
    }

    /// Queues what is published and delivers what is queued, until cancelled.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.enqueueAll() }
            group.addTask { await self.deliverAll() }
            await group.waitForAll()
        }
    }

    private func enqueueAll() async {
        for await event in events {
            guard let body = try? String(decoding: JSONEncoder().encode(event), as: UTF8.self) else { continue }
            let subscription: PostgresMeetingStore.WebhookSubscription = switch event.eventType {
            case .meetingStarted: .subscribes
            case .meetingEnded: .ends
            default: .requires
            }
            // The database may be away for a moment: the event waits (later ones behind it, keeping their order).
            while !Task.isCancelled {
                do {
                    let store = store
                    // No time limit (an insert that only looked lost would be queued twice); cancellable at once.
                    try await store.within(nil) {
                        try await store.enqueueWebhook(meetingId: event.meetingId, body: body, subscription: subscription)
                    }
                    break
                } catch {
                    logger.warning("webhook: could not queue \(event.eventType.rawValue): \(error)")
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
    }

    private func deliverAll() async {
        let target = target, logger = logger
        while !Task.isCancelled {
            let delivered: Bool
            do {
                // Cancellable at once (a node stopping does not wait for a post; the event stays queued).
                let store = store
                delivered = try await store.within(nil) {
                    try await store.deliverNextWebhook(maximumAttempts: target.maximumAttempts) { body in
                        await WebhookDispatcher.post(Array(body.utf8), to: target, logger: logger)
                    }
                }
            } catch {
                delivered = false
            }
            if !delivered { try? await Task.sleep(for: Self.idlePoll) }
        }
    }
}
