import CarillonCodecs
import CarillonProtocol
import CarillonRTC
import NIOCore
import Testing

@testable import Carillon
@testable import CarillonServer

/// The SDK's simulcast camera through the real server code in virtual time: the session core picks its layers from
/// the meeting's size (`policies.md` §3.1), announces them in SUBSCRIBE, sends each on its own SSRC with its rid, and
/// the server's router learns them, measures them, lists the active ones in INDEX and forwards one to each receiver.
@Suite struct VirtualSimulcastMeetingTests {
    /// INDEX entries (stream id, kbps, width, height) of `attendee`'s camera as `receiver` last saw them.
    static func indexed(_ receiver: VirtualMeeting.Attendee, of attendee: VirtualMeeting.Attendee) -> [[UInt32]] {
        receiver.signaling.videoSources.filter { $0.attendeeID == attendee.identity.attendeeId }
            .map { [$0.streamID, $0.maxBitrateKbps, $0.width, $0.height] }
    }

    @Test func withTwoParticipantsOnlyOneUnscaledLayerIsSent() throws {
        let meeting = try VirtualMeeting(seed: 21)
        let alice = try meeting.join("alice", frequency: nil)
        let bob = try meeting.join("bob", frequency: nil)
        try meeting.run(for: .seconds(2))
        try meeting.startVideo(alice, color: .red, simulcast: true, width: 640, height: 360)
        try meeting.startVideo(bob, color: .green, sending: false)
        try meeting.run(for: .seconds(8))
        let layers = try #require(alice.subscribes.last?.sendStreams.filter { $0.mediaType == .video })
        #expect(layers.map(\.maxBitrateKbps) == [0, 1_200, 0])
        #expect(alice.video.layerFramesEncoded[0] == 0 && alice.video.layerFramesEncoded[2] == 0)
        #expect(alice.video.layerFramesEncoded[1] > 100)
        // INDEX: the one active layer, unscaled.
        let entries = Self.indexed(bob, of: alice)
        #expect(entries.count == 1 && entries.first.map { Array($0[1...]) } == [1_200, 640, 360])
        // Bob decodes Alice's pictures at 640x360, readable and in her colour.
        let frames = bob.receivedFrames.filter { $0.attendeeId == alice.identity.attendeeId }
        #expect(frames.count > 90)
        #expect(frames.allSatisfy { $0.counter != nil && $0.color == .red })
        #expect(bob.receivedSizes.allSatisfy { $0 == (640, 360) })
    }
}
