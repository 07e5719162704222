import CarillonProtocol
import NIOCore
import Testing

@testable import CarillonServer

/// Server-side adaptation in the meeting core: JOIN_ACK's mode, SUBSCRIBE preferences handed to the media side,
/// S→C PAUSE/RESUME and BITRATES.
extension MeetingSignalingVideoTests {
    /// Joins `people[0]` asking for `mode` (nil: the field absent); the JOIN_ACK's mode.
    func joinAck(_ core: inout MeetingSignalingCore, asking mode: SdkServerSideNetworkAdaption?) -> SdkServerSideNetworkAdaption? {
        _ = core.accept(connection(1), identity: people[0], now: now)
        var join = SdkSignalFrame()
        join.type = .join
        join.join.protocolVersion = 2
        if let mode { join.join.serverSideNetworkAdaption = mode }
        let ack = frames(core.receive(join, from: connection(1), now: now), to: 1, .joinAck).first
        return ack.map { $0.joinack.hasDefaultServerSideNetworkAdaption ? $0.joinack.defaultServerSideNetworkAdaption : nil } ?? nil
    }

    @Test func joinAckEchoesTheModeAskedForUnlessAdaptationIsOff() {
        var core = MeetingSignalingCore(meetingId: "m")
        #expect(joinAck(&core, asking: .bandwidthProbingAndVideoQualityAdaption) == .bandwidthProbingAndVideoQualityAdaption)
        var plain = MeetingSignalingCore(meetingId: "m")
        #expect(joinAck(&plain, asking: nil) == .default)
        var configuration = MeetingSignalingCore.Configuration()
        configuration.serverSideAdaptation = false
        var off = MeetingSignalingCore(meetingId: "m", configuration: configuration)
        #expect(joinAck(&off, asking: .bandwidthProbingAndVideoQualityAdaption) == SdkServerSideNetworkAdaption.none)
    }

    @Test func subscribePreferencesReachTheMediaSideOnlyInMode4() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joinAck(&core, asking: .bandwidthProbingAndVideoQualityAdaption)
        var frame = subscribe(sending: false, receive: [0, 0])
        var configuration = SdkVideoSubscriptionConfiguration()
        configuration.mid = "2"
        configuration.priority = 4_294_967_294
        configuration.targetBitrateKbps = 600
        var keepResolution = configuration
        keepResolution.mid = "4"
        keepResolution.qualityAdaptationPreference = .maintainResolution
        frame.sub.videoSubscriptionConfiguration = [configuration, keepResolution]
        let (request, _) = subscribed(&core, 1, frame)
        #expect(request?.preferences == [
            "2": VideoDownlinkPreference(priority: 4_294_967_294, targetBitrateKbps: 600, degradation: .balanced),
            "4": VideoDownlinkPreference(priority: 4_294_967_294, targetBitrateKbps: 600, degradation: .maintainResolution),
        ])

        var plain = MeetingSignalingCore(meetingId: "m")
        joinAll(&plain, count: 1)
        #expect(subscribed(&plain, 1, frame).0?.preferences == nil)
    }

    /// REMOTE_VIDEO_UPDATE in mode 4 carries preferences (`signaling.md` §3.10): changed entries and removed mids go
    /// to the media side; outside mode 4 only entries naming a stream switch a layer.
    @Test func remoteVideoUpdatePreferencesReachTheMediaSideInMode4() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joinAck(&core, asking: .bandwidthProbingAndVideoQualityAdaption)
        var update = SdkSignalFrame()
        update.type = .remoteVideoUpdate
        var entry = SdkVideoSubscriptionConfiguration()
        entry.mid = "3"
        entry.groupID = 7
        entry.priority = 4_294_967_293
        entry.targetBitrateKbps = 300
        update.remoteVideoUpdate.addedOrUpdatedVideoSubscriptions = [entry]
        update.remoteVideoUpdate.removedVideoSubscriptionMids = ["4"]
        let outputs = core.receive(update, from: connection(1), now: now)
        #expect(outputs.count == 1)
        #expect(outputs.contains {
            if case .updateVideoPreferences(let c, let updated, let removed) = $0 {
                c == connection(1) && removed == ["4"]
                    && updated == ["3": VideoDownlinkPreference(priority: 4_294_967_293, targetBitrateKbps: 300)]
            } else { false }
        })

        var plain = MeetingSignalingCore(meetingId: "m")
        joinAll(&plain, count: 1)
        #expect(plain.receive(update, from: connection(1), now: now).isEmpty)
    }

    @Test func pausesAndEstimatesGoToTheReceiverAsFrames() throws {
        var core = MeetingSignalingCore(meetingId: "m")
        joinAll(&core, count: 2)
        let pause = try #require(frames(core.videoDownlinkPaused(connection(2), groupIds: [3, 5], paused: true, now: now), to: 2, .pause).first)
        #expect(pause.pause.groupIds == [3, 5] && pause.pause.streamIds.isEmpty)
        let resume = try #require(frames(core.videoDownlinkPaused(connection(2), groupIds: [5], paused: false, now: now), to: 2, .resume).first)
        #expect(resume.pause.groupIds == [5])
        let bitrates = try #require(frames(core.videoDownlinkEstimate(connection(2), kbps: 812, now: now), to: 2, .bitrates).first)
        #expect(bitrates.bitrates.serverAvailableOutgoingBitrate == 812 && bitrates.bitrates.bitrates.isEmpty)
        // Nothing for a socket that is not in the meeting.
        #expect(core.videoDownlinkPaused(connection(9), groupIds: [3], paused: true, now: now).isEmpty)
    }
}
