import CarillonCodecs
import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import Carillon

/// Content share's pieces without a server: the lifecycle state machine step by step, the share's identity and
/// metric names, and the slides source in virtual time.
@Suite struct ContentShareTests {
    typealias Effect = ContentShareLifecycle.Effect
    let loop = EmbeddedEventLoop()
    let callbacks = TestCallbackQueue()

    @Test func aShareStartsWhenItsSessionIsInTheMeetingAndStopsWithOk() {
        var lifecycle = ContentShareLifecycle()
        #expect(lifecycle.start() == [.publish(.contentShareStartRequested, error: nil), .startSession, .sendSource])
        #expect(lifecycle.state == .connecting && !lifecycle.isSharing)
        #expect(lifecycle.sessionStarted(reconnecting: false) == [.publish(.contentShareStarted, error: nil), .notifyStarted])
        #expect(lifecycle.isSharing)
        // A reconnect of the share's session is not a new start.
        #expect(lifecycle.sessionStarted(reconnecting: true).isEmpty)
        // Starting again gives the running share a new source.
        #expect(lifecycle.start() == [.publish(.contentShareStartRequested, error: nil), .sendSource])
        #expect(lifecycle.stop() == [.releaseSource, .stopSession])
        #expect(lifecycle.stop().isEmpty)
        #expect(lifecycle.sessionStopped(.ok) == [.releaseSource, .publish(.contentShareStopped, error: nil),
                                                  .notifyStopped(.ok, cause: nil)])
        #expect(lifecycle.state == .idle)
        #expect(lifecycle.sessionStopped(.ok).isEmpty)
    }

    @Test func aRefusedOrFailedShareStopsWithVideoServiceFailed() {
        var lifecycle = ContentShareLifecycle()
        _ = lifecycle.start()
        // The server refused it (a third share: AUDIO_STATUS 409) before it was ever in the meeting.
        #expect(lifecycle.sessionStopped(.audioCallAtCapacity) == [
            .releaseSource, .publish(.contentShareFailed, error: "audioCallAtCapacity"),
            .notifyStopped(.videoServiceFailed, cause: .audioCallAtCapacity),
        ])
        // A share in the meeting whose session gives up reconnecting.
        _ = lifecycle.start()
        _ = lifecycle.sessionStarted(reconnecting: false)
        #expect(lifecycle.sessionStopped(.audioDisconnected).last == .notifyStopped(.videoServiceFailed, cause: .audioDisconnected))
        // The session ending with ok without the app asking (the server ended it) is a failure too.
        _ = lifecycle.start()
        _ = lifecycle.sessionStarted(reconnecting: false)
        #expect(lifecycle.sessionStopped(.ok).last == .notifyStopped(.videoServiceFailed, cause: .ok))
    }

    @Test func aStopWhileConnectingStopsAndAStartWhileLeavingRestartsAfterwards() {
        var lifecycle = ContentShareLifecycle()
        _ = lifecycle.start()
        #expect(lifecycle.stop() == [.releaseSource, .stopSession])
        // Started again before the old session left: only the request is noted.
        #expect(lifecycle.start() == [.publish(.contentShareStartRequested, error: nil)])
        #expect(lifecycle.state == .stopping(restart: true))
        #expect(lifecycle.sessionStopped(.ok) == [.releaseSource, .publish(.contentShareStopped, error: nil),
                                                  .notifyStopped(.ok, cause: nil), .startSession, .sendSource])
        #expect(lifecycle.state == .connecting)
        // Stopped again while the restart is pending: no restart.
        _ = lifecycle.stop()
        _ = lifecycle.start()
        _ = lifecycle.stop()
        #expect(lifecycle.state == .stopping(restart: false))
        #expect(lifecycle.sessionStopped(.ok).contains(.startSession) == false)
    }

    @Test func theShareJoinsAsTheContentIdentityOfTheAttendee() {
        let base = MeetingSessionConfiguration(
            meetingId: "meeting", externalMeetingId: "external",
            credentials: MeetingSessionCredentials(attendeeId: "att", externalUserId: "alice", joinToken: "token"),
            urls: MeetingSessionURLs(audioFallbackUrl: "a", audioHostUrl: "b", turnControlUrl: "c", signalingUrl: "d",
                                     urlRewriter: URLRewriterUtils.defaultUrlRewriter),
            urlRewriter: URLRewriterUtils.defaultUrlRewriter, primaryMeetingId: "primary",
            meetingFeatures: MeetingFeatures())
        let content = DefaultContentShareController.contentConfiguration(base)
        #expect(content.credentials.attendeeId == "att#content")
        #expect(content.credentials.joinToken == "token#content")
        #expect(content.credentials.externalUserId == "alice#content")
        #expect(content.meetingId == "meeting" && content.externalMeetingId == "external")
        #expect(content.urls.signalingUrl == "d" && content.primaryMeetingId == nil)
        #expect(DefaultModality(id: content.credentials.attendeeId).isOfType(type: .content))
    }

    @Test func theSharesSendMetricsGetTheirContentShareNames() {
        let renamed = ObservableMetric.allCases.compactMap { metric in
            DefaultContentShareController.contentMetric(metric).map { (metric, $0) }
        }
        #expect(renamed.map(\.0) == [.videoSendBitrate, .videoSendPacketLossPercent, .videoSendFps, .videoSendRttMs])
        #expect(renamed.allSatisfy { $0.1.isContentShareMetric && $0.1.description.hasSuffix(String($0.0.description.dropFirst(5))) })
    }

    @Test func slidesChangeEveryFewSecondsAreSeededAndReadBack() throws {
        let source = try SlidesVideoSource(color: .orange, width: 320, height: 180, fps: 5, secondsPerSlide: 2, seed: 42,
                                           eventLoop: loop, callbackQueue: callbacks.queue)
        #expect(source.videoContentHint == .text)
        let sink = FrameRecorder()
        source.addVideoSink(sink: sink)
        source.start()
        loop.advanceTime(by: .milliseconds(5_800))
        // 5 fps, a slide every 2 s: ten frames a slide, the counter is the slide number.
        #expect(sink.counters == (0..<30).map { $0 / 10 })
        let images = sink.received.map { ($0.buffer as! VideoFrameI420Buffer).image }
        #expect(images.allSatisfy { VideoPatternReading($0).nearestColor() == .orange })
        // Still within a slide, different across slides, and the same slides for the same seed.
        #expect(images[0] == images[9] && images[0] != images[10])
        let pattern = try VideoTestPattern(width: 320, height: 180, color: .orange)
        #expect(SlidePictures.draw(slide: 1, pattern: pattern, seed: 42) == images[10])
        #expect(SlidePictures.draw(slide: 1, pattern: pattern, seed: 43) != images[10])
        // High detail: many dark-to-light edges along a row of text.
        let edges = images[0].withUnsafePlanes { y, _, _ -> Int in
            var count = 0
            for row in 40..<170 {
                for column in 1..<320 where (y[row * 320 + column] < 100) != (y[row * 320 + column - 1] < 100) { count += 1 }
            }
            return count
        }
        #expect(edges > 3_000)
        #expect(throws: CaptureSourceError.configurationFailure) { try SlidesVideoSource(color: .red, secondsPerSlide: 0) }
        #expect(throws: CaptureSourceError.configurationFailure) { try SlidesVideoSource(color: .red, width: 30) }
        source.stop()
    }
}
