import Carillon
import CarillonCodecs
import Foundation
import Synchronization
import Testing

/// The Chime guides' remote-video examples, written as an app writes them against the public API, through a real
/// server on 127.0.0.1: "featured video" (one source at the highest priority, the others low, with
/// `updateVideoSourceSubscriptions` keyed by the `RemoteVideoSource` objects the observer was handed) and video
/// pagination (the tiles of the current page resumed, the others paused, active speaker first).
@Suite(.serialized) struct VideoSubscriptionGuideEndToEndTests {
    /// The guide's observer: every source that becomes available is subscribed, the featured attendee's at the
    /// highest priority and high resolution, everybody else's at low priority and low resolution.
    final class FeaturedVideoApp: AudioVideoObserver, @unchecked Sendable {
        let audioVideo: any AudioVideoFacade
        let featuredAttendeeId: String
        /// Every source handed to the observer, available and unavailable, in order.
        let handed = Mutex<(available: [RemoteVideoSource], unavailable: [RemoteVideoSource])>(([], []))

        init(audioVideo: any AudioVideoFacade, featuredAttendeeId: String) {
            self.audioVideo = audioVideo
            self.featuredAttendeeId = featuredAttendeeId
        }

        func remoteVideoSourcesDidBecomeAvailable(sources: [RemoteVideoSource]) {
            handed.withLock { $0.available += sources }
            var updatedSources: [RemoteVideoSource: VideoSubscriptionConfiguration] = [:]
            for source in sources {
                let config = VideoSubscriptionConfiguration()
                if source.attendeeId == featuredAttendeeId {
                    config.priority = .highest
                    config.targetResolution = .high
                } else {
                    config.priority = .low
                    config.targetResolution = .low
                }
                updatedSources[source] = config
            }
            audioVideo.updateVideoSourceSubscriptions(addedOrUpdated: updatedSources, removed: [])
        }

        func remoteVideoSourcesDidBecomeUnavailable(sources: [RemoteVideoSource]) {
            handed.withLock { $0.unavailable += sources }
        }

        func audioSessionDidStartConnecting(reconnecting: Bool) {}
        func audioSessionDidStart(reconnecting: Bool) {}
        func audioSessionDidDrop() {}
        func audioSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {}
        func audioSessionDidCancelReconnect() {}
        func connectionDidRecover() {}
        func connectionDidBecomePoor() {}
        func videoSessionDidStartConnecting() {}
        func videoSessionDidStartWithStatus(sessionStatus: MeetingSessionStatus) {}
        func videoSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {}
        func cameraSendAvailabilityDidChange(available: Bool) {}
    }

    /// The pagination guide's app: remote tiles ordered active speakers first (then by attendee id), `pageSize` per
    /// page; the current page's tiles are resumed and every other tile paused.
    final class PaginationApp: ActiveSpeakerObserver, VideoTileObserver, @unchecked Sendable {
        let audioVideo: any AudioVideoFacade
        let pageSize: Int
        private let state = Mutex<(tiles: [Int: String], speakers: [String], page: Int)>(([:], [], 0))
        /// Pause states seen per tile, in order.
        let pauseStates = Mutex<[Int: [VideoPauseState]]>([:])

        init(audioVideo: any AudioVideoFacade, pageSize: Int) {
            self.audioVideo = audioVideo
            self.pageSize = pageSize
        }

        /// The tiles in display order.
        var ordered: [(tileId: Int, attendeeId: String)] {
            state.withLock { state in
                state.tiles.map { (tileId: $0.key, attendeeId: $0.value) }.sorted { a, b in
                    let sa = state.speakers.firstIndex(of: a.attendeeId) ?? Int.max
                    let sb = state.speakers.firstIndex(of: b.attendeeId) ?? Int.max
                    return sa != sb ? sa < sb : a.attendeeId < b.attendeeId
                }
            }
        }

        /// Shows page `page`: resumes its tiles, pauses the others.
        func show(page: Int) {
            state.withLock { $0.page = page }
            for (index, tile) in ordered.enumerated() {
                if index / pageSize == page {
                    audioVideo.resumeRemoteVideoTile(tileId: tile.tileId)
                } else {
                    audioVideo.pauseRemoteVideoTile(tileId: tile.tileId)
                }
            }
        }

        private func refresh() { show(page: state.withLock { $0.page }) }

        var observerId: String { "pagination" }
        var scoresCallbackIntervalMs: Int { 0 }
        func activeSpeakerScoreDidChange(scores: [AttendeeInfo: Double]) {}
        func activeSpeakerDidDetect(attendeeInfo: [AttendeeInfo]) {
            state.withLock { $0.speakers = attendeeInfo.map(\.attendeeId) }
            refresh()
        }

        func videoTileDidAdd(tileState: VideoTileState) {
            guard !tileState.isLocalTile else { return }
            state.withLock { $0.tiles[tileState.tileId] = tileState.attendeeId }
            record(tileState)
            refresh()
        }
        func videoTileDidRemove(tileState: VideoTileState) {
            state.withLock { $0.tiles[tileState.tileId] = nil }
            refresh()
        }
        func videoTileDidPause(tileState: VideoTileState) { record(tileState) }
        func videoTileDidResume(tileState: VideoTileState) { record(tileState) }
        func videoTileSizeDidChange(tileState: VideoTileState) {}

        private func record(_ tile: VideoTileState) {
            pauseStates.withLock { $0[tile.tileId, default: []].append(tile.pauseState) }
        }
    }

    /// A session sending a pattern camera (and a tone, when given) and receiving remote video.
    struct Bot {
        let session: DefaultMeetingSession
        let probe: SessionProbe
        let tiles: TileWatcher
        let camera: PatternVideoSource?

        var attendeeId: String { session.configuration.credentials.attendeeId }

        static func join(_ harness: ServerHarness, _ meeting: (response: CreateMeetingResponse, meetingId: String),
                         name: String, color: VideoTestPattern.Color?, tone: Double? = nil, maxBitRateKbps: UInt32 = 0,
                         width: Int = 320, height: Int = 180, configure: (DefaultMeetingSession) -> Void = { _ in }) async throws -> Bot {
            let session = DefaultMeetingSession(configuration: try await harness.configuration(meeting: meeting, name: name),
                                                logger: ConsoleLogger(name: name, level: .OFF))
            let probe = SessionProbe(name: name)
            let tiles = TileWatcher(name: name, facade: session.audioVideo)
            session.audioVideo.addAudioVideoObserver(observer: probe)
            session.audioVideo.addRealtimeObserver(observer: probe)
            session.audioVideo.addVideoTileObserver(observer: tiles)
            configure(session)
            if let tone {
                let devices = try #require(session.audioVideo as? DefaultAudioVideoFacade).deviceController
                session.audioVideo.chooseAudioDevice(mediaDevice: try devices.virtualDevices.addTone(frequency: tone))
                try session.audioVideo.start()
            } else {
                try session.audioVideo.start(audioVideoConfiguration: AudioVideoConfiguration(audioDeviceCapabilities: .none))
            }
            try await probe.wait("\(name) joined") { $0.starts == [false] }
            var camera: PatternVideoSource?
            if let color {
                let source = try PatternVideoSource(color: color, width: width, height: height, fps: 15)
                session.audioVideo.startLocalVideo(source: source, config: LocalVideoConfiguration(maxBitRateKbps: maxBitRateKbps))
                source.start()
                camera = source
            }
            session.audioVideo.startRemoteVideo()
            return Bot(session: session, probe: probe, tiles: tiles, camera: camera)
        }

        func leave() async throws {
            camera?.stop()
            session.audioVideo.stop()
            try await probe.wait("\(probe.name) left") { $0.stopStatus == .ok }
        }
    }

    /// Frames of `attendeeId`'s live tile on `bot`.
    static func frames(_ bot: Bot, of attendeeId: String) -> Int { bot.tiles.tiles(of: attendeeId).map(\.frames).reduce(0, +) }

    @Test func featuredVideoSubscribesTheHandedOutSourcesAndFollowsTheirAvailability() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        // Cameras at 300 kbit/s, within the viewer's starting downlink estimate: nothing is paused for bandwidth here.
        let featured = try await Bot.join(harness, meeting, name: "featured", color: .red, maxBitRateKbps: 300)
        let other = try await Bot.join(harness, meeting, name: "other", color: .green, maxBitRateKbps: 300)
        var app: FeaturedVideoApp?
        let viewer = try await Bot.join(harness, meeting, name: "viewer", color: nil) { session in
            let observer = FeaturedVideoApp(audioVideo: session.audioVideo, featuredAttendeeId: featured.attendeeId)
            session.audioVideo.addAudioVideoObserver(observer: observer)
            app = observer
        }
        let guide = try #require(app)

        // Both subscribed (with their priorities): both tiles play.
        try await viewer.tiles.wait("both tiles play", timeout: .seconds(15)) { _ in
            Self.frames(viewer, of: featured.attendeeId) >= 15 && Self.frames(viewer, of: other.attendeeId) >= 15
        }
        let handed = guide.handed.withLock { $0.available }
        #expect(Set(handed.map(\.attendeeId)) == [featured.attendeeId, other.attendeeId])

        // The app drops the other source: its tile goes, the featured one plays on.
        let otherSource = try #require(handed.first { $0.attendeeId == other.attendeeId })
        viewer.session.audioVideo.updateVideoSourceSubscriptions(addedOrUpdated: [:], removed: [otherSource])
        try await viewer.tiles.wait("the other tile removed") { _ in viewer.tiles.tiles(of: other.attendeeId).isEmpty }
        let before = Self.frames(viewer, of: featured.attendeeId)
        try await viewer.tiles.wait("the featured tile plays on") { _ in Self.frames(viewer, of: featured.attendeeId) >= before + 15 }
        #expect(viewer.tiles.tiles(of: other.attendeeId).isEmpty)

        // The featured camera stops: its source becomes unavailable (the same object) and is unsubscribed; when it
        // starts again the observer is handed a new source and subscribes it: its tile comes back and plays.
        featured.camera?.stop()
        featured.session.audioVideo.stopLocalVideo()
        try await viewer.tiles.wait("the featured tile removed") { _ in viewer.tiles.tiles(of: featured.attendeeId).isEmpty }
        let unavailable = guide.handed.withLock { $0.unavailable }
        let featuredSource = try #require(handed.first { $0.attendeeId == featured.attendeeId })
        #expect(unavailable.contains { $0 === featuredSource })
        let camera = try PatternVideoSource(color: .red, width: 320, height: 180, fps: 15)
        featured.session.audioVideo.startLocalVideo(source: camera, config: LocalVideoConfiguration(maxBitRateKbps: 300))
        camera.start()
        defer { camera.stop() }
        try await viewer.tiles.wait("the featured tile back and playing", timeout: .seconds(15)) { _ in
            Self.frames(viewer, of: featured.attendeeId) >= 15
        }
        let again = guide.handed.withLock { $0.available }.filter { $0.attendeeId == featured.attendeeId }
        #expect(again.count == 2 && again[0] !== again[1])
        // The other attendee stays unsubscribed.
        #expect(viewer.tiles.tiles(of: other.attendeeId).isEmpty)

        for bot in [featured, other, viewer] { try await bot.leave() }
    }

    @Test func paginationPausesTheTilesOffThePageActiveSpeakerFirst() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        // Cameras at 300 kbit/s: the three fit the viewer's starting downlink estimate, so the server pauses none of
        // them (that is the other tests' subject) and only the app's paging pauses tiles.
        let alice = try await Bot.join(harness, meeting, name: "alice", color: .red, maxBitRateKbps: 300)
        let bob = try await Bot.join(harness, meeting, name: "bob", color: .green, maxBitRateKbps: 300)
        // Carol speaks: the active speaker comes first, on page 0 with the first of the others by attendee id.
        let carol = try await Bot.join(harness, meeting, name: "carol", color: .blue, tone: 440, maxBitRateKbps: 300)
        var app: PaginationApp?
        let viewer = try await Bot.join(harness, meeting, name: "viewer", color: nil) { session in
            let observer = PaginationApp(audioVideo: session.audioVideo, pageSize: 2)
            session.audioVideo.addVideoTileObserver(observer: observer)
            session.audioVideo.addActiveSpeakerObserver(policy: DefaultActiveSpeakerPolicy(), observer: observer)
            app = observer
        }
        let pages = try #require(app)
        try await viewer.tiles.wait("three tiles, carol first", timeout: .seconds(20)) { _ in
            let order = pages.ordered.map(\.attendeeId)
            return order.count == 3 && order.first == carol.attendeeId
        }
        pages.show(page: 0)
        let order = pages.ordered
        let onPage = order.prefix(2).map(\.attendeeId), offPage = order[2].attendeeId
        #expect(Set(onPage).contains(carol.attendeeId))
        #expect(Set(order.map(\.attendeeId)) == [alice.attendeeId, bob.attendeeId, carol.attendeeId])
        // The tile off the page is paused by the user (the app) and gets no frames; the page's tiles play.
        try await Task.sleep(for: .seconds(1))
        let pausedAt = Self.frames(viewer, of: offPage)
        let playingAt = onPage.map { Self.frames(viewer, of: $0) }
        do {
            try await viewer.tiles.wait("page 0 plays") { _ in
                zip(onPage, playingAt).allSatisfy { Self.frames(viewer, of: $0) >= $1 + 20 }
            }
        } catch {
            Issue.record("pause states \(pages.pauseStates.withLock { $0 }), order \(order), off page \(offPage)")
            throw error
        }
        #expect(Self.frames(viewer, of: offPage) <= pausedAt + 1)
        #expect(pages.pauseStates.withLock { $0[order[2].tileId]?.last } == .pausedByUserRequest)

        // Page 1: the third tile resumes and plays, the first two are paused.
        pages.show(page: 1)
        let resumedAt = Self.frames(viewer, of: offPage)
        try await viewer.tiles.wait("page 1 plays") { _ in Self.frames(viewer, of: offPage) >= resumedAt + 20 }
        try await Task.sleep(for: .seconds(1))
        let stopped = onPage.map { Self.frames(viewer, of: $0) }
        try await Task.sleep(for: .seconds(1))
        #expect(zip(onPage, stopped).allSatisfy { Self.frames(viewer, of: $0) <= $1 + 1 })
        #expect(pages.pauseStates.withLock { $0[order[2].tileId]?.last } == .unpaused)
        #expect(order.prefix(2).allSatisfy { tile in pages.pauseStates.withLock { $0[tile.tileId]?.last } == .pausedByUserRequest })

        for bot in [alice, bob, carol, viewer] { try await bot.leave() }
    }
}
