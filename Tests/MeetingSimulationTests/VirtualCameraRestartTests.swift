import CarillonCodecs
import CarillonMeasurement
import CarillonProtocol
import CarillonRTC
import Foundation
import NIOCore
import Testing

@testable import Carillon
@testable import CarillonServer

/// A camera that stops and starts again while a receiver in server-side adaptation (mode 4) has it as its featured
/// video (the guide's example): the restarted camera is a new source, subscribed again, and its frames must reach
/// the receiver at once. Issue 11 saw, in about one run of five on real sockets, the new tile get no frame for 15 s;
/// this flow reproduced it (see the test). Virtual time, deterministic for a seed.
@Suite struct VirtualCameraRestartTests {
    /// What the viewer saw of the featured camera: frames decoded within 5 s of its restart, and the server's
    /// PAUSE/RESUME of it after the restart.
    static func run(seed: UInt64, capKbps: Int?) throws -> (frames: Int, pausesAfterRestart: [String], estimates: [String]) {
        let meeting = try VirtualMeeting(seed: seed)
        let conditions = LinkConditions(delay: .milliseconds(20))
        let featured = try meeting.join("featured", frequency: nil, conditions: conditions)
        let other = try meeting.join("other", frequency: nil, conditions: conditions)
        let viewer = try meeting.join("viewer", frequency: nil, conditions: conditions)
        try meeting.run(for: .seconds(2))
        try meeting.startVideo(featured, color: .red, receive: false)
        try meeting.startVideo(other, color: .green, receive: false)
        try meeting.startVideo(viewer, color: .blue, sending: false)
        if let capKbps {
            viewer.down.conditions.bandwidthBitsPerSecond = capKbps * 1000
            viewer.down.conditions.queueLimitBytes = 30_000
        }
        try meeting.run(for: .seconds(1))
        let highest = VideoSubscriptionConfiguration()
        highest.priority = .highest
        let low = VideoSubscriptionConfiguration()
        low.priority = .low
        meeting.updateVideoSubscriptions(viewer, [featured.identity.attendeeId: highest.receivePreference,
                                                  other.identity.attendeeId: low.receivePreference])
        try meeting.run(for: .seconds(8))
        // The app drops the other source, then the featured camera stops and starts again 3 s later.
        meeting.updateVideoSubscriptions(viewer, [:], removed: [other.identity.attendeeId])
        try meeting.run(for: .seconds(4))
        meeting.stopVideo(featured)
        try meeting.run(for: .seconds(3))
        let restarted = meeting.now
        try meeting.startVideo(featured, color: .red, receive: false)
        // The source left INDEX and was unsubscribed; the app subscribes the new one as soon as it is handed out.
        let viewerCore = { viewer.signaling.videoSources.contains { $0.attendeeID == featured.identity.attendeeId } }
        while !viewerCore(), meeting.now < restarted + .seconds(3) { try meeting.run(for: .milliseconds(20)) }
        meeting.updateVideoSubscriptions(viewer, [featured.identity.attendeeId: highest.receivePreference])
        try meeting.run(until: restarted + .seconds(5))
        let frames = viewer.receivedFrames.filter { $0.attendeeId == featured.identity.attendeeId && $0.at >= restarted }.count
        let pauses = viewer.serverPauses.filter { $0.at >= restarted }
            .map { "\($0.paused ? "paused" : "resumed") \($0.groupIds) at \(($0.at - restarted).nanoseconds / 1_000_000) ms" }
        let estimates = viewer.serverEstimates.map { "\(($0.at - restarted).nanoseconds / 1_000_000): \($0.kbps)" }
        return (frames, pauses, estimates)
    }

    /// This caught a real bug: the restarted camera sends from the same SSRC on the same transport, and the SDK
    /// started its numbering anew at random, so whenever the new start fell behind, the server's SRTP replay window
    /// dropped every packet and the viewer got nothing (one run in three, by the random start).
    @Test(arguments: [nil, 900] as [Int?]) func aRestartedFeaturedCameraReachesTheViewerAtOnce(capKbps: Int?) throws {
        let outcome = try Self.run(seed: 5, capKbps: capKbps)
        print("camera restart (cap \(capKbps.map(String.init) ?? "none")):", outcome)
        // 15 fps over the 5 s after the restart, less the time to renegotiate and the first key frame (about 1 s).
        #expect(outcome.frames >= 15 * 3, "\(outcome)")
        #expect(outcome.pausesAfterRestart.isEmpty, "\(outcome)")
    }
}
