import CarillonProtocol
import NIOCore
import Testing

@testable import Carillon

/// The signaling core's side of the camera's simulcast: SUBSCRIBE `send_streams` one per layer in rid order
/// (disabled layers at 0 kbps, sizes once the source told them, the allocated ids kept), re-sent when INDEX changes
/// the table of `policies.md` §3.1.
@Suite struct SignalingSessionSimulcastTests {
    let start = SessionTime(monotonic: .uptimeNanoseconds(1_000_000_000), unixNanoseconds: 1_700_000_000_000_000_000)

    func frame(_ type: SdkSignalFrame.TypeEnum, _ build: (inout SdkSignalFrame) -> Void = { _ in }) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.type = type
        build(&frame)
        return frame
    }

    /// An INDEX of `participants` in which each of `publishers` sends one camera stream.
    func index(participants: UInt32, publishers: [String]) -> SdkSignalFrame {
        frame(.index) {
            $0.index.numParticipants = participants
            $0.index.sources = publishers.enumerated().map { offset, attendee in
                var descriptor = SdkStreamDescriptor()
                descriptor.attendeeID = attendee
                descriptor.streamID = UInt32(100 + offset)
                descriptor.groupID = UInt32(50 + offset)
                descriptor.maxBitrateKbps = 600
                descriptor.mediaType = .video
                return descriptor
            }
        }
    }

    func joined() -> SignalingSessionCore {
        var core = SignalingSessionCore(
            credentials: MeetingSessionCredentials(attendeeId: "self-id", externalUserId: "self", joinToken: "t"),
            audioSessionId: 1, random: { 0.5 })
        _ = core.start(reconnectBudget: .seconds(120), now: start)
        _ = core.socketOpened(now: start)
        _ = core.received(frame(.joinAck), now: start)
        _ = core.received(frame(.index), now: start)
        _ = core.mediaOfferReady("offer", now: start)
        _ = core.received(frame(.subscribeAck) { $0.suback.sdpAnswer = "answer" }, now: start)
        _ = core.mediaConnected(now: start)
        return core
    }

    func plans(_ actions: [SessionAction]) -> [SessionMediaPlan] {
        actions.compactMap { if case .renegotiateMedia(let plan) = $0 { plan } else { nil } }
    }

    /// The video entries of the SUBSCRIBE sent for the outstanding offer: [kbps, width, height, stream id] each.
    func videoStreams(_ core: inout SignalingSessionCore) -> [[UInt32]] {
        let actions = core.mediaOfferReady("offer", now: start)
        let subscribe = actions.compactMap { if case .send(let frame) = $0, frame.type == .subscribe { frame.sub } else { nil } }
        return subscribe.first?.sendStreams.filter { $0.mediaType == .video }
            .map { [$0.maxBitrateKbps, $0.width, $0.height, $0.streamID] } ?? []
    }

    /// Answers the outstanding offer, allocating stream ids 11, 12, 13 to the layers; returns the next plan, if any.
    func answer(_ core: inout SignalingSessionCore) -> [SessionMediaPlan] {
        plans(core.received(frame(.subscribeAck) {
            $0.suback.sdpAnswer = "answer"
            $0.suback.allocations = (11...13).map { id in
                var allocation = SdkStreamAllocation()
                allocation.streamID = UInt32(id)
                allocation.groupID = 5
                return allocation
            }
        }, now: start))
    }

    @Test func theCameraIsAnnouncedPerLayerAndFollowsTheTable() throws {
        var core = joined()
        let first = try #require(plans(core.setSendingVideo(true, simulcast: true, now: start)).first)
        // Participants unknown, one publisher: low + hi.
        #expect(first.sendLayers.map(\.maxBitrateKbps) == [300, 0, 1_200])
        #expect(videoStreams(&core) == [[300, 0, 0, 0], [0, 0, 0, 0], [1_200, 0, 0, 0]])
        // The source's size arrives while the offer is out: a new SUBSCRIBE after the answer, with the sizes and
        // the allocated ids.
        #expect(plans(core.setVideoSourceSize(width: 1_280, height: 720, now: start)).isEmpty)
        #expect(answer(&core).count == 1)
        #expect(videoStreams(&core) == [[300, 320, 180, 11], [0, 640, 360, 12], [1_200, 1_280, 720, 13]])
        #expect(answer(&core).isEmpty)
        // Two participants: mid only, unscaled, at the hi target.
        #expect(plans(core.received(index(participants: 2, publishers: ["a"]), now: start)).count == 1)
        #expect(videoStreams(&core) == [[0, 320, 180, 11], [1_200, 1_280, 720, 12], [0, 1_280, 720, 13]])
        _ = answer(&core)
        // Eight participants, five publishers with this one: low at 200 + mid at 600.
        #expect(plans(core.received(index(participants: 8, publishers: ["a", "b", "c", "d"]), now: start)).count == 1)
        #expect(videoStreams(&core) == [[200, 320, 180, 11], [600, 640, 360, 12], [0, 1_280, 720, 13]])
        _ = answer(&core)
        // The same table again: nothing to send.
        #expect(plans(core.received(index(participants: 9, publishers: ["a", "b", "c", "e"]), now: start)).isEmpty)
    }

    /// AUDIO_STREAM_ID_INFO presence of `attendees` (stream ids from 1).
    func roster(_ attendees: [String]) -> SdkSignalFrame {
        frame(.audioStreamIDInfo) {
            $0.audioStreamIDInfo.streams = attendees.enumerated().map { offset, attendee in
                var entry = SdkAudioStreamIdInfo()
                entry.audioStreamID = UInt32(offset + 1)
                entry.attendeeID = attendee
                return entry
            }
        }
    }

    @Test func theRosterDecidesTheParticipantsAndChangesTheTable() throws {
        var core = joined()
        // Two present (content shares do not count): mid only.
        _ = core.received(roster(["self-id", "a", "a#content"]), now: start)
        let first = try #require(plans(core.setSendingVideo(true, simulcast: true, now: start)).first)
        #expect(first.sendLayers.map(\.maxBitrateKbps) == [0, 1_200, 0])
        _ = videoStreams(&core)
        _ = answer(&core)
        // A third attendee joins: low + hi, announced in a new SUBSCRIBE.
        let joined = frame(.audioStreamIDInfo) {
            var entry = SdkAudioStreamIdInfo()
            entry.audioStreamID = 9
            entry.attendeeID = "b"
            $0.audioStreamIDInfo.streams = [entry]
        }
        #expect(plans(core.received(joined, now: start)).map { $0.sendLayers.map(\.maxBitrateKbps) } == [[300, 0, 1_200]])
        #expect(videoStreams(&core).map { $0[0] } == [300, 0, 1_200])
    }

    @Test func withoutSimulcastTheCameraIsOneStream() throws {
        var core = joined()
        let plan = try #require(plans(core.setSendingVideo(true, maxBitrateKbps: 800, now: start)).first)
        #expect(plan.sendLayers.isEmpty)
        #expect(videoStreams(&core) == [[800, 0, 0, 2]])
        _ = answer(&core)
        // A new source size changes nothing.
        #expect(plans(core.setVideoSourceSize(width: 640, height: 360, now: start)).isEmpty)
    }
}
