import CarillonCodecs
import CarillonMeasurement
import CarillonProtocol
import CarillonRTC
import NIOCore
import Testing

@testable import Carillon
@testable import CarillonServer

/// Server-side adaptation (mode 4) in virtual time: two cameras of different priority and a receiver whose downlink
/// is capped to fit one. Deterministic for a seed.
@Suite struct VirtualPriorityMeetingTests {
    /// What one run showed.
    struct Outcome: Equatable {
        /// S→C PAUSE/RESUME as (attendee, paused, milliseconds since the cap).
        var pauses: [String] = []
        /// Tiles the session showed `pausedForPoorConnection`, by attendee.
        var tilePauses: [String] = []
        /// Frames decoded per sender in each phase.
        var framesBefore: [String: Int] = [:]
        var framesCapped: [String: Int] = [:]
        var framesAfter: [String: Int] = [:]
    }

    /// Fits one camera (about 420 kbit/s with headers) and the audio, not two.
    static let capKbps = 800

    /// Runs: 8 s free, 30 s capped, 45 s free again.
    static func run(seed: UInt64) throws -> (Outcome, [String]) {
        let meeting = try VirtualMeeting(seed: seed)
        let conditions = LinkConditions(delay: .milliseconds(20))
        let high = try meeting.join("high", frequency: nil, conditions: conditions)
        let low = try meeting.join("low", frequency: nil, conditions: conditions)
        let viewer = try meeting.join("viewer", frequency: nil, conditions: conditions)
        try meeting.run(for: .seconds(2))
        try meeting.startVideo(high, color: .red, receive: false)
        try meeting.startVideo(low, color: .green, receive: false)
        try meeting.startVideo(viewer, color: .blue, sending: false)
        try meeting.run(for: .seconds(1))
        // The app's subscriptions through the public configuration type.
        let important = VideoSubscriptionConfiguration()
        important.priority = .highest
        let unimportant = VideoSubscriptionConfiguration()
        unimportant.priority = .low
        unimportant.targetResolution = .medium
        meeting.updateVideoSubscriptions(viewer, [high.identity.attendeeId: important.receivePreference,
                                                  low.identity.attendeeId: unimportant.receivePreference])
        try meeting.run(for: .seconds(8))
        let capped = meeting.now
        viewer.down.conditions.bandwidthBitsPerSecond = capKbps * 1000
        viewer.down.conditions.queueLimitBytes = 30_000
        try meeting.run(for: .seconds(30))
        let lifted = meeting.now
        viewer.down.conditions.bandwidthBitsPerSecond = nil
        try meeting.run(for: .seconds(45))

        let groups = Dictionary(viewer.signaling.videoSources.map { ($0.groupID, $0.attendeeID) }, uniquingKeysWith: { a, _ in a })
        var outcome = Outcome()
        for pause in viewer.serverPauses {
            for group in pause.groupIds {
                let at = (pause.at - capped).nanoseconds / 1_000_000
                outcome.pauses.append("\(groups[group] ?? "?") \(pause.paused ? "paused" : "resumed") at \(at) ms")
            }
        }
        outcome.tilePauses = viewer.pausedVideos.map(\.attendeeId)
        func count(_ range: Range<NIODeadline>) -> [String: Int] {
            var counts: [String: Int] = [:]
            for frame in viewer.receivedFrames where range.contains(frame.at) { counts[frame.attendeeId, default: 0] += 1 }
            return counts
        }
        // Each phase after a settling time: 10 s into the cap; 35 s after it lifts.
        outcome.framesBefore = count(capped - .seconds(4)..<capped)
        outcome.framesCapped = count(capped + .seconds(10)..<lifted)
        outcome.framesAfter = count(lifted + .seconds(35)..<meeting.now)
        let estimates = viewer.serverEstimates.map { "\(($0.at - capped).nanoseconds / 1_000_000): \($0.kbps)" }
        return (outcome, estimates)
    }

    @Test func theLowerPriorityIsPausedUnderACapAndBothAreServedWhenItLifts() throws {
        let (outcome, estimates) = try Self.run(seed: 3)
        print("priority run:", outcome, "estimates:", estimates)
        let high = "attendee-high", low = "attendee-low"
        // Both flow before the cap (15 fps over 4 s, a few frames of slack).
        #expect(outcome.framesBefore[high, default: 0] >= 50 && outcome.framesBefore[low, default: 0] >= 50, "\(outcome)")
        // Under the cap the higher priority keeps flowing (15 fps over 20 s, a few frames of slack) and the lower one
        // is paused throughout: probes are padding, they never resume it (no flicker).
        #expect(outcome.framesCapped[high, default: 0] >= 15 * 18, "\(outcome)")
        #expect(outcome.framesCapped[low, default: 0] == 0, "\(outcome)")
        // The higher one is never paused; the lower one is paused during the cap and ends resumed.
        #expect(!outcome.pauses.contains { $0.hasPrefix(high) }, "\(outcome.pauses)")
        let lowPauses = outcome.pauses.filter { $0.hasPrefix(low) }
        #expect(lowPauses.count == 2 && lowPauses.first?.contains("paused") == true, "\(outcome.pauses)")
        #expect(lowPauses.last?.contains("resumed") == true, "\(outcome.pauses)")
        // The session shows the paused source's tile paused for poor connection, never the higher one's.
        #expect(outcome.tilePauses.contains(low) && !outcome.tilePauses.contains(high), "\(outcome.tilePauses)")
        // After the cap lifts both are served again.
        #expect(outcome.framesAfter[high, default: 0] >= 15 * 9 && outcome.framesAfter[low, default: 0] >= 15 * 9,
                "\(outcome)")
        // Deterministic: the same seed gives the same run.
        let (again, _) = try Self.run(seed: 3)
        #expect(again == outcome)
    }
}
