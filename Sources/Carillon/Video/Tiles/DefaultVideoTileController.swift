import CarillonCodecs
import Dispatch
import Foundation

/// The SDK's ``VideoTileController``: turns the frames of every video into tiles, tells observers about them and
/// hands frames to the views bound to them, following the Chime SDK's rules.
///
/// **Ids.** A tile's id is the session's id of the video it shows; the SDK allocates none. Remote video ids come from
/// the session and are positive. The local video (what `startLocalVideo` sends, shown as it is sent) uses the fixed
/// id 0 (``localVideoId``), which no remote video can have.
///
/// **Frames** `(frame, videoId, attendeeId, pauseState)`:
/// - an unknown id with a frame, or paused, adds a tile (size from the frame, else 0x0; the given pause state;
///   local when `attendeeId` is nil, with this attendee's id) and calls `videoTileDidAdd`; that first frame is not
///   shown;
/// - a known id with no frame and ``VideoPauseState/unpaused`` removes the tile (`videoTileDidRemove`);
/// - a known id with a frame of another size updates the size (`videoTileSizeDidChange`);
/// - a pause state that differs from the tile's, unless the user paused the tile, is taken (`videoTileDidResume`
///   when unpaused, else `videoTileDidPause`);
/// - an unpaused tile hands the frame to its view.
///
/// **Pause.** ``pauseRemoteVideoTile(tileId:)`` asks the session to pause, then marks the tile paused by the user
/// (over a pause for poor connection) and calls `videoTileDidPause` if it was not so already.
/// ``resumeRemoteVideoTile(tileId:)`` asks the session to resume and unpauses only a tile the user paused. Both
/// refuse the local tile (fault log).
///
/// **Views** are told apart by identity: binding a view bound elsewhere first unbinds it there; binding a tile that
/// has a view first unbinds that one. ``unbindVideoView(tileId:)`` forgets the tile too (the Chime SDK's "old
/// behaviour"): the next frame of that video adds it again.
///
/// **Decoding.** A remote video is decoded only while a view is bound to its tile (binding tells the session,
/// unbinding and removal too): a tile without a view still comes, changes size, pauses and goes, but costs no
/// decoding. The first frames after binding wait for a key frame, which the session asks for at once.
///
/// Threading: tiles and views live on the session's callback queue. Every method may be called from any thread:
/// called on the callback queue it acts at once, else it is carried there (in call order). Observers are called
/// asynchronously on the callback queue, in order; views receive frames synchronously there.
public final class DefaultVideoTileController: VideoTileController, RemoteVideoFrameSink, @unchecked Sendable {
    /// The id of the local video's tile: 0, since the session's remote video ids are positive.
    static let localVideoId = 0

    private let logger: any Logger
    private let selfAttendeeId: String
    private let callbackQueue: DispatchQueue
    private let control: (any SessionVideoControl)?
    /// Set on the callback queue, so a call can tell whether it is already there.
    private let queueKey = DispatchSpecificKey<Void>()
    private let lock = NSLock()
    // Guarded by `lock`: observers are added and removed from any thread.
    private var observers: [ObjectIdentifier: any VideoTileObserver] = [:]
    // Confined to the callback queue.
    private var tiles: [Int: any VideoTile] = [:]
    private var viewTiles: [ObjectIdentifier: any VideoTile] = [:]

    /// Creates the controller of a session of `selfAttendeeId`, whose pause and resume requests go to `control` and
    /// whose observers and views are called on `callbackQueue`.
    init(selfAttendeeId: String, control: (any SessionVideoControl)?, callbackQueue: DispatchQueue, logger: any Logger) {
        self.selfAttendeeId = selfAttendeeId
        self.control = control
        self.callbackQueue = callbackQueue
        self.logger = logger
        callbackQueue.setSpecific(key: queueKey, value: ())
    }

    deinit {
        // The app's queue outlives the controller: leave it as it was.
        callbackQueue.setSpecific(key: queueKey, value: nil)
    }

    // MARK: VideoTileController

    /// See ``VideoTileController/onReceiveFrame(frame:videoId:attendeeId:pauseState:)`` and the rules on the type.
    public func onReceiveFrame(frame: VideoFrame?, videoId: Int, attendeeId: String?, pauseState: VideoPauseState) {
        onQueue { $0.handle(frame: frame, videoId: videoId, attendeeId: attendeeId, pauseState: pauseState) }
    }

    // MARK: RemoteVideoFrameSink

    /// A remote frame from the session (on the callback queue): wrapped without a copy and handled as any frame.
    func remoteVideoFrame(_ image: I420Image?, timestampNanoseconds: Int64, videoId: Int, attendeeId: String,
                          pausedForPoorConnection: Bool) {
        let frame = image.map {
            VideoFrame(timestampNs: timestampNanoseconds, rotation: .rotation0, buffer: VideoFrameI420Buffer(image: $0))
        }
        onReceiveFrame(frame: frame, videoId: videoId, attendeeId: attendeeId,
                       pauseState: pausedForPoorConnection ? .pausedForPoorConnection : .unpaused)
    }

    /// An undecoded remote video's announcement (on the callback queue): adds, resizes or resumes its tile like a
    /// frame would, with nothing to show.
    func remoteVideoArrived(width: Int, height: Int, timestampNanoseconds: Int64, videoId: Int, attendeeId: String) {
        onQueue { $0.handle(frame: nil, size: (width, height), videoId: videoId, attendeeId: attendeeId, pauseState: .unpaused) }
    }

    // MARK: VideoTileControllerFacade

    /// See ``VideoTileControllerFacade/bindVideoView(videoView:tileId:)``.
    public func bindVideoView(videoView: any VideoRenderView, tileId: Int) {
        let view = CallbackBox(value: videoView)
        onQueue { $0.bind(view.value, tileId: tileId) }
    }

    /// See ``VideoTileControllerFacade/unbindVideoView(tileId:)``.
    public func unbindVideoView(tileId: Int) {
        onQueue { controller in
            controller.logger.info(msg: "Unbinding VideoView to Tile with tileId = \(tileId)")
            controller.tiles.removeValue(forKey: tileId)
            controller.removeViewBinding(tileId: tileId)
        }
    }

    /// See ``VideoTileControllerFacade/addVideoTileObserver(observer:)``.
    public func addVideoTileObserver(observer: any VideoTileObserver) {
        lock.withLock { observers[ObjectIdentifier(observer)] = observer }
    }

    /// See ``VideoTileControllerFacade/removeVideoTileObserver(observer:)``.
    public func removeVideoTileObserver(observer: any VideoTileObserver) {
        _ = lock.withLock { observers.removeValue(forKey: ObjectIdentifier(observer)) }
    }

    /// See ``VideoTileControllerFacade/pauseRemoteVideoTile(tileId:)``.
    public func pauseRemoteVideoTile(tileId: Int) {
        onQueue { $0.setUserPause(true, tileId: tileId) }
    }

    /// See ``VideoTileControllerFacade/resumeRemoteVideoTile(tileId:)``.
    public func resumeRemoteVideoTile(tileId: Int) {
        onQueue { $0.setUserPause(false, tileId: tileId) }
    }

    // MARK: On the callback queue

    private func handle(frame: VideoFrame?, videoId: Int, attendeeId: String?, pauseState: VideoPauseState) {
        handle(frame: frame, size: frame.map { ($0.width, $0.height) }, videoId: videoId, attendeeId: attendeeId,
               pauseState: pauseState)
    }

    /// `size` without `frame`: an undecoded video delivers frames of that size (nothing to show).
    private func handle(frame: VideoFrame?, size: (width: Int, height: Int)?, videoId: Int, attendeeId: String?,
                        pauseState: VideoPauseState) {
        let width = size?.width ?? 0, height = size?.height ?? 0
        guard let tile = tiles[videoId] else {
            if size != nil || pauseState != .unpaused {
                addTile(videoId: videoId, attendeeId: attendeeId, pauseState: pauseState, width: width, height: height)
            }
            return
        }
        let state = tile.state
        // The session ends a video with an unpaused empty frame.
        if size == nil && pauseState == .unpaused {
            tiles.removeValue(forKey: videoId)
            // The view goes with the tile (Chime keeps the binding until the view is bound elsewhere).
            if let key = viewTiles.first(where: { $0.value === tile })?.key {
                viewTiles.removeValue(forKey: key)
                setDecoded(false, tile: tile)
            }
            notify(state) { $0.videoTileDidRemove(tileState: $1) }
            return
        }
        if size != nil, width != state.videoStreamContentWidth || height != state.videoStreamContentHeight {
            state.videoStreamContentWidth = width
            state.videoStreamContentHeight = height
            notify(state) { $0.videoTileSizeDidChange(tileState: $1) }
        }
        // A user pause stands until the user resumes (the session may not have applied it yet).
        if pauseState != state.pauseState, state.pauseState != .pausedByUserRequest {
            tile.setPauseState(pauseState: pauseState)
            if pauseState == .unpaused {
                notify(state) { $0.videoTileDidResume(tileState: $1) }
            } else {
                notify(state) { $0.videoTileDidPause(tileState: $1) }
            }
        }
        if state.pauseState == .unpaused, let frame { tile.onVideoFrameReceived(frame: frame) }
    }

    private func addTile(videoId: Int, attendeeId: String?, pauseState: VideoPauseState, width: Int, height: Int) {
        let tile = DefaultVideoTile(tileId: videoId, attendeeId: attendeeId ?? selfAttendeeId, videoStreamContentWidth: width,
                                    videoStreamContentHeight: height, isLocalTile: attendeeId == nil, logger: logger)
        tile.setPauseState(pauseState: pauseState)
        tiles[videoId] = tile
        notify(tile.state) { $0.videoTileDidAdd(tileState: $1) }
    }

    private func bind(_ view: any VideoRenderView, tileId: Int) {
        logger.info(msg: "Binding VideoView to Tile with tileId = \(tileId)")
        let key = ObjectIdentifier(view)
        if let bound = viewTiles[key] {
            logger.info(msg: "Override the binding from \(bound.state.tileId) to \(tileId)")
            removeViewBinding(tileId: bound.state.tileId)
        }
        guard let tile = tiles[tileId] else { return }
        if tile.videoRenderView != nil {
            logger.info(msg: "tileId = \(tileId) already had a different video view. Unbinding the old one and associating the new one")
            removeViewBinding(tileId: tileId)
        }
        tile.bind(videoRenderView: view)
        viewTiles[key] = tile
        setDecoded(true, tile: tile)
    }

    private func removeViewBinding(tileId: Int) {
        guard let (key, tile) = viewTiles.first(where: { $0.value.state.tileId == tileId }) else { return }
        tile.unbind()
        viewTiles.removeValue(forKey: key)
        setDecoded(false, tile: tile)
    }

    /// A remote video is decoded only while a view is bound to its tile.
    private func setDecoded(_ decoded: Bool, tile: any VideoTile) {
        guard !tile.state.isLocalTile else { return }
        control?.setRemoteVideoDecoded(decoded, videoId: tile.state.tileId)
    }

    private func setUserPause(_ paused: Bool, tileId: Int) {
        guard let tile = tiles[tileId] else { return }
        let name = paused ? "pauseRemoteVideoTile" : "resumeRemoteVideoTile"
        guard !tile.state.isLocalTile else {
            logger.fault(msg: "You cannot \(name) on local VideoTile")
            return
        }
        logger.info(msg: "\(name) id=\(tileId)")
        control?.setRemoteVideoPaused(paused, videoId: tileId)
        if paused, tile.state.pauseState != .pausedByUserRequest {
            tile.setPauseState(pauseState: .pausedByUserRequest)
            notify(tile.state) { $0.videoTileDidPause(tileState: $1) }
        } else if !paused, tile.state.pauseState == .pausedByUserRequest {
            tile.setPauseState(pauseState: .unpaused)
            notify(tile.state) { $0.videoTileDidResume(tileState: $1) }
        }
    }

    /// Calls every observer with `state`, asynchronously on the callback queue; an observer removed meanwhile is
    /// skipped.
    private func notify(_ state: VideoTileState, _ call: @escaping (any VideoTileObserver, VideoTileState) -> Void) {
        let snapshot = CallbackBox(value: lock.withLock { Array(observers.values) })
        let delivery = CallbackBox(value: (state: state, call: call))
        callbackQueue.async { [self] in
            for observer in snapshot.value where lock.withLock({ observers[ObjectIdentifier(observer)] }) === observer {
                delivery.value.call(observer, delivery.value.state)
            }
        }
    }

    /// Runs `body` on the callback queue: now when called there, else asynchronously.
    private func onQueue(_ body: @escaping (DefaultVideoTileController) -> Void) {
        if DispatchQueue.getSpecific(key: queueKey) != nil {
            body(self)
        } else {
            let body = CallbackBox(value: body)
            callbackQueue.async { [self] in body.value(self) }
        }
    }
}
