import CarillonProtocol
import NIOCore
import Testing

@testable import Carillon

/// Remote video subscriptions in the client's signaling core: the adaptation mode JOIN asks for and JOIN_ACK
/// decides, the app's subscriptions (exactly those, unavailable ones dropped), their preferences in SUBSCRIBE, and the
/// server's PAUSE/RESUME of sources.
extension SignalingSessionVideoTests {
    /// A core in the meeting in adaptation `mode` (JOIN_ACK), receiving video, whose first INDEX had `sources`.
    func adaptive(_ mode: SdkServerSideNetworkAdaption = .bandwidthProbingAndVideoQualityAdaption,
                  sources: [SdkStreamDescriptor]) -> SignalingSessionCore {
        var core = SignalingSessionCore(
            credentials: MeetingSessionCredentials(attendeeId: "self-id", externalUserId: "self", joinToken: "t"),
            audioSessionId: 1, random: { 0.5 })
        _ = core.start(reconnectBudget: .seconds(120), now: start)
        _ = core.socketOpened(now: start)
        _ = core.received(frame(.joinAck) { $0.joinack.defaultServerSideNetworkAdaption = mode }, now: start)
        _ = core.received(index(sources), now: start)
        _ = core.mediaOfferReady("offer", now: start)
        _ = core.received(frame(.subscribeAck) { $0.suback.sdpAnswer = "answer" }, now: start)
        _ = core.mediaConnected(now: start)
        return core
    }

    /// Sends the offer for the pending plan and answers it; the SUBSCRIBE sent.
    func offerAndAnswer(_ core: inout SignalingSessionCore) throws -> SdkSubscribeFrame {
        let subscribe = try #require(subscribes(core.mediaOfferReady("offer", now: start)).first)
        _ = core.received(frame(.subscribeAck) { $0.suback.sdpAnswer = "answer" }, now: start)
        return subscribe
    }

    static func preference(_ priority: VideoPriority, _ resolution: VideoResolution) -> SessionMediaPlan.ReceivePreference {
        let configuration = VideoSubscriptionConfiguration()
        configuration.priority = priority
        configuration.targetResolution = resolution
        return configuration.receivePreference
    }

    @Test func joinAsksForServerSideAdaptationAndJoinAckDecides() throws {
        var core = SignalingSessionCore(
            credentials: MeetingSessionCredentials(attendeeId: "self-id", externalUserId: "self", joinToken: "t"),
            audioSessionId: 1, random: { 0.5 })
        _ = core.start(reconnectBudget: .seconds(120), now: start)
        let join = try #require(core.socketOpened(now: start).compactMap {
            if case .send(let frame) = $0, frame.type == .join { frame.join } else { nil }
        }.first)
        #expect(join.serverSideNetworkAdaption == .bandwidthProbingAndVideoQualityAdaption)
        #expect(join.supportedServerSideNetworkAdaptions == [.none, .bandwidthProbing, .bandwidthProbingAndVideoQualityAdaption])
        // A JOIN_ACK without the field means DEFAULT (as Chime's client reads it).
        _ = core.received(frame(.joinAck), now: start)
        #expect(core.adaptation == .default)
        #expect(adaptive(sources: []).adaptation == .bandwidthProbingAndVideoQualityAdaption)
    }

    @Test func priorityAndResolutionMapToTheWire() {
        #expect(Self.preference(.highest, .high) == .init(priority: 4_294_967_294, targetBitrateKbps: 1_500))
        #expect(Self.preference(.high, .medium) == .init(priority: 4_294_967_284, targetBitrateKbps: 600))
        #expect(Self.preference(.lowest, .low) == .init(priority: 4_294_967_254, targetBitrateKbps: 300))
        #expect(Self.preference(.medium, .videoResolutionHD).targetBitrateKbps == 10_000)
        // The defaults: high priority, 960x720.
        #expect(VideoSubscriptionConfiguration().receivePreference == .init(priority: 4_294_967_284, targetBitrateKbps: 1_500))
    }

    @Test func automaticSubscriptionsCarryChimesDefaultPreferencesInMode4() throws {
        var core = adaptive(sources: [source("a", stream: 3, group: 1), source("b", stream: 6, group: 4)])
        _ = try #require(plans(core.setReceivingVideo(true, now: start)).first)
        let subscribe = try offerAndAnswer(&core)
        #expect(subscribe.receiveStreamIds == [0, 3, 6])
        let configurations = subscribe.videoSubscriptionConfiguration
        #expect(configurations.map(\.mid) == ["2", "3"])
        #expect(configurations.map(\.attendeeID) == ["a", "b"])
        #expect(configurations.map(\.groupID) == [1, 4])
        #expect(configurations.allSatisfy { $0.priority == 4_294_967_294 && $0.targetBitrateKbps == 10_000 })
        #expect(configurations.allSatisfy { $0.qualityAdaptationPreference == .balanced && !$0.hasStreamID })
    }

    @Test func withoutServerSideAdaptationNoConfigurationIsSent() throws {
        var core = joined(sources: [source("a", stream: 3, group: 1)])
        _ = try #require(plans(core.setReceivingVideo(true, now: start)).first)
        _ = core.updateVideoSubscriptions(addedOrUpdated: ["a": Self.preference(.low, .low)], removed: [], now: start)
        #expect(try offerAndAnswer(&core).videoSubscriptionConfiguration.isEmpty)
    }

    @Test func theAppReceivesExactlyWhatItSubscribedToWithItsPreferences() throws {
        var core = adaptive(sources: [source("a", stream: 3, group: 1), source("b", stream: 6, group: 4),
                                      source("c", stream: 9, group: 5)])
        _ = try #require(plans(core.setReceivingVideo(true, now: start)).first)
        _ = try offerAndAnswer(&core)
        #expect(core.mediaPlan.receiveSlots == [3, 6, 9])
        // The app subscribes to a (featured) and c: b's m-line goes inactive.
        let plan = try #require(plans(core.updateVideoSubscriptions(
            addedOrUpdated: ["a": Self.preference(.highest, .high), "c": Self.preference(.low, .low)], removed: [],
            now: start)).first)
        #expect(plan.receiveSlots == [3, 0, 9])
        let subscribe = try offerAndAnswer(&core)
        #expect(subscribe.videoSubscriptionConfiguration.map(\.mid) == ["2", "4"])
        #expect(subscribe.videoSubscriptionConfiguration.map(\.priority) == [4_294_967_294, 4_294_967_264])
        #expect(subscribe.videoSubscriptionConfiguration.map(\.targetBitrateKbps) == [1_500, 300])
        // A priority change alone is sent again in a SUBSCRIBE.
        let changed = try #require(plans(core.updateVideoSubscriptions(
            addedOrUpdated: ["c": Self.preference(.highest, .medium)], removed: [], now: start)).first)
        #expect(changed.receiveSlots == [3, 0, 9])
        #expect(try offerAndAnswer(&core).videoSubscriptionConfiguration.map(\.priority) == [4_294_967_294, 4_294_967_294])
        // Removing a leaves c alone.
        #expect(plans(core.updateVideoSubscriptions(addedOrUpdated: [:], removed: ["a"], now: start)).first?.receiveSlots == [0, 0, 9])
    }

    @Test func sourcesThatBecomeUnavailableAreUnsubscribed() throws {
        var core = adaptive(sources: [source("a", stream: 3, group: 1), source("b", stream: 6, group: 4)])
        _ = core.setReceivingVideo(true, now: start)
        _ = try offerAndAnswer(&core)
        _ = core.updateVideoSubscriptions(addedOrUpdated: ["a": Self.preference(.high, .high)], removed: [], now: start)
        _ = try offerAndAnswer(&core)
        #expect(core.videoSubscriptions?.keys.sorted() == ["a"])
        // a's video goes: unsubscribed. When it comes back (a new publication) it is not received until the app
        // subscribes again; b is not received either (the app set subscriptions).
        _ = core.received(index([source("b", stream: 6, group: 4)]), now: start)
        #expect(core.videoSubscriptions == [:])
        _ = try offerAndAnswer(&core)
        #expect(core.mediaPlan.receiveSlots == [0, 0])
        #expect(plans(core.received(index([source("a", stream: 11, group: 7), source("b", stream: 6, group: 4)]), now: start)).isEmpty)
    }

    @Test func serverPauseAndResumeOfSourcesMarkTheirStreams() throws {
        var core = adaptive(sources: [source("a", stream: 3, group: 1), source("b", stream: 6, group: 4)])
        func paused(_ actions: [SessionAction]) -> [Set<UInt32>] {
            actions.compactMap { if case .setVideoPausedAtSource(let ids) = $0 { ids } else { nil } }
        }
        #expect(paused(core.received(frame(.pause) { $0.pause.groupIds = [4] }, now: start)) == [[6]])
        // Repeated: no news.
        #expect(paused(core.received(frame(.pause) { $0.pause.groupIds = [4] }, now: start)).isEmpty)
        // Combined with INDEX paused_at_source_ids.
        #expect(paused(core.received(frame(.index) {
            $0.index.sources = [source("a", stream: 3, group: 1), source("b", stream: 6, group: 4)]
            $0.index.pausedAtSourceIds = [3]
        }, now: start)) == [[3, 6]])
        #expect(paused(core.received(frame(.resume) { $0.pause.groupIds = [4] }, now: start)) == [[3]])
        // An unknown group changes nothing.
        #expect(paused(core.received(frame(.pause) { $0.pause.groupIds = [99] }, now: start)).isEmpty)
    }
}
