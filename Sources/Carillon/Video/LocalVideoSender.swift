import Dispatch
import Foundation

/// The session's sink on the local video source (Chime's `VideoSourceAdapter`): while sending, it hands each frame's
/// picture to the session through ``SessionVideoControl/sendVideoFrame(_:timestampNanoseconds:)`` and shows it as the
/// local tile (when it has a tile controller: a content share's sender has none, as the local share shows no tile).
///
/// Only ``VideoFrameI420Buffer`` frames are sent (and shown); another buffer type is dropped, with one log line per
/// source. A rotated frame is sent as it is, with one log line per source (the session does not negotiate
/// orientation). The local tile is fed through the callback queue, coalesced: at most one frame waits there, the
/// newest, so a slow queue costs frames, not memory.
///
/// Threading: frames arrive on the source's thread; the other methods may be called from any thread (a lock guards
/// the state). The tile controller is called on the callback queue only.
final class LocalVideoSender: VideoSink, @unchecked Sendable {
    private let control: (any SessionVideoControl)?
    private let tiles: DefaultVideoTileController?
    private let callbackQueue: DispatchQueue
    private let logger: any Logger
    private let lock = NSLock()
    // Guarded by `lock`.
    private var source: (any VideoSource)?
    private var sending = false
    private var pendingTileFrame: VideoFrame?
    private var tileDrainScheduled = false
    /// Bumped when sending stops, so a drain scheduled before cannot show a frame after the tile's removal.
    private var tileGeneration = 0
    private var reportedUnsupportedBuffer = false
    private var reportedRotation = false

    init(control: (any SessionVideoControl)?, tiles: DefaultVideoTileController?, callbackQueue: DispatchQueue,
         logger: any Logger) {
        self.control = control
        self.tiles = tiles
        self.callbackQueue = callbackQueue
        self.logger = logger
    }

    /// The source this sink is attached to, if any.
    var attachedSource: (any VideoSource)? { lock.withLock { source } }

    /// Whether frames are sent now.
    var isSending: Bool { lock.withLock { sending } }

    /// Attaches this sink to `source`, leaving the previous source (Chime keeps one source at a time), and returns
    /// the source's content hint, read now.
    func attach(_ source: any VideoSource) -> VideoContentHint {
        let previous = lock.withLock {
            defer {
                self.source = source
                reportedUnsupportedBuffer = false
                reportedRotation = false
            }
            return self.source
        }
        if previous !== source {
            previous?.removeVideoSink(sink: self)
            source.addVideoSink(sink: self)
        }
        return source.videoContentHint
    }

    /// Leaves the source (for the end of the session's life).
    func detach() {
        let previous = lock.withLock {
            defer { source = nil }
            return source
        }
        previous?.removeVideoSink(sink: self)
    }

    /// Starts sending: frames from now on go to the session and the local tile.
    func startSending() { lock.withLock { sending = true } }

    /// Stops sending; the local tile goes (after any frame already on the callback queue). The source stays
    /// attached.
    func stopSending() {
        lock.withLock {
            guard sending else { return }
            sending = false
            pendingTileFrame = nil
            tileDrainScheduled = false
            tileGeneration += 1
            guard let tiles = self.tiles else { return }
            callbackQueue.async {
                tiles.onReceiveFrame(frame: nil, videoId: DefaultVideoTileController.localVideoId, attendeeId: nil,
                                     pauseState: .unpaused)
            }
        }
    }

    func onVideoFrameReceived(frame: VideoFrame) {
        guard let buffer = frame.buffer as? VideoFrameI420Buffer else {
            let report = lock.withLock {
                defer { reportedUnsupportedBuffer = true }
                return sending && !reportedUnsupportedBuffer
            }
            if report {
                logger.error(msg: "Local video: frames with a \(type(of: frame.buffer)) buffer cannot be sent (only VideoFrameI420Buffer); dropping them")
            }
            return
        }
        let (send, reportRotation) = lock.withLock { () -> (Bool, Bool) in
            guard sending else { return (false, false) }
            if tiles != nil {
                pendingTileFrame = frame
                if !tileDrainScheduled {
                    tileDrainScheduled = true
                    let generation = tileGeneration
                    callbackQueue.async { [self] in drainTile(generation: generation) }
                }
            }
            let reportRotation = frame.rotation != .rotation0 && !reportedRotation
            if reportRotation { reportedRotation = true }
            return (true, reportRotation)
        }
        guard send else { return }
        if reportRotation {
            logger.info(msg: "Local video: frames with \(frame.rotation) are sent unrotated")
        }
        control?.sendVideoFrame(buffer.image, timestampNanoseconds: frame.timestampNs)
    }

    /// On the callback queue: shows the newest waiting frame as the local tile.
    private func drainTile(generation: Int) {
        let frame = lock.withLock { () -> VideoFrame? in
            guard generation == tileGeneration else { return nil }
            tileDrainScheduled = false
            defer { pendingTileFrame = nil }
            return pendingTileFrame
        }
        guard let frame else { return }
        tiles?.onReceiveFrame(frame: frame, videoId: DefaultVideoTileController.localVideoId, attendeeId: nil,
                             pauseState: .unpaused)
    }
}
