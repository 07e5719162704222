import CarillonCodecs
import CarillonMeasurement
import CarillonRTC
import NIOCore
import Testing

@testable import Carillon
@testable import CarillonServer

/// Server-side adaptation (mode 4) when a receiver starts: its downlink estimate begins at the start bitrate, not at
/// what the link carries, so an allocation acting on it would pause sources a good link could carry until the
/// estimate climbed (seen as tiles `pausedForPoorConnection` for seconds in the `carillon join` bots' test). Virtual
/// time, deterministic for a seed.
@Suite struct VirtualVideoStartTests {
    /// Eight cameras (about 400 kbit/s each, 3.2 Mbit/s together: above the 2.5 Mbit/s start estimate) and a viewer
    /// subscribed to all of them on an uncapped link.
    @Test func aReceiverOnAGoodLinkGetsEverySourceFromTheStartWithoutAPause() throws {
        let meeting = try VirtualMeeting(seed: 11)
        let conditions = LinkConditions(delay: .milliseconds(20))
        let colors = VideoTestPattern.Color.palette
        var senders: [VirtualMeeting.Attendee] = []
        for index in colors.indices { senders.append(try meeting.join("camera\(index)", frequency: nil, conditions: conditions)) }
        let viewer = try meeting.join("viewer", frequency: nil, conditions: conditions)
        try meeting.run(for: .seconds(2))
        for (sender, color) in zip(senders, colors) { try meeting.startVideo(sender, color: color, receive: false) }
        try meeting.startVideo(viewer, color: .blue, sending: false)
        try meeting.run(for: .seconds(1))
        let subscribed = meeting.now
        var preferences: [String: SessionMediaPlan.ReceivePreference] = [:]
        for sender in senders { preferences[sender.identity.attendeeId] = VideoSubscriptionConfiguration().receivePreference }
        meeting.updateVideoSubscriptions(viewer, preferences)
        try meeting.run(for: .seconds(8))
        let pauses = viewer.serverPauses.map { "\($0.paused ? "paused" : "resumed") \($0.groupIds) at \(($0.at - subscribed).nanoseconds / 1_000_000) ms" }
        #expect(pauses.isEmpty, "\(pauses)")
        #expect(viewer.pausedVideos.isEmpty, "\(viewer.pausedVideos.map(\.attendeeId))")
        // Every camera at 15 fps over the last 4 s, a few frames of slack.
        var frames: [String: Int] = [:]
        for frame in viewer.receivedFrames where frame.at >= meeting.now - .seconds(4) { frames[frame.attendeeId, default: 0] += 1 }
        for sender in senders { #expect(frames[sender.identity.attendeeId, default: 0] >= 50, "\(frames)") }
    }
}

/// Server-side adaptation (mode 4) for a receiver on a busy machine: the receiving process is descheduled now and
/// then, so packets are read late and in bunches (nothing is lost). Its feedback then shows delay growth that no link
/// caused; the allocation must not pause or lower what the link carries on that evidence alone. Seen on real sockets
/// in the video E2E and interop tests whenever the machine was loaded.
@Suite struct VirtualBusyReceiverTests {
    /// Three cameras (about 400 kbit/s each) to a viewer whose downlink stalls 150 ms in every 500 ms.
    @Test func stallsOfABusyReceiverPauseNothing() throws {
        let meeting = try VirtualMeeting(seed: 13)
        let conditions = LinkConditions(delay: .milliseconds(20))
        var senders: [VirtualMeeting.Attendee] = []
        for index in 0..<3 { senders.append(try meeting.join("camera\(index)", frequency: nil, conditions: conditions)) }
        let viewer = try meeting.join("viewer", frequency: nil, conditions: conditions)
        try meeting.run(for: .seconds(2))
        for (sender, color) in zip(senders, VideoTestPattern.Color.palette) { try meeting.startVideo(sender, color: color, receive: false) }
        try meeting.startVideo(viewer, color: .blue, sending: false)
        try meeting.run(for: .seconds(1))
        var preferences: [String: SessionMediaPlan.ReceivePreference] = [:]
        for sender in senders { preferences[sender.identity.attendeeId] = VideoSubscriptionConfiguration().receivePreference }
        meeting.updateVideoSubscriptions(viewer, preferences)
        try meeting.run(for: .seconds(3))
        let stalled = meeting.now
        viewer.down.conditions.stalls = (period: .milliseconds(500), duration: .milliseconds(150))
        try meeting.run(for: .seconds(20))
        let pauses = viewer.serverPauses.map { "\($0.paused ? "paused" : "resumed") \($0.groupIds) at \(($0.at - stalled).nanoseconds / 1_000_000) ms" }
        #expect(pauses.isEmpty, "\(pauses)")
        var frames: [String: Int] = [:]
        for frame in viewer.receivedFrames where frame.at >= stalled + .seconds(10) { frames[frame.attendeeId, default: 0] += 1 }
        // 15 fps over the last 10 s, a few frames of slack.
        for sender in senders { #expect(frames[sender.identity.attendeeId, default: 0] >= 140, "\(frames)") }
    }

    /// The same receiver on a busy server too (each media tick up to 30 ms late, at random), from before it
    /// subscribes, four simulcast cameras, the fourth starting while it is busy: nothing is paused, the new camera
    /// included (the pagination guide's tile was paused before its first frame on a loaded machine), and every camera
    /// flows at its top layer.
    @Test func aBusyReceiverOnABusyServerGetsEverySourceIncludingANewOne() throws {
        let meeting = try VirtualMeeting(seed: 14)
        let conditions = LinkConditions(delay: .milliseconds(20))
        var senders: [VirtualMeeting.Attendee] = []
        for index in 0..<4 { senders.append(try meeting.join("camera\(index)", frequency: nil, conditions: conditions)) }
        let viewer = try meeting.join("viewer", frequency: nil, conditions: conditions)
        try meeting.run(for: .seconds(2))
        meeting.serverLateness = .milliseconds(30)
        viewer.down.conditions.stalls = (period: .milliseconds(500), duration: .milliseconds(150))
        let busy = meeting.now
        for (sender, color) in zip(senders.prefix(3), VideoTestPattern.Color.palette) {
            try meeting.startVideo(sender, color: color, receive: false, simulcast: true)
        }
        try meeting.startVideo(viewer, color: .blue, sending: false)
        try meeting.run(for: .seconds(1))
        var preferences: [String: SessionMediaPlan.ReceivePreference] = [:]
        for sender in senders { preferences[sender.identity.attendeeId] = VideoSubscriptionConfiguration().receivePreference }
        meeting.updateVideoSubscriptions(viewer, preferences)
        try meeting.run(for: .seconds(8))
        try meeting.startVideo(senders[3], color: VideoTestPattern.Color.palette[3], receive: false, simulcast: true)
        try meeting.run(for: .seconds(14))
        let pauses = viewer.serverPauses.map { "\($0.paused ? "paused" : "resumed") \($0.groupIds) at \(($0.at - busy).nanoseconds / 1_000_000) ms" }
        #expect(pauses.isEmpty, "\(pauses)")
        #expect(viewer.pausedVideos.isEmpty, "\(viewer.pausedVideos.map(\.attendeeId))")
        var frames: [String: Int] = [:]
        var small: [String: Int] = [:]
        for (index, frame) in viewer.receivedFrames.enumerated() where frame.at >= meeting.now - .seconds(10) {
            frames[frame.attendeeId, default: 0] += 1
            if viewer.receivedSizes[index] != (320, 180) { small[frame.attendeeId, default: 0] += 1 }
        }
        for sender in senders { #expect(frames[sender.identity.attendeeId, default: 0] >= 140, "\(frames)") }
        // At their top layer (simulcast low + hi): the link has room, only the machines are busy.
        #expect(small.isEmpty, "frames under 320x180: \(small)")
    }
}
