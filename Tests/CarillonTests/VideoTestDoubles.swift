import CarillonCodecs
import Dispatch
import Foundation
import Synchronization

@testable import Carillon

/// A sink (and render view) that keeps every frame it receives, with whether it ran on a given queue.
final class FrameRecorder: VideoRenderView, @unchecked Sendable {
    private let frames = Mutex<[VideoFrame]>([])

    var received: [VideoFrame] { frames.withLock { $0 } }
    var count: Int { frames.withLock { $0.count } }

    /// The pattern counters of the frames (nil where unreadable or not I420).
    var counters: [Int?] {
        received.map { ($0.buffer as? VideoFrameI420Buffer).flatMap { VideoPatternReading($0.image).counter } }
    }

    func onVideoFrameReceived(frame: VideoFrame) { frames.withLock { $0.append(frame) } }
}

/// A capture observer recording its callbacks and whether each came on the expected queue.
final class CaptureEvents: CaptureSourceObserver, @unchecked Sendable {
    private let state = Mutex<(events: [String], offQueue: Int)>(([], 0))
    private let key: DispatchSpecificKey<Void>

    init(queueKey: DispatchSpecificKey<Void>) { key = queueKey }

    var events: [String] { state.withLock { $0.events } }
    var offQueue: Int { state.withLock { $0.offQueue } }

    func captureDidStart() { record("start") }
    func captureDidStop() { record("stop") }
    func captureDidFail(error: CaptureSourceError) { record("fail:\(error)") }

    private func record(_ event: String) {
        let onQueue = DispatchQueue.getSpecific(key: key) != nil
        state.withLock {
            $0.events.append(event)
            if !onQueue { $0.offQueue += 1 }
        }
    }
}

/// What a tile observer heard: the kind of call and the tile's state at that moment.
struct TileEvent: Equatable, CustomStringConvertible {
    var kind: String
    var tileId: Int
    var attendeeId: String
    var width: Int
    var height: Int
    var pauseState: VideoPauseState
    var isLocal: Bool
    var isContent: Bool

    var description: String { "\(kind)(\(tileId) \(attendeeId) \(width)x\(height) \(pauseState)\(isLocal ? " local" : "")\(isContent ? " content" : ""))" }
}

/// A tile observer recording its callbacks and whether each came on the expected queue.
final class TileEvents: VideoTileObserver, @unchecked Sendable {
    private let state = Mutex<(events: [TileEvent], offQueue: Int)>(([], 0))
    private let key: DispatchSpecificKey<Void>

    init(queueKey: DispatchSpecificKey<Void>) { key = queueKey }

    var events: [TileEvent] { state.withLock { $0.events } }
    var kinds: [String] { events.map(\.kind) }
    var offQueue: Int { state.withLock { $0.offQueue } }

    func videoTileDidAdd(tileState: VideoTileState) { record("add", tileState) }
    func videoTileDidRemove(tileState: VideoTileState) { record("remove", tileState) }
    func videoTileDidPause(tileState: VideoTileState) { record("pause", tileState) }
    func videoTileDidResume(tileState: VideoTileState) { record("resume", tileState) }
    func videoTileSizeDidChange(tileState: VideoTileState) { record("size", tileState) }

    private func record(_ kind: String, _ state: VideoTileState) {
        let onQueue = DispatchQueue.getSpecific(key: key) != nil
        let event = TileEvent(kind: kind, tileId: state.tileId, attendeeId: state.attendeeId,
                              width: state.videoStreamContentWidth, height: state.videoStreamContentHeight,
                              pauseState: state.pauseState, isLocal: state.isLocalTile, isContent: state.isContent)
        self.state.withLock {
            $0.events.append(event)
            if !onQueue { $0.offQueue += 1 }
        }
    }
}

/// The session side of the video seam, recording what the SDK asks of it.
final class FakeVideoControl: SessionVideoControl, @unchecked Sendable {
    enum Call: Equatable {
        case startSending(maxBitRateKbps: UInt32, screenContent: Bool)
        case stopSending
        case receiving(Bool)
        case paused(Bool, videoId: Int)
        case decoded(Bool, videoId: Int)
        case subscriptions([String: SessionMediaPlan.ReceivePreference], removed: [String])
    }

    private let state = Mutex<(calls: [Call], frames: [(image: I420Image, timestamp: Int64)])>(([], []))

    var calls: [Call] { state.withLock { $0.calls } }
    var frames: [(image: I420Image, timestamp: Int64)] { state.withLock { $0.frames } }
    var frameCounters: [Int?] { frames.map { VideoPatternReading($0.image).counter } }

    /// The `simulcast` and `highResolution` arguments of each start, in order.
    var simulcastRequests: [(simulcast: Bool, highResolution: Bool)] { simulcast.withLock { $0 } }
    private let simulcast = Mutex<[(simulcast: Bool, highResolution: Bool)]>([])

    func startSendingVideo(maxBitRateKbps: UInt32, screenContent: Bool, simulcast: Bool, highResolution: Bool) {
        self.simulcast.withLock { $0.append((simulcast, highResolution)) }
        record(.startSending(maxBitRateKbps: maxBitRateKbps, screenContent: screenContent))
    }
    func stopSendingVideo() { record(.stopSending) }
    func sendVideoFrame(_ image: I420Image, timestampNanoseconds: Int64) {
        state.withLock { $0.frames.append((image, timestampNanoseconds)) }
    }
    func setReceivingVideo(_ receiving: Bool) { record(.receiving(receiving)) }
    func setRemoteVideoPaused(_ paused: Bool, videoId: Int) { record(.paused(paused, videoId: videoId)) }
    func setRemoteVideoDecoded(_ decoded: Bool, videoId: Int) { record(.decoded(decoded, videoId: videoId)) }
    func updateVideoSubscriptions(addedOrUpdated: [String: SessionMediaPlan.ReceivePreference], removed: [String]) {
        record(.subscriptions(addedOrUpdated, removed: removed))
    }

    private func record(_ call: Call) { state.withLock { $0.calls.append(call) } }
}

/// A serial callback queue that tests can recognise and drain.
struct TestCallbackQueue {
    let queue: DispatchQueue
    let key = DispatchSpecificKey<Void>()

    init(_ label: String = "test.video.callbacks") {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: ())
    }

    /// Waits until the queue has run what is on it, and what that work put on it, a few levels deep.
    func drain() {
        for _ in 0..<4 { queue.sync {} }
    }

    /// Runs `body` on the queue, as the session does with remote frames.
    func run(_ body: () -> Void) {
        queue.sync(execute: body)
    }
}

/// Frames for tests.
enum TestFrames {
    /// A flat grey I420 frame of `width` x `height`.
    static func flat(_ width: Int, _ height: Int, timestampNs: Int64 = 0) -> VideoFrame {
        VideoFrame(timestampNs: timestampNs, rotation: .rotation0,
                   buffer: VideoFrameI420Buffer(image: try! I420Image(width: width, height: height, y: 128, u: 128, v: 128)))
    }

    /// Pattern frame `index` of `width` x `height` in `color`.
    static func pattern(_ index: Int, _ width: Int = 160, _ height: Int = 90, color: VideoTestPattern.Color = .green,
                        timestampNs: Int64 = 0) -> VideoFrame {
        let image = try! VideoTestPattern(width: width, height: height, color: color).image(frame: index)
        return VideoFrame(timestampNs: timestampNs, rotation: .rotation0, buffer: VideoFrameI420Buffer(image: image))
    }
}
