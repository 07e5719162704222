import Carillon
import CarillonCodecs
import Foundation
import Testing

/// Content share through a real server on 127.0.0.1: one attendee shares generated slides, another receives them
/// as an `isContent` tile of `<attendeeId>#content` and reads the slide numbers and the sharer's colour from the
/// decoded pictures; the sharer never receives its own share; a third share in the meeting is refused; stopping
/// removes the tile and reports `ok`.
@Suite(.serialized) struct ContentShareEndToEndTests {
    /// A session with probes, receiving remote video.
    struct Bot {
        let session: DefaultMeetingSession
        let probe: SessionProbe
        let share: ShareProbe
        let tiles: TileWatcher

        var attendeeId: String { session.configuration.credentials.attendeeId }

        static func join(_ harness: ServerHarness, _ meeting: (response: CreateMeetingResponse, meetingId: String),
                         name: String) async throws -> Bot {
            let session = DefaultMeetingSession(configuration: try await harness.configuration(meeting: meeting, name: name),
                                                logger: ConsoleLogger(name: name, level: .OFF))
            let bot = Bot(session: session, probe: SessionProbe(name: name), share: ShareProbe(name: name),
                          tiles: TileWatcher(name: name, facade: session.audioVideo))
            session.audioVideo.addAudioVideoObserver(observer: bot.probe)
            session.audioVideo.addRealtimeObserver(observer: bot.probe)
            session.audioVideo.addMetricsObserver(observer: bot.probe)
            session.audioVideo.addContentShareObserver(observer: bot.share)
            session.audioVideo.addVideoTileObserver(observer: bot.tiles)
            try session.audioVideo.start(audioVideoConfiguration: AudioVideoConfiguration(audioDeviceCapabilities: .none))
            session.audioVideo.startRemoteVideo()
            try await bot.probe.wait("\(name) joined") { $0.starts == [false] }
            return bot
        }

        func leave() async throws {
            session.audioVideo.stop()
            try await probe.wait("\(probe.name) left") { $0.stopStatus == .ok }
        }
    }

    @Test func slidesReachAnotherBotAsAContentTileAndAThirdShareIsRefused() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let alice = try await Bot.join(harness, meeting, name: "alice")
        let bob = try await Bot.join(harness, meeting, name: "bob")

        // Orange slides, a new one every second: the counter is the slide number.
        let slides = try SlidesVideoSource(color: .orange, width: 640, height: 360, fps: 5, secondsPerSlide: 1, seed: 7)
        alice.session.audioVideo.startContentShare(source: ContentShareSource(videoSource: slides))
        slides.start()
        defer { slides.stop() }
        try await alice.share.wait("alice's share started") { $0.starts == 1 }
        try await bob.probe.wait("alice#content in bob's roster") { $0.roster.contains("alice#content") }

        let contentId = alice.attendeeId + "#content"
        try await bob.tiles.wait("three slides on bob's content tile", timeout: .seconds(15)) { tiles in
            tiles.values.contains { $0.attendeeId == contentId && Set($0.counters).count >= 3 }
        }
        let tile = try #require(bob.tiles.tiles(of: contentId).first)
        #expect(tile.isContent)
        // Slides in order, each readable as the sharer's colour.
        #expect(tile.counters == tile.counters.sorted())
        #expect(Set(tile.colors) == ["orange"])
        // The sharer never receives its own share; bob's camera-less session shows no other tile.
        #expect(alice.tiles.tiles(of: contentId).isEmpty)
        #expect(bob.tiles.snapshot.values.allSatisfy { $0.attendeeId == contentId })
        // The share's send metrics reach alice's metrics observers under their contentShare names.
        try await alice.probe.wait("contentShare metrics") { record in
            record.metrics.contains { ($0["contentShareVideoSendBitrate"] ?? 0) > 0 && ($0["contentShareVideoSendFps"] ?? 0) > 0 }
        }

        // A second attendee's share is the meeting's second; a third is refused.
        let carol = try await Bot.join(harness, meeting, name: "carol")
        let dave = try await Bot.join(harness, meeting, name: "dave")
        let carolSlides = try SlidesVideoSource(color: .cyan, width: 320, height: 180, fps: 5)
        let daveSlides = try SlidesVideoSource(color: .purple, width: 320, height: 180, fps: 5)
        carol.session.audioVideo.startContentShare(source: ContentShareSource(videoSource: carolSlides))
        carolSlides.start()
        defer { carolSlides.stop() }
        try await carol.share.wait("carol's share started") { $0.starts == 1 }
        dave.session.audioVideo.startContentShare(source: ContentShareSource(videoSource: daveSlides))
        daveSlides.start()
        defer { daveSlides.stop() }
        try await dave.share.wait("dave's share refused") { $0.stops == [.videoServiceFailed] }
        // Why, where Chime's two codes cannot say: the meeting is at capacity for shares.
        #expect(dave.share.snapshot.causes == [.audioCallAtCapacity])
        #expect(dave.share.snapshot.starts == 0)
        #expect(!bob.probe.snapshot.roster.contains("dave#content"))

        // Stopping ends the share with ok and removes bob's content tile.
        alice.session.audioVideo.stopContentShare()
        try await alice.share.wait("alice's share stopped") { $0.stops == [.ok] }
        try await bob.tiles.wait("alice's content tile removed") { tiles in
            tiles.values.filter { $0.attendeeId == contentId }.allSatisfy(\.removed)
        }
        try await bob.probe.wait("alice#content left the roster") { !$0.roster.contains("alice#content") }
        // The main session is untouched by the share's end.
        #expect(alice.probe.snapshot.stopStatus == nil)

        carol.session.audioVideo.stopContentShare()
        try await carol.share.wait("carol's share stopped") { $0.stops == [.ok] }
        for bot in [alice, bob, carol, dave] { try await bot.leave() }
    }
}
