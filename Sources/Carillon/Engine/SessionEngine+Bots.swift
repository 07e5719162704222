import CarillonCodecs
import Dispatch
import NIOCore

/// The session as a bot inside this package drives it, without the app-facing facade (the CLI's benchmark bots,
/// ``ChimeBot``): the product's own engine and core, fed prepared media.
extension SessionEngine {
    /// A session run inside this package without the app-facing facade (the CLI's benchmark bots): signaling to the
    /// configuration's URL (`ws://` only), `observer` told what the app would be on a queue of its own, devices from
    /// `deviceController` (an ``EncodedAudioInputSource`` chosen as the microphone sends prepared Opus). Drive it with
    /// ``claimStart()``, ``start(configuration:)`` and the package methods below. Without `receiveFeedback` the
    /// received video offers no transport-wide congestion control (``SessionCore/offersReceiveFeedback``).
    package convenience init(configuration: MeetingSessionConfiguration, deviceController: DefaultDeviceController,
                             observer: any AudioVideoObserver, receiveFeedback: Bool = true, logger: any Logger,
                             eventLoop: any EventLoop) throws {
        let target = try SignalingSocket.Target(url: DefaultAudioVideoFacade.signalingURL(configuration.urls.signalingUrl))
        let observers = ObserverRegistry()
        observers.add(observer)
        self.init(configuration: configuration, target: target, observers: observers,
                  callbackQueue: DispatchQueue(label: "carillon.session-callbacks"), logger: logger,
                  deviceController: deviceController, eventLoop: eventLoop)
        core.offersReceiveFeedback = receiveFeedback
    }

    /// Starts sending the local video at most `maxBitRateKbps`, one stream (no simulcast): a bot's camera, fed with
    /// ``sendVideoFrame(encoded:timestampNanoseconds:)``.
    package func startSendingEncodedVideo(maxBitRateKbps: UInt32) {
        startSendingVideo(maxBitRateKbps: maxBitRateKbps, screenContent: false, simulcast: false, highResolution: false)
    }

    /// Starts receiving every remote camera (`startRemoteVideo`); nothing is decoded while no view is bound.
    package func startReceivingVideo() { setReceivingVideo(true) }

    /// One frame of the local video that is already VP8, captured at `timestampNanoseconds` (one hop to the loop).
    package func sendVideoFrame(encoded frame: EncodedVideoFrame, timestampNanoseconds: Int64) {
        eventLoop.execute {
            self.apply { $0.videoFrame(encoded: frame, timestampNanoseconds: timestampNanoseconds, now: $1) }
        }
    }

    /// What the media connection sent and received so far, read on the loop.
    package func mediaCounters() -> EventLoopFuture<SessionMediaCounters> {
        eventLoop.submit { self.core.mediaCounters }
    }
}
