import CarillonCodecs
import Dispatch
import Foundation
import Testing

@testable import Carillon

/// The tile rules of `api-inventory.md` §2.6, case by case, with frames delivered on the callback queue as the
/// session delivers them.
@Suite struct VideoTileControllerTests {
    let callbacks = TestCallbackQueue()
    let control = FakeVideoControl()
    let logger = RecordingLogger()
    let controller: DefaultVideoTileController
    let events: TileEvents

    init() {
        controller = DefaultVideoTileController(selfAttendeeId: "me", control: control, callbackQueue: callbacks.queue,
                                                logger: logger)
        events = TileEvents(queueKey: callbacks.key)
        controller.addVideoTileObserver(observer: events)
    }

    /// Delivers a frame on the callback queue and lets its callbacks run.
    func deliver(_ frame: VideoFrame?, videoId: Int, attendeeId: String? = "bob", pauseState: VideoPauseState = .unpaused) {
        callbacks.run { controller.onReceiveFrame(frame: frame, videoId: videoId, attendeeId: attendeeId, pauseState: pauseState) }
        callbacks.drain()
    }

    func event(_ kind: String, _ tileId: Int, _ width: Int, _ height: Int, _ pause: VideoPauseState = .unpaused,
               attendee: String = "bob", local: Bool = false, content: Bool = false) -> TileEvent {
        TileEvent(kind: kind, tileId: tileId, attendeeId: attendee, width: width, height: height, pauseState: pause,
                  isLocal: local, isContent: content)
    }

    @Test func theFirstFrameAddsATileWithItsSizeAndLaterFramesReachTheBoundView() {
        deliver(TestFrames.flat(320, 180), videoId: 5)
        #expect(events.events == [event("add", 5, 320, 180)])
        let view = FrameRecorder()
        controller.bindVideoView(videoView: view, tileId: 5)
        callbacks.drain()
        #expect(view.count == 0, "the adding frame is not shown (Chime)")
        deliver(TestFrames.flat(320, 180, timestampNs: 7), videoId: 5)
        #expect(view.received.map(\.timestampNs) == [7])
        #expect(events.events.count == 1)
    }

    @Test func aPausedVideoWithoutFramesAddsAPausedTileButAnEndedUnknownVideoAddsNothing() {
        deliver(nil, videoId: 8, pauseState: .unpaused)
        #expect(events.events.isEmpty)
        deliver(nil, videoId: 7, pauseState: .pausedForPoorConnection)
        #expect(events.events == [event("add", 7, 0, 0, .pausedForPoorConnection)])
    }

    @Test func aNewSizeIsReportedOnceAndAnUnpausedEmptyFrameRemovesTheTile() {
        deliver(TestFrames.flat(320, 180), videoId: 5)
        deliver(TestFrames.flat(320, 180), videoId: 5)
        deliver(TestFrames.flat(640, 360), videoId: 5)
        deliver(TestFrames.flat(640, 360), videoId: 5)
        #expect(events.kinds == ["add", "size"])
        #expect(events.events.last == event("size", 5, 640, 360))
        // A paused empty frame is a pause, not an end.
        deliver(nil, videoId: 5, pauseState: .pausedForPoorConnection)
        #expect(events.kinds == ["add", "size", "pause"])
        deliver(nil, videoId: 5, pauseState: .unpaused)
        #expect(events.kinds == ["add", "size", "pause", "remove"])
        // The tile is gone: the next frame adds it again.
        deliver(TestFrames.flat(640, 360), videoId: 5)
        #expect(events.kinds == ["add", "size", "pause", "remove", "add"])
    }

    @Test func aUserPauseShadowsThePoorConnectionPauseUntilTheUserResumes() {
        deliver(TestFrames.flat(320, 180), videoId: 5)
        let view = FrameRecorder()
        controller.bindVideoView(videoView: view, tileId: 5)
        deliver(nil, videoId: 5, pauseState: .pausedForPoorConnection)
        #expect(events.events.last == event("pause", 5, 320, 180, .pausedForPoorConnection))
        controller.pauseRemoteVideoTile(tileId: 5)
        callbacks.drain()
        #expect(control.calls == [.decoded(true, videoId: 5), .paused(true, videoId: 5)])
        #expect(events.events.last == event("pause", 5, 320, 180, .pausedByUserRequest))
        // Pausing again asks the session again but tells nobody.
        controller.pauseRemoteVideoTile(tileId: 5)
        callbacks.drain()
        #expect(control.calls == [.decoded(true, videoId: 5), .paused(true, videoId: 5), .paused(true, videoId: 5)])
        #expect(events.kinds == ["add", "pause", "pause"])
        // The session's own states do not lift a user pause, and nothing is shown meanwhile.
        deliver(TestFrames.flat(320, 180), videoId: 5, pauseState: .unpaused)
        deliver(nil, videoId: 5, pauseState: .pausedForPoorConnection)
        #expect(events.kinds == ["add", "pause", "pause"])
        #expect(view.count == 0)
        controller.resumeRemoteVideoTile(tileId: 5)
        callbacks.drain()
        #expect(control.calls.last == .paused(false, videoId: 5))
        #expect(events.events.last == event("resume", 5, 320, 180, .unpaused))
        deliver(TestFrames.flat(320, 180), videoId: 5)
        #expect(view.count == 1)
    }

    @Test func resumeClearsOnlyAUserPause() {
        deliver(TestFrames.flat(320, 180), videoId: 5)
        deliver(nil, videoId: 5, pauseState: .pausedForPoorConnection)
        controller.resumeRemoteVideoTile(tileId: 5)
        callbacks.drain()
        #expect(control.calls == [.paused(false, videoId: 5)])
        #expect(events.kinds == ["add", "pause"], "a poor-connection pause stays")
        deliver(TestFrames.flat(320, 180), videoId: 5, pauseState: .unpaused)
        #expect(events.events.last == event("resume", 5, 320, 180, .unpaused))
        // Unknown tiles: nothing at all.
        controller.pauseRemoteVideoTile(tileId: 99)
        controller.resumeRemoteVideoTile(tileId: 99)
        callbacks.drain()
        #expect(control.calls == [.paused(false, videoId: 5)])
    }

    @Test func theLocalTileHasTheSelfAttendeeAndRefusesPauseAndResume() {
        deliver(TestFrames.flat(160, 90), videoId: DefaultVideoTileController.localVideoId, attendeeId: nil)
        #expect(events.events == [event("add", 0, 160, 90, attendee: "me", local: true)])
        controller.pauseRemoteVideoTile(tileId: 0)
        controller.resumeRemoteVideoTile(tileId: 0)
        callbacks.drain()
        #expect(control.calls.isEmpty)
        #expect(events.events.count == 1)
        #expect(logger.messages(at: .FAULT) == ["You cannot pauseRemoteVideoTile on local VideoTile",
                                                "You cannot resumeRemoteVideoTile on local VideoTile"])
    }

    @Test func viewsAreBoundByIdentity() {
        deliver(TestFrames.flat(320, 180), videoId: 1)
        deliver(TestFrames.flat(320, 180), videoId: 2)
        let a = FrameRecorder(), b = FrameRecorder()
        controller.bindVideoView(videoView: a, tileId: 1)
        // Binding a view elsewhere moves it.
        controller.bindVideoView(videoView: a, tileId: 2)
        deliver(TestFrames.flat(320, 180, timestampNs: 1), videoId: 1)
        deliver(TestFrames.flat(320, 180, timestampNs: 2), videoId: 2)
        #expect(a.received.map(\.timestampNs) == [2])
        // Binding another view to a tile replaces its view.
        controller.bindVideoView(videoView: b, tileId: 2)
        deliver(TestFrames.flat(320, 180, timestampNs: 3), videoId: 2)
        #expect(a.received.map(\.timestampNs) == [2])
        #expect(b.received.map(\.timestampNs) == [3])
        // Binding a bound view to an unknown tile unbinds it and binds nothing.
        controller.bindVideoView(videoView: b, tileId: 99)
        deliver(TestFrames.flat(320, 180, timestampNs: 4), videoId: 2)
        #expect(b.received.map(\.timestampNs) == [3])
        // Two views can show two tiles.
        controller.bindVideoView(videoView: a, tileId: 1)
        controller.bindVideoView(videoView: b, tileId: 2)
        deliver(TestFrames.flat(320, 180, timestampNs: 5), videoId: 1)
        deliver(TestFrames.flat(320, 180, timestampNs: 6), videoId: 2)
        #expect(a.received.map(\.timestampNs) == [2, 5])
        #expect(b.received.map(\.timestampNs) == [3, 6])
    }

    @Test func unbindForgetsTheTileSoTheNextFrameAddsItAgain() {
        deliver(TestFrames.flat(320, 180), videoId: 3)
        let view = FrameRecorder()
        controller.bindVideoView(videoView: view, tileId: 3)
        controller.unbindVideoView(tileId: 3)
        callbacks.drain()
        deliver(TestFrames.flat(320, 180, timestampNs: 1), videoId: 3)
        #expect(events.kinds == ["add", "add"], "no remove: unbinding drops the tile silently (Chime)")
        #expect(view.count == 0)
        // The re-added tile has no view: the old binding went with the unbind.
        deliver(TestFrames.flat(320, 180, timestampNs: 2), videoId: 3)
        #expect(view.count == 0)
    }

    @Test func aRemoteVideoIsDecodedOnlyWhileAViewIsBoundToItsTile() {
        deliver(TestFrames.flat(320, 180), videoId: 1)
        deliver(TestFrames.flat(320, 180), videoId: 2)
        deliver(TestFrames.flat(160, 90), videoId: DefaultVideoTileController.localVideoId, attendeeId: nil)
        let view = FrameRecorder()
        controller.bindVideoView(videoView: view, tileId: 1)
        // Moving the view stops the first video's decoding and starts the second's.
        controller.bindVideoView(videoView: view, tileId: 2)
        // The local tile is never decoded: it is what this side sends.
        controller.bindVideoView(videoView: FrameRecorder(), tileId: 0)
        callbacks.drain()
        #expect(control.calls == [.decoded(true, videoId: 1), .decoded(false, videoId: 1), .decoded(true, videoId: 2)])
        // The video ends: its view goes with the tile, and so does its decoding.
        deliver(nil, videoId: 2)
        #expect(control.calls.last == .decoded(false, videoId: 2))
        controller.bindVideoView(videoView: view, tileId: 1)
        controller.unbindVideoView(tileId: 1)
        callbacks.drain()
        #expect(control.calls.suffix(2) == [.decoded(true, videoId: 1), .decoded(false, videoId: 1)])
    }

    @Test func anUndecodedVideosAnnouncementsAddResizeAndResumeItsTileWithNothingShown() {
        let arrive = { (width: Int, height: Int) in
            callbacks.run {
                controller.remoteVideoArrived(width: width, height: height, timestampNanoseconds: 1, videoId: 4,
                                              attendeeId: "bob")
            }
            callbacks.drain()
        }
        arrive(320, 180)
        #expect(events.events == [event("add", 4, 320, 180)])
        arrive(640, 360)
        deliver(nil, videoId: 4, pauseState: .pausedForPoorConnection)
        arrive(640, 360)
        #expect(events.kinds == ["add", "size", "pause", "resume"])
        #expect(events.events.last == event("resume", 4, 640, 360))
    }

    @Test func callbacksComeOnTheCallbackQueueInOrderWhateverThreadFeedsTheController() {
        // Fed from the test's thread, not the queue: every call is carried to the queue in order.
        controller.onReceiveFrame(frame: TestFrames.flat(320, 180), videoId: 4, attendeeId: "bob", pauseState: .unpaused)
        controller.onReceiveFrame(frame: TestFrames.flat(640, 360), videoId: 4, attendeeId: "bob", pauseState: .unpaused)
        controller.onReceiveFrame(frame: nil, videoId: 4, attendeeId: "bob", pauseState: .pausedForPoorConnection)
        controller.onReceiveFrame(frame: TestFrames.flat(640, 360), videoId: 4, attendeeId: "bob", pauseState: .unpaused)
        controller.onReceiveFrame(frame: nil, videoId: 4, attendeeId: "bob", pauseState: .unpaused)
        callbacks.drain()
        #expect(events.kinds == ["add", "size", "pause", "resume", "remove"])
        #expect(events.offQueue == 0)
        // A removed observer hears nothing more.
        controller.removeVideoTileObserver(observer: events)
        deliver(TestFrames.flat(320, 180), videoId: 6)
        #expect(events.kinds.count == 5)
    }

    @Test func sessionFramesBecomeI420FramesWithoutACopyAndContentTilesAreMarked() throws {
        let image = try I420Image(width: 64, height: 36, y: 90, u: 100, v: 110)
        callbacks.run {
            controller.remoteVideoFrame(image, timestampNanoseconds: 10, videoId: 9, attendeeId: "carol#content",
                                        pausedForPoorConnection: false)
        }
        callbacks.drain()
        #expect(events.events == [event("add", 9, 64, 36, attendee: "carol#content", content: true)])
        let view = FrameRecorder()
        controller.bindVideoView(videoView: view, tileId: 9)
        callbacks.run {
            controller.remoteVideoFrame(image, timestampNanoseconds: 20, videoId: 9, attendeeId: "carol#content",
                                        pausedForPoorConnection: false)
        }
        let frame = try #require(view.received.first)
        let buffer = try #require(frame.buffer as? VideoFrameI420Buffer)
        #expect(frame.timestampNs == 20 && frame.rotation == .rotation0)
        #expect(buffer.image == image)
        let sameStorage = buffer.image.storage.withUnsafeBufferPointer { a in image.storage.withUnsafeBufferPointer { a.baseAddress == $0.baseAddress } }
        #expect(sameStorage)
        callbacks.run {
            controller.remoteVideoFrame(nil, timestampNanoseconds: 30, videoId: 9, attendeeId: "carol#content",
                                        pausedForPoorConnection: true)
        }
        callbacks.drain()
        #expect(events.kinds == ["add", "pause"])
        #expect(events.events.last?.pauseState == .pausedForPoorConnection)
    }
}
