import CarillonCodecs
import CarillonMedia
import CarillonProtocol
import CarillonRTC
import NIOCore

/// One client session as a synchronous state machine (sans-IO): the signaling core (``SignalingSessionCore``), the
/// audio core (``SessionMediaCore``), the video core (``SessionVideoCore``) and the media connection's
/// ``PeerConnection``, wired together. Fed the app's commands, the sockets' events and datagrams, the captured audio
/// and the time, it returns ``SessionCoreEffect``s and its next deadline (``nextDeadline``), the earliest of its
/// parts'. It never reads a clock or touches a socket or device.
///
/// What the wiring does: a media plan from signaling becomes a socket bind, then an offer on the bound address; the
/// answer becomes the peer connection (or, on a renegotiation, a new video configuration); a connected peer starts
/// the audio clock and the video send and receive streams; received RTP goes to the video core by SSRC, else to the
/// audio core, RTCP to both; what the audio and video cores send goes through the peer; the video core's measured
/// metrics go to the audio core's once-a-second report, its CLIENT_METRIC to signaling; a dead path reconnects.
///
/// ``SessionEngine`` is its shell in the SDK; the virtual-time meeting of the tests drives the same type.
///
/// Threading: not thread-safe; one owner (the session's event loop) calls it.
final class SessionCore {
    /// The random parts of one media connection, drawn when its socket is bound (a test draws them from a seed).
    struct MediaIdentifiers: Sendable {
        /// The audio stream's SSRC (also the sender SSRC of the session's reports).
        var audioSSRC: UInt32
        /// The camera stream's SSRC and its RTX SSRC.
        var videoSSRC: UInt32
        var rtxSSRC: UInt32
        /// The ICE tie-breaker of the peer connection.
        var tieBreaker: UInt64
        /// The audio stream's first RTP sequence number and timestamp.
        var firstSequenceNumber: UInt16
        var firstTimestamp: UInt32

        /// Fresh random identifiers.
        static func random() -> MediaIdentifiers {
            MediaIdentifiers(audioSSRC: .random(in: 1...UInt32.max), videoSSRC: .random(in: 1...UInt32.max),
                             rtxSSRC: .random(in: 1...UInt32.max), tieBreaker: .random(in: 1...UInt64.max),
                             firstSequenceNumber: .random(in: .min ... .max), firstTimestamp: .random(in: .min ... .max))
        }
    }

    /// The media connection of the current signaling connection.
    struct MediaConnection {
        let local: TransportDescription
        let identifiers: MediaIdentifiers
        /// The server's answer, once it came.
        var answer: SessionMediaAnswer?
        /// What the last SUBSCRIBE_ACK settled about video.
        var video: SessionVideoNegotiation?
        /// The peer connection, once the first answer came.
        var peer: PeerConnection?
    }

    /// The signaling part (the roster, the video sources and the phase are read from it; only the wiring steps it).
    var signaling: SignalingSessionCore
    /// The audio part, for the session's whole life (its connection-health verdicts span media connections).
    let media = SessionMediaCore()
    /// The video part of the current media connection.
    let video = SessionVideoCore()
    /// Bumped whenever media is torn down, so a late bind or datagram of an abandoned connection is ignored.
    var mediaGeneration = 0

    let certificate: DTLSCertificate?
    let makeIdentifiers: () -> MediaIdentifiers
    let logger: any Logger
    var audioConfiguration = AudioVideoConfiguration()
    /// Whether received video offers transport-wide congestion control feedback, so the server estimates and shapes
    /// each downlink (as for every app). A benchmark bot turns it off to be forwarded to without shaping, as Janus
    /// forwards to its bots; set before ``start(configuration:reconnectBudget:now:)``.
    var offersReceiveFeedback = true
    /// What the app asked for its local video: the cap (bit/s, 0 default) and whether it is screen content.
    var videoSendSettings = (maximumBitrate: 0, screenContent: false)
    /// The size of the local video's pictures, as last told to signaling.
    var videoSourceSize = (width: 0, height: 0)
    /// The plan a media socket is being bound for.
    var pendingPlan: SessionMediaPlan?
    var connection: MediaConnection?

    /// Creates the core of a session joining as `credentials`; `certificate` is the DTLS identity of its media
    /// connections (nil: media cannot connect, and each attempt fails), `makeIdentifiers` draws each media
    /// connection's SSRCs and sequence starts, `random` the signaling core's reconnect jitter.
    init(credentials: MeetingSessionCredentials, audioHost: String, audioSessionId: UInt64,
         certificate: DTLSCertificate?, logger: any Logger,
         makeIdentifiers: @escaping () -> MediaIdentifiers = MediaIdentifiers.random,
         random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        signaling = SignalingSessionCore(credentials: credentials, audioHost: audioHost, audioSessionId: audioSessionId,
                                         random: random)
        self.certificate = certificate
        self.makeIdentifiers = makeIdentifiers
        self.logger = logger
    }

    /// The earliest deadline of the parts: call ``tick(now:captured:)`` then.
    var nextDeadline: NIODeadline? {
        signaling.nextDeadline.earlier(media.nextDeadline).earlier(video.nextDeadline)
            .earlier(connection?.peer?.nextDeadline)
    }

    /// Whether a 20 ms audio frame is due at `now`: the shell reads one from the input for ``tick(now:captured:)``.
    func isAudioFrameDue(now: NIODeadline) -> Bool { media.nextDeadline.map { $0 <= now } ?? false }

    /// What the current media connection sent and received so far.
    var mediaCounters: SessionMediaCounters {
        SessionMediaCounters(connection: connection?.peer?.statistics, videoPacketsSent: video.packetsSent,
                             videoFramesSent: video.framesEncoded, receivedVideos: video.receiveStatistics)
    }

    // MARK: The app's commands

    /// Starts the session (`audioVideo.start`): Voice Focus off, then signaling connects.
    func start(configuration: AudioVideoConfiguration, reconnectBudget: TimeAmount, now: SessionTime) -> [SessionCoreEffect] {
        audioConfiguration = configuration
        // Off at every start (a library, not a state, is held here: nothing to fail).
        try? media.setVoiceFocus(nil)
        return signal(now) { $0.start(reconnectBudget: reconnectBudget, now: $1) }
    }

    /// Stops the session (`audioVideo.stop`): LEAVE, then media and signaling close.
    func stop(now: SessionTime) -> [SessionCoreEffect] { signal(now) { $0.stop(now: $1) } }

    /// Mutes or unmutes: the server is told (AUDIO_CONTROL) and nothing is sent while muted.
    func setMuted(_ muted: Bool, now: SessionTime) -> [SessionCoreEffect] {
        let effects = signal(now) { $0.setMuted(muted, now: $1).actions }
        media.setMuted(muted)
        return effects
    }

    /// Turns Voice Focus on with `library` or off with nil, from the next frame.
    func setVoiceFocus(_ library: RNNoiseLibrary?) throws(NoiseSuppressorError) { try media.setVoiceFocus(library) }

    /// Turns echo cancellation on or off for the devices just opened (``SessionCoreEffect/media(_:)`` `openDevices`).
    func setEchoCancellation(_ enabled: Bool) throws(EchoCanceller.Failure) { try media.setEchoCancellation(enabled) }

    /// The app chose other devices: the audio core reopens them.
    func devicesChanged(now: SessionTime) -> [SessionCoreEffect] { carryOut(media.devicesChanged(), now: now) }

    /// Sends a validated data message; nil when the session is not in the meeting.
    func sendDataMessage(topic: String, data: [UInt8], lifetimeMs: Int32, now: SessionTime) -> [SessionCoreEffect] {
        signal(now) { $0.dataMessage(topic: topic, data: data, lifetimeMs: lifetimeMs, now: $1) ?? [] }
    }

    /// Starts sending the local video (`startLocalVideo`) at most `maxBitRateKbps` (0: the default).
    func startSendingVideo(maxBitRateKbps: UInt32, screenContent: Bool, simulcast: Bool, highResolution: Bool,
                           now: SessionTime) -> [SessionCoreEffect] {
        videoSendSettings = (Int(maxBitRateKbps) * 1_000, screenContent)
        return signal(now) {
            $0.setSendingVideo(true, maxBitrateKbps: maxBitRateKbps, simulcast: simulcast, highResolution: highResolution,
                               now: $1)
        }
    }

    /// Stops sending the local video (`stopLocalVideo`).
    func stopSendingVideo(now: SessionTime) -> [SessionCoreEffect] { signal(now) { $0.setSendingVideo(false, now: $1) } }

    /// One picture of the local video: a new size is announced (SUBSCRIBE's layer sizes), then it is encoded and
    /// sent when the video core sends.
    func videoFrame(_ image: I420Image, timestampNanoseconds: Int64, now: SessionTime) -> [SessionCoreEffect] {
        let effects = videoSourceSized(width: image.width, height: image.height, now: now)
        guard video.isSending else { return effects }
        return effects + carryOut(video.send(image, timestampNanoseconds: timestampNanoseconds, now: now.monotonic), now: now)
    }

    /// One frame of the local video that is already VP8 (a bot's prepared video): a new size is announced as for a
    /// picture, then it is sent as it is (``VideoSendStream/send(encoded:timestampNanoseconds:now:)``).
    func videoFrame(encoded frame: EncodedVideoFrame, timestampNanoseconds: Int64, now: SessionTime) -> [SessionCoreEffect] {
        let effects = videoSourceSized(width: frame.width, height: frame.height, now: now)
        guard video.isSending else { return effects }
        return effects + carryOut(video.send(encoded: frame, timestampNanoseconds: timestampNanoseconds, now: now.monotonic),
                                  now: now)
    }

    /// Signaling learns a new size of the local video (SUBSCRIBE's layer sizes); nothing when it is the last one's.
    private func videoSourceSized(width: Int, height: Int, now: SessionTime) -> [SessionCoreEffect] {
        guard (width, height) != videoSourceSize else { return [] }
        videoSourceSize = (width, height)
        return signal(now) { $0.setVideoSourceSize(width: width, height: height, now: $1) }
    }

    /// Whether received audio is decoded (``SessionMediaCore/setDecoding(_:)``): off while the opened output
    /// discards what it is given.
    func setAudioDecoding(_ decodes: Bool) { media.setDecoding(decodes) }

    /// Starts or stops receiving remote video (`startRemoteVideo`/`stopRemoteVideo`).
    func setReceivingVideo(_ receiving: Bool, now: SessionTime) -> [SessionCoreEffect] {
        signal(now) { $0.setReceivingVideo(receiving, now: $1) }
    }

    /// Changes the remote video subscriptions (`updateVideoSourceSubscriptions`), by attendee id.
    func updateVideoSubscriptions(addedOrUpdated: [String: SessionMediaPlan.ReceivePreference], removed: [String],
                                  now: SessionTime) -> [SessionCoreEffect] {
        signal(now) { $0.updateVideoSubscriptions(addedOrUpdated: addedOrUpdated, removed: removed, now: $1) }
    }

    /// Pauses or resumes one remote video at the server (`pauseRemoteVideoTile`).
    func setRemoteVideoPaused(_ paused: Bool, groupId: UInt32, now: SessionTime) -> [SessionCoreEffect] {
        signal(now) { $0.setRemoteVideoPaused(paused, groupId: groupId, now: $1) }
    }

    /// Whether remote video `videoId` is decoded (a view is bound to its tile).
    func setRemoteVideoDecoded(_ decoded: Bool, videoId: Int, now: SessionTime) -> [SessionCoreEffect] {
        carryOut(video.setDecoded(decoded, videoId: videoId, now: now.monotonic), now: now)
    }

    // MARK: The sockets and the clock

    /// The signaling WebSocket opened.
    func signalingOpened(now: SessionTime) -> [SessionCoreEffect] { signal(now) { $0.socketOpened(now: $1) } }

    /// A decoded frame arrived on signaling.
    func signalingReceived(_ frame: SdkSignalFrame, now: SessionTime) -> [SessionCoreEffect] {
        signal(now) { $0.received(frame, now: $1) }
    }

    /// The signaling WebSocket closed, with its close code when it had one.
    func signalingClosed(code: UInt16?, now: SessionTime) -> [SessionCoreEffect] {
        signal(now) { $0.socketClosed(code: code, now: $1) }
    }

    /// The signaling WebSocket's TLS handshake failed (the join token was not sent): no retry.
    func signalingFailedTLS(now: SessionTime) -> [SessionCoreEffect] { signal(now) { $0.socketFailedTLS(now: $1) } }

    /// The media socket asked for by ``SessionCoreEffect/bindMediaSocket(generation:)`` is bound at `address`: the
    /// offer is made for it. Ignored for an older generation.
    func mediaSocketBound(_ address: STUNAddress, generation: Int, now: SessionTime) -> [SessionCoreEffect] {
        guard generation == mediaGeneration, let plan = pendingPlan, let certificate else { return [] }
        pendingPlan = nil
        let local = TransportDescription(ice: .random(), fingerprint: certificate.fingerprint, setup: .actpass,
                                         candidates: [TransportDescription.hostCandidate(for: address)])
        let identifiers = makeIdentifiers()
        connection = MediaConnection(local: local, identifiers: identifiers)
        let offer = offer(plan, transport: local, identifiers: identifiers)
        return signal(now) { $0.mediaOfferReady(offer, now: $1) }
    }

    /// The media socket could not be bound: the attempt fails (signaling reconnects).
    func mediaSocketFailed(generation: Int, now: SessionTime) -> [SessionCoreEffect] {
        guard generation == mediaGeneration else { return [] }
        pendingPlan = nil
        return signal(now) { $0.mediaFailed(now: $1) }
    }

    /// A datagram arrived on the media socket of `generation` from `source`.
    func received(datagram: consuming [UInt8], from source: STUNAddress, generation: Int, now: SessionTime)
        -> [SessionCoreEffect] {
        guard generation == mediaGeneration, let peer = connection?.peer else { return [] }
        return peerOutput(peer.receive(datagram, from: source, now: now.monotonic), now: now)
    }

    /// Runs what is due at `now`: the peer connection's timers, the audio frame (`captured`: what the shell read from
    /// the input because ``isAudioFrameDue(now:)``), signaling's timers, the video core's.
    func tick(now: SessionTime, captured: AudioFrame?) -> [SessionCoreEffect] {
        tick(now: now) { $0.frameTick(captured: captured, now: $1) }
    }

    /// As ``tick(now:captured:)``, for a session whose input delivers Opus (``EncodedAudioInputSource``): `encoded`
    /// is the frame the shell read because ``isAudioFrameDue(now:)``.
    func tick(now: SessionTime, encoded: EncodedAudioFrame?) -> [SessionCoreEffect] {
        tick(now: now) { media, now in
            encoded.map { media.frameTick(encoded: $0, now: now) } ?? media.frameTick(captured: nil, now: now)
        }
    }

    private func tick(now: SessionTime, audioFrame: (SessionMediaCore, SessionTime) -> [SessionMediaEffect])
        -> [SessionCoreEffect] {
        var effects: [SessionCoreEffect] = []
        if let peer = connection?.peer, let due = peer.nextDeadline, due <= now.monotonic {
            effects += peerOutput(peer.tick(now: now.monotonic), now: now)
        }
        if isAudioFrameDue(now: now.monotonic) {
            effects += carryOut(audioFrame(media, now), now: now)
        }
        if let due = signaling.nextDeadline, due <= now.monotonic {
            effects += signal(now) { $0.tick(now: $1) }
        }
        if let due = video.nextDeadline, due <= now.monotonic {
            video.roundTrip = media.roundTrip ?? SessionVideoCore.defaultRoundTrip
            effects += carryOut(video.tick(now: now.monotonic), now: now)
        }
        return effects
    }
}
