import Foundation
import Logging
import NIOCore

/// Ends meetings that ``MeetingExpiryPolicy`` says are over: checks every stored meeting each
/// ``MeetingExpiryPolicy/checkInterval`` and ends an expired one exactly as DeleteMeeting does (removed from the
/// store, its sessions told with the meeting-ended status, its room released).
///
/// A meeting without a live room (nobody joined yet, or the server restarted) counts as idle since it was created,
/// or since this server started when that is later, so a restart gives attendees the whole idle timeout to come back.
///
/// Each check also forgets the CreateMeeting idempotency records older than the maximum duration: by then the
/// meeting a retry would return has ended anyway.
///
/// Threading: ``run()`` is one task; everything it touches is thread-safe.
struct MeetingExpiry: Sendable {
    let store: any MeetingStore
    let rooms: MeetingRooms
    let policy: MeetingExpiryPolicy
    let logger: Logger
    /// When this server started (monotonic).
    let started: NIODeadline
    /// In a cluster, the meetings another live node hosts: that node judges them by its room, so a meeting is
    /// expired once across the cluster (a meeting placed nowhere, or on a dead node, may be judged by several nodes
    /// alike; its deletion happens once).
    var hostedElsewhere: (@Sendable () async throws -> Set<String>)? = nil

    /// Checks until the task is cancelled.
    func run() async {
        let interval = Duration.nanoseconds(policy.checkInterval.nanoseconds)
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            await expireDue()
        }
    }

    /// Ends every meeting that is due now; returns their ids.
    @discardableResult
    func expireDue() async -> [String] {
        let meetings: [MeetingRecord]
        do {
            meetings = try await store.meetings()
        } catch {
            logger.error("meeting expiry: storage unavailable: \(error)")
            return []
        }
        let elsewhere: Set<String>
        do {
            elsewhere = try await hostedElsewhere?() ?? []
        } catch {
            logger.error("meeting expiry: placements unavailable: \(error)")
            return []
        }
        let sinceStart = NIODeadline.now() - started
        var ended: [String] = []
        for meeting in meetings where !elsewhere.contains(meeting.meetingId) {
            let age = TimeAmount.nanoseconds(Int64(max(0, Date().timeIntervalSince(meeting.createdAt)) * 1e9))
            let idle: TimeAmount
            if let room = rooms.existingRoom(for: meeting.meetingId) {
                guard let measured = try? await room.audioIdleTime().get() else { continue }
                idle = measured
            } else {
                idle = min(age, sinceStart)
            }
            guard let reason = policy.reason(age: age, idle: idle) else { continue }
            do {
                guard try await store.deleteMeeting(id: meeting.meetingId) else { continue }
            } catch {
                logger.error("meeting expiry: could not delete \(meeting.meetingId): \(error)")
                continue
            }
            rooms.endMeeting(meeting.meetingId)
            logger.info("meeting ended", metadata: ["meeting": "\(meeting.meetingId)", "reason": "\(reason)"])
            ended.append(meeting.meetingId)
        }
        let horizon = Date().addingTimeInterval(-Double(policy.maximumDuration.nanoseconds) / 1e9)
        do {
            let forgotten = try await store.expireIdempotencyRecords(createdBefore: horizon)
            if forgotten > 0 { logger.debug("forgot \(forgotten) idempotency records older than the maximum meeting duration") }
        } catch {
            logger.error("meeting expiry: could not expire idempotency records: \(error)")
        }
        return ended
    }
}
