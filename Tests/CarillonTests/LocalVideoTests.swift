import CarillonCodecs
import Dispatch
import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import Carillon

/// The facade's video: local video through the seam (a fake session), the local tile, the SDK's camera and the
/// device controller, remote video and tile pause requests.
@Suite struct LocalVideoTests {
    let loop = EmbeddedEventLoop()
    let callbacks = TestCallbackQueue()
    let control = FakeVideoControl()
    let logger = RecordingLogger()

    func facade(features: MeetingFeatures = MeetingFeatures(), cameras: VirtualVideoDevices = VirtualVideoDevices())
        -> DefaultAudioVideoFacade {
        let urls = MeetingSessionURLs(audioFallbackUrl: "ws://127.0.0.1:1/calls/m", audioHostUrl: "127.0.0.1:1",
                                      turnControlUrl: "http://127.0.0.1:1/turn", signalingUrl: "ws://127.0.0.1:1/control/m",
                                      urlRewriter: URLRewriterUtils.defaultUrlRewriter)
        let configuration = MeetingSessionConfiguration(
            meetingId: "m", externalMeetingId: nil,
            credentials: MeetingSessionCredentials(attendeeId: "a-1", externalUserId: "alice", joinToken: "t"),
            urls: urls, urlRewriter: URLRewriterUtils.defaultUrlRewriter, meetingFeatures: features)
        let facade = DefaultAudioVideoFacade(configuration: configuration, logger: logger, callbackQueue: callbacks.queue,
                                             videoControl: control, cameras: cameras, captureEventLoop: loop)
        facade.camera.format = VideoCaptureFormat(width: 320, height: 180, maxFrameRate: 15)
        return facade
    }

    @Test func startLocalVideoSendsTheCameraAndShowsItAsTheLocalTile() throws {
        let audioVideo = facade()
        let tiles = TileEvents(queueKey: callbacks.key)
        audioVideo.addVideoTileObserver(observer: tiles)
        try audioVideo.startLocalVideo()
        #expect(control.calls == [.startSending(maxBitRateKbps: 0, screenContent: false)])
        loop.advanceTime(by: .milliseconds(200))
        #expect(control.frameCounters == [0, 1, 2, 3])
        // On the capture grid, whose period is a whole number of nanoseconds.
        #expect(control.frames.map(\.timestamp) == (0...3).map { $0 * 66_666_666 })
        #expect(control.frames.allSatisfy { $0.image.width == 320 && $0.image.height == 180 })
        callbacks.drain()
        #expect(tiles.events.first == TileEvent(kind: "add", tileId: 0, attendeeId: "a-1", width: 320, height: 180,
                                                pauseState: .unpaused, isLocal: true, isContent: false))
        #expect(tiles.events.count == 1)
        let view = FrameRecorder()
        audioVideo.bindVideoView(videoView: view, tileId: 0)
        callbacks.drain()
        loop.advanceTime(by: .milliseconds(200))
        callbacks.drain()
        #expect(view.counters.last == 6, "the local tile shows what is sent")
        #expect(tiles.offQueue == 0)
    }

    @Test func theDeviceControllerSwitchesTheSessionsCameraWhileItIsTheLocalSource() throws {
        let audioVideo = facade()
        let front = try #require(audioVideo.getActiveCamera())
        #expect(front.type == .videoFrontCamera, "the SDK's camera is active from the start, as in Chime")
        try audioVideo.startLocalVideo()
        audioVideo.switchCamera()
        #expect(audioVideo.getActiveCamera()?.type == .videoBackCamera)
        let last = try #require(control.frames.last?.image)
        #expect(VideoPatternReading(last).nearestColor() == .orange)
        audioVideo.stopLocalVideo()
        #expect(audioVideo.getActiveCamera() == nil)
        audioVideo.switchCamera()
        #expect(audioVideo.camera.device?.type == .videoBackCamera, "no switch once the camera is not in use")
    }

    @Test func stopLocalVideoStopsSendingTheCameraAndTheLocalTile() throws {
        let audioVideo = facade()
        let tiles = TileEvents(queueKey: callbacks.key)
        audioVideo.addVideoTileObserver(observer: tiles)
        let capture = CaptureEvents(queueKey: callbacks.key)
        audioVideo.camera.addCaptureSourceObserver(observer: capture)
        try audioVideo.startLocalVideo()
        loop.advanceTime(by: .milliseconds(100))
        // The local tile is added when its first frame is shown on the callback queue: let the queue show it (a stop
        // before that, on a busy machine, drops the waiting frame, and no tile is added or removed).
        callbacks.drain()
        audioVideo.stopLocalVideo()
        let sent = control.frames.count
        loop.advanceTime(by: .seconds(1))
        callbacks.drain()
        #expect(control.frames.count == sent)
        #expect(control.calls == [.startSending(maxBitRateKbps: 0, screenContent: false), .stopSending])
        #expect(tiles.kinds == ["add", "remove"])
        #expect(capture.events == ["start", "stop"])
        #expect(capture.offQueue == 0, "the session's camera reports on the session's callback queue")
        // Starting again brings a new local tile.
        try audioVideo.startLocalVideo()
        callbacks.drain()
        #expect(tiles.kinds == ["add", "remove", "add"])
    }

    /// A source that emits what it is told to, keeping count of its sinks.
    final class ManualSource: VideoSource, @unchecked Sendable {
        var videoContentHint = VideoContentHint.text
        private(set) var sinks: [any VideoSink] = []
        func addVideoSink(sink: any VideoSink) { sinks.append(sink) }
        func removeVideoSink(sink: any VideoSink) { sinks.removeAll { $0 === sink } }
        func emit(_ frame: VideoFrame) { sinks.forEach { $0.onVideoFrameReceived(frame: frame) } }
    }

    final class OpaqueBuffer: VideoFrameBuffer {
        func width() -> Int { 2 }
        func height() -> Int { 2 }
    }

    @Test func aCustomSourceReplacesTheCameraAndStaysAttachedAfterStop() throws {
        let audioVideo = facade()
        try audioVideo.startLocalVideo()
        let source = ManualSource()
        audioVideo.startLocalVideo(source: source, config: LocalVideoConfiguration(maxBitRateKbps: 600))
        #expect(control.calls.last == .startSending(maxBitRateKbps: 600, screenContent: true), "text is screen content")
        #expect(!audioVideo.camera.isCapturing)
        #expect(audioVideo.getActiveCamera() == nil)
        let cameraFrames = control.frames.count
        loop.advanceTime(by: .seconds(1))
        #expect(control.frames.count == cameraFrames, "the camera no longer feeds the session")
        source.emit(TestFrames.pattern(42, timestampNs: 99))
        source.emit(VideoFrame(timestampNs: 100, rotation: .rotation0, buffer: OpaqueBuffer()))
        source.emit(VideoFrame(timestampNs: 101, rotation: .rotation0, buffer: OpaqueBuffer()))
        source.emit(TestFrames.pattern(43, timestampNs: 102))
        #expect(control.frameCounters.suffix(2) == [42, 43])
        #expect(control.frames.last?.timestamp == 102)
        #expect(logger.messages(at: .ERROR).filter { $0.contains("OpaqueBuffer") }.count == 1)
        audioVideo.stopLocalVideo()
        #expect(source.sinks.count == 1, "a custom source is not detached (Chime)")
        source.emit(TestFrames.pattern(44))
        #expect(control.frameCounters.last == 43, "but nothing is sent after stopLocalVideo")
        // Another source replaces it.
        let next = ManualSource()
        next.videoContentHint = .motion
        audioVideo.startLocalVideo(source: next)
        #expect(source.sinks.isEmpty && next.sinks.count == 1)
        #expect(control.calls.last == .startSending(maxBitRateKbps: 0, screenContent: false))
    }

    @Test func meetingFeaturesDisableVideoOrRaiseTheBitrateCap() throws {
        let disabled = facade(features: MeetingFeatures(video: "None", content: nil))
        try disabled.startLocalVideo()
        disabled.startLocalVideo(source: ManualSource())
        #expect(control.calls.isEmpty)
        #expect(!disabled.camera.isCapturing)
        #expect(logger.messages(at: .INFO).contains { $0.contains("video is disabled for this meeting") })
        let fhd = facade(features: MeetingFeatures(video: "FHD", content: nil))
        try fhd.startLocalVideo(config: LocalVideoConfiguration(maxBitRateKbps: 600))
        #expect(control.calls == [.startSending(maxBitRateKbps: 2500, screenContent: false)])
    }

    @Test func withoutAnyCameraStartLocalVideoThrowsTheVideoPermissionError() {
        let audioVideo = facade(cameras: VirtualVideoDevices(includingDefaults: false))
        #expect(throws: PermissionError.videoPermissionError) { try audioVideo.startLocalVideo() }
        #expect(control.calls.isEmpty)
    }

    @Test func remoteVideoAndTilePausesGoToTheSession() throws {
        let audioVideo = facade()
        audioVideo.startRemoteVideo()
        audioVideo.stopRemoteVideo()
        let image = try I420Image(width: 64, height: 36, y: 60, u: 128, v: 128)
        callbacks.run {
            audioVideo.videoTileController.remoteVideoFrame(image, timestampNanoseconds: 0, videoId: 12, attendeeId: "bob",
                                                            pausedForPoorConnection: false)
        }
        audioVideo.pauseRemoteVideoTile(tileId: 12)
        audioVideo.resumeRemoteVideoTile(tileId: 12)
        callbacks.drain()
        #expect(control.calls == [.receiving(true), .receiving(false), .paused(true, videoId: 12), .paused(false, videoId: 12)])
    }

    @Test func stoppingTheSessionStopsLocalAndRemoteVideo() throws {
        let audioVideo = facade()
        try audioVideo.startLocalVideo()
        audioVideo.startRemoteVideo()
        audioVideo.stop()
        #expect(control.calls == [.startSending(maxBitRateKbps: 0, screenContent: false), .receiving(true), .stopSending,
                                  .receiving(false)])
        #expect(!audioVideo.camera.isCapturing)
    }
}
