import CarillonCodecs
import CarillonMeasurement
import CarillonProtocol
import CarillonRTC
import NIOCore
import Testing

@testable import Carillon
@testable import CarillonServer

/// Video through the whole system in virtual time: each attendee's session core encodes its camera (a pattern in
/// its own colour with a frame counter), the server's router forwards it, and every other attendee's core assembles,
/// decodes and reads it back. Deterministic for a seed.
@Suite struct VirtualVideoMeetingTests {
    static let colors: [VideoTestPattern.Color] = [.red, .green, .blue, .yellow]
    static let names = ["alice", "bob", "carol", "dave"]

    struct Tile: Equatable, CustomStringConvertible {
        var frames = 0
        var counters: Set<Int> = []
        var unreadable = 0
        var wrongColor = 0
        var longestFreeze = TimeAmount.zero
        var first: Int?
        var last: Int?
        var description: String {
            "frames \(frames), counters \(first ?? -1)...\(last ?? -1) (\(counters.count) distinct), unreadable \(unreadable), "
                + "wrong colour \(wrongColor), longest freeze \(longestFreeze.nanoseconds / 1_000_000) ms"
        }
    }

    /// Per receiving attendee, per sender: what its tile showed from `from` on.
    static func tiles(_ meeting: VirtualMeeting, from: NIODeadline) -> [[String: Tile]] {
        meeting.attendees.map { attendee in
            var tiles: [String: Tile] = [:]
            var lastAt: [String: NIODeadline] = [:]
            for frame in attendee.receivedFrames where frame.at >= from {
                var tile = tiles[frame.attendeeId] ?? Tile()
                tile.frames += 1
                if let counter = frame.counter {
                    tile.counters.insert(counter)
                    tile.first = min(tile.first ?? counter, counter)
                    tile.last = max(tile.last ?? counter, counter)
                } else {
                    tile.unreadable += 1
                }
                let sender = names.firstIndex { "attendee-\($0)" == frame.attendeeId }
                if frame.color != sender.map({ colors[$0] }) { tile.wrongColor += 1 }
                if let previous = lastAt[frame.attendeeId] { tile.longestFreeze = max(tile.longestFreeze, frame.at - previous) }
                lastAt[frame.attendeeId] = frame.at
                tiles[frame.attendeeId] = tile
            }
            return tiles
        }
    }

    @Test func fourCamerasAtTenPercentLossReachEveryoneElse() throws {
        let meeting = try VirtualMeeting(seed: 11)
        let conditions = LinkConditions(lossRate: 0.1, delay: .milliseconds(30), jitter: .milliseconds(8), allowsReordering: true)
        for name in Self.names { try meeting.join(name, frequency: nil, conditions: conditions) }
        try meeting.run(for: .seconds(2))
        for (index, attendee) in meeting.attendees.enumerated() { try meeting.startVideo(attendee, color: Self.colors[index]) }
        let settled = meeting.now + .seconds(3)
        try meeting.run(for: .seconds(20))
        let tiles = Self.tiles(meeting, from: settled)
        for (index, attendee) in meeting.attendees.enumerated() {
            let others = Self.names.indices.filter { $0 != index }.map { "attendee-\(Self.names[$0])" }
            #expect(Set(tiles[index].keys) == Set(others), "\(attendee.name) sees \(tiles[index].keys.sorted())")
            for sender in others {
                let tile = try #require(tiles[index][sender], "\(attendee.name) has no tile of \(sender)")
                let span = (tile.last ?? 0) - (tile.first ?? 0) + 1
                // Under 5 % of the frames sent in the window missing, none unreadable or in another colour.
                #expect(Double(tile.counters.count) >= 0.95 * Double(span), "\(attendee.name) ← \(sender): \(tile)")
                #expect(span >= 15 * 16, "\(attendee.name) ← \(sender): \(tile)")
                #expect(tile.unreadable == 0 && tile.wrongColor == 0, "\(attendee.name) ← \(sender): \(tile)")
                #expect(tile.longestFreeze <= .milliseconds(500), "\(attendee.name) ← \(sender): \(tile)")
            }
            #expect(attendee.endedVideos.isEmpty)
            try Self.expectVideoMetrics(of: attendee, receiving: others.count)
        }
        print("video at 10 % loss:", tiles.enumerated().map { "\(Self.names[$0.offset]): \($0.element.mapValues(\.description))" })
    }

    /// The last second's video metrics of a sending and receiving attendee at 10 % loss (recovered by NACK/RTX):
    /// observer values and
    /// CLIENT_METRIC stream frames (one for the camera, one per received stream) that match what flows.
    static func expectVideoMetrics(of attendee: VirtualMeeting.Attendee, receiving streams: Int) throws {
        let metrics = try #require(attendee.metrics.last, "\(attendee.name) got no metrics")
        let fps = try #require(metrics[.videoSendFps], "\(attendee.name): \(metrics)")
        #expect((13...16).contains(fps), "\(attendee.name): \(metrics)")
        let sent = try #require(metrics[.videoSendBitrate]), available = try #require(metrics[.videoAvailableSendBandwidth])
        #expect(sent > 20_000 && sent <= available * 1.5, "\(attendee.name): \(metrics)")
        // Loss counts what never arrived: retransmissions recover nearly all of the 10 % (NACKs below show the gaps).
        let sendLoss = try #require(metrics[.videoSendPacketLossPercent]), receiveLoss = try #require(metrics[.videoReceivePacketLossPercent])
        #expect((0...5).contains(sendLoss) && (0...5).contains(receiveLoss), "\(attendee.name): \(metrics)")
        let received = try #require(metrics[.videoReceiveBitrate])
        #expect(received > Double(streams) * 20_000, "\(attendee.name): \(metrics)")
        #expect(metrics[.videoSendRttMs].map { (60...400).contains($0) } == true, "\(attendee.name): \(metrics)")
        #expect(metrics[.videoAvailableReceiveBandwidth] == nil)

        let frame = try #require(attendee.clientMetrics.last)
        let video = frame.streamMetricFrames.filter { $0.mediaType == .video }
        #expect(video.count == 1 + streams, "\(attendee.name): \(video.count) video stream frames")
        func value(_ stream: SdkStreamMetricFrame, _ type: SdkMetric.TypeEnum) -> Double? {
            stream.metrics.first { $0.type == type }?.value
        }
        let camera = try #require(video.first)
        #expect(camera.streamID != 0 && value(camera, .videoEncodeWidth) == 320 && value(camera, .videoEncodeHeight) == 180,
                "\(attendee.name): \(camera)")
        for stream in video.dropFirst() {
            #expect(value(stream, .videoDecodeWidth) == 320, "\(attendee.name): \(stream)")
            #expect(value(stream, .videoDecodeFps).map { (11...17).contains($0) } == true, "\(attendee.name): \(stream)")
            #expect(value(stream, .videoNacksSent).map { $0 > 0 } == true, "\(attendee.name): \(stream)")
        }
    }

    /// A camera that stops giving pictures (the session stays up) is reported paused at its source to everyone else
    /// within 2-3 s (INDEX `paused_at_source_ids`), and its tile comes back with its next frames; the report is
    /// cleared, so a second stall is reported again.
    @Test func aStalledCameraIsReportedPausedAtItsSourceAndResumes() throws {
        let meeting = try VirtualMeeting(seed: 5)
        let conditions = LinkConditions(lossRate: 0, delay: .milliseconds(20), jitter: .zero, allowsReordering: false)
        for name in Self.names.prefix(3) { try meeting.join(name, frequency: nil, conditions: conditions) }
        try meeting.run(for: .seconds(2))
        for (index, attendee) in meeting.attendees.enumerated() { try meeting.startVideo(attendee, color: Self.colors[index]) }
        try meeting.run(for: .seconds(3))
        let alice = meeting.attendees[0]
        for round in 1...2 {
            let stalled = meeting.now
            alice.cameraStalled = true
            try meeting.run(for: .seconds(4))
            alice.cameraStalled = false
            let resumed = meeting.now
            try meeting.run(for: .seconds(3))
            for receiver in meeting.attendees.dropFirst() {
                let pauses = receiver.pausedVideos.filter { $0.at >= stalled }
                #expect(pauses.map(\.attendeeId) == ["attendee-alice"], "round \(round), \(receiver.name): \(pauses)")
                if let pause = pauses.first {
                    #expect(pause.at >= stalled + .seconds(2) && pause.at <= stalled + .milliseconds(3_200),
                            "round \(round), \(receiver.name): paused \((pause.at - stalled).nanoseconds / 1_000_000) ms after the stall")
                }
                let back = receiver.receivedFrames.filter { $0.attendeeId == "attendee-alice" && $0.at >= resumed }
                #expect(back.count >= 30, "round \(round), \(receiver.name) got \(back.count) frames of alice after the stall")
                #expect(receiver.endedVideos.isEmpty)
            }
        }
    }

    /// A receiver on a 600 kbit/s downlink: its transport-wide feedback gives the server its estimate, the server's
    /// REMB tells both publishers its share, and they send within it, so the receiver gets both cameras without
    /// long freezes while a receiver on a fast link gets the same streams. Without downlink congestion control the
    /// two 400 kbit/s cameras would overflow the link and keep it lossy. This is the server without server-side
    /// adaptation (JOIN_ACK mode NONE); in mode 4 the server pauses what does not fit instead
    /// (`VirtualPriorityMeetingTests`).
    @Test func aSlowReceiverHoldsPublishersToItsShare() throws {
        var signaling = MeetingSignalingCore.Configuration()
        signaling.serverSideAdaptation = false
        let meeting = try VirtualMeeting(seed: 3, signaling: signaling)
        let fast = LinkConditions(delay: .milliseconds(20))
        var slow = fast
        slow.bandwidthBitsPerSecond = 600_000
        slow.queueLimitBytes = 30_000
        for name in Self.names.prefix(3) {
            try meeting.join(name, frequency: nil, conditions: fast) { attendee in
                if attendee.name == "carol" { attendee.down = SimulatedLink(conditions: slow, seed: 77) }
            }
        }
        try meeting.run(for: .seconds(2))
        try meeting.startVideo(meeting.attendees[0], color: .red)
        try meeting.startVideo(meeting.attendees[1], color: .green)
        try meeting.startVideo(meeting.attendees[2], color: .blue, sending: false)
        try meeting.run(for: .seconds(20))
        let settled = meeting.now
        try meeting.run(for: .seconds(10))
        let tiles = Self.tiles(meeting, from: settled)
        for publisher in meeting.attendees.prefix(2) {
            // The settled 10 s, one report a second: a single second swings by a fifth (a key frame, a probe).
            let window = publisher.metrics.suffix(10).compactMap { $0[.videoSendBitrate] }
            #expect(window.count == 10, "\(publisher.name) \(publisher.metrics.suffix(10))")
            let sent = window.reduce(0, +) / Double(max(1, window.count))
            // Two streams, an audio mix and headers in 600 kbit/s.
            #expect(sent < 300_000 && sent > 100_000, "\(publisher.name) sends \(Int(sent)) bit/s")
        }
        for sender in ["attendee-alice", "attendee-bob"] {
            let tile = try #require(tiles[2][sender], "carol has no tile of \(sender)")
            let span = (tile.last ?? 0) - (tile.first ?? 0) + 1
            #expect(Double(tile.counters.count) >= 0.95 * Double(span) && span >= 140, "carol ← \(sender): \(tile)")
            #expect(tile.longestFreeze <= .milliseconds(500), "carol ← \(sender): \(tile)")
        }
        print("slow receiver:", tiles[2].mapValues(\.description),
              meeting.attendees.prefix(2).map { attendee in
                  "\(attendee.name) sends \(attendee.metrics.suffix(10).compactMap { $0[.videoSendBitrate].map { Int($0 / 1000) } }) kbit/s"
              })
    }
}
