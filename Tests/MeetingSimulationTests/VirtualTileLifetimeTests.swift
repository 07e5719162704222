import CarillonCodecs
import NIOCore
import Testing

@testable import Carillon

/// A remote camera keeps one video (one tile) for as long as its source is there, as in Chime: the sender changing
/// its simulcast layers when the meeting crosses 2 ↔ 3 participants, and the receiver's subscription moving to the new
/// top layer, keep the video's id and never end it. Virtual time, deterministic for a seed.
@Suite struct VirtualTileLifetimeTests {
    /// Alice and Bob send simulcast cameras; Carol (no camera) joins and leaves: Alice's layers go from one unscaled
    /// (`mid`) to `low` + `hi` and back, and Bob's subscription follows the top layer each time.
    @Test func aCameraKeepsItsVideoIdAcrossTwoThreeTwo() throws {
        let meeting = try VirtualMeeting(seed: 31)
        let alice = try meeting.join("alice", frequency: nil)
        let bob = try meeting.join("bob", frequency: nil)
        try meeting.run(for: .seconds(2))
        try meeting.startVideo(alice, color: .red, simulcast: true)
        try meeting.startVideo(bob, color: .green, simulcast: true)
        try meeting.run(for: .seconds(6))
        let carol = try meeting.join("carol", frequency: nil)
        try meeting.run(for: .seconds(6))
        meeting.leave(carol)
        try meeting.run(for: .seconds(6))

        // Alice's table changed twice, so what Bob subscribes to did too.
        let tables = alice.subscribes.map { $0.sendStreams.filter { $0.mediaType == .video }.map(\.maxBitrateKbps) }
            .filter { !$0.isEmpty }
        let changes = zip(tables, tables.dropFirst()).filter { $0 != $1 }.map(\.1)
        #expect(changes == [[300, 0, 1_200], [0, 1_200, 0]], "\(tables)")
        let received = Set(bob.subscribes.flatMap(\.receiveStreamIds).filter { $0 != 0 })
        #expect(received.count >= 2, "\(bob.subscribes.map(\.receiveStreamIds))")

        for (receiver, sender, color) in [(bob, alice, VideoTestPattern.Color.red), (alice, bob, .green)] {
            let id = sender.identity.attendeeId
            #expect(receiver.videoIds[id]?.count == 1, "\(receiver.name): \(receiver.videoIds)")
            #expect(receiver.endedVideos.isEmpty, "\(receiver.name): \(receiver.endedVideos)")
            // Still there at the end, at the top layer's size and in the sender's colour.
            let recent = receiver.receivedFrames.indices.filter {
                receiver.receivedFrames[$0].attendeeId == id && receiver.receivedFrames[$0].at >= meeting.now - .seconds(2)
            }
            #expect(recent.count >= 25, "\(receiver.name) ← \(sender.name): \(recent.count) frames")
            #expect(recent.allSatisfy { receiver.receivedSizes[$0] == (320, 180) && receiver.receivedFrames[$0].color == color })
        }
    }
}

/// On links with room, every receiver gets each camera's top layer within 3 s of its first frame, a late joiner's
/// included (`make demo` showed the fourth attendee's camera at 80x44, its `low` layer, to everyone for its whole
/// stay). Virtual time, deterministic for a seed.
@Suite struct VirtualTopLayerTests {
    @Test func aLateJoinersCameraReachesEveryReceiverAtItsTopLayerWithinThreeSeconds() throws {
        let meeting = try VirtualMeeting(seed: 32)
        let colors: [VideoTestPattern.Color] = [.red, .green, .blue, .yellow]
        var attendees: [VirtualMeeting.Attendee] = []
        for name in ["alice", "bob", "carol"] { attendees.append(try meeting.join(name, frequency: nil)) }
        try meeting.run(for: .seconds(2))
        for (attendee, color) in zip(attendees, colors) { try meeting.startVideo(attendee, color: color, simulcast: true) }
        try meeting.run(for: .seconds(6))
        let dave = try meeting.join("dave", frequency: nil)
        try meeting.run(for: .seconds(1))
        try meeting.startVideo(dave, color: colors[3], simulcast: true)
        try meeting.run(for: .seconds(8))
        for receiver in attendees {
            let frames = receiver.receivedFrames.indices.filter { receiver.receivedFrames[$0].attendeeId == dave.identity.attendeeId }
            let first = try #require(frames.first, "\(receiver.name) never decoded dave")
            let top = frames.first { receiver.receivedSizes[$0] == (320, 180) }
            let wait = top.map { (receiver.receivedFrames[$0].at - receiver.receivedFrames[first].at).nanoseconds / 1_000_000 }
            #expect(wait.map { $0 <= 3_000 } == true, "\(receiver.name): top layer after \(wait.map { "\($0) ms" } ?? "never")")
            // And it stays there.
            let late = frames.filter { receiver.receivedFrames[$0].at >= meeting.now - .seconds(3) }
            #expect(!late.isEmpty && late.allSatisfy { receiver.receivedSizes[$0] == (320, 180) }, "\(receiver.name)")
        }
        for (receiver, sender) in [(dave, attendees[0]), (attendees[0], attendees[1])] {
            let late = receiver.receivedFrames.indices.filter {
                receiver.receivedFrames[$0].attendeeId == sender.identity.attendeeId && receiver.receivedFrames[$0].at >= meeting.now - .seconds(3)
            }
            #expect(!late.isEmpty && late.allSatisfy { receiver.receivedSizes[$0] == (320, 180) }, "\(receiver.name) ← \(sender.name)")
        }
    }
}
