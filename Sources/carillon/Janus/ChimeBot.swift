import Carillon
import CarillonCodecs
import CarillonControlClient
import Foundation
import NIOCore
import Synchronization

/// A bench bot in a Carillon meeting: the product's own client session (``SessionEngine`` running ``SessionCore``:
/// Chime signaling, the peer connection, the audio and video cores) fed the same pre-encoded media as the Janus
/// column's bots (``WebRTCAudioBot``, ``WebRTCVideoBot``) send.
///
/// The audio is an ``EncodedAudioInputSource`` chosen as the session's microphone (a tone packet every 20 ms, a DTX
/// silence packet every 400 ms, or muted), the output a null one (nothing decoded) unless the bot listens for the
/// tone; the camera is a ``PreEncodedVP8`` loop handed to the session frame by frame on its loop. The counters come
/// from the session's own (``SessionMediaCounters``).
///
/// What differs from the Janus column is what the product does as a client: Chime signaling, RTCP reports, NACK,
/// transport-wide feedback for what it sends. Its receive m-lines offer no transport-wide feedback
/// (``SessionCore/offersReceiveFeedback``), so the server forwards to it without estimating or shaping the downlink,
/// as Janus forwards to its bots. Cost: a session per bot (its 20 ms audio clock and a timer per
/// camera frame). Threading: the session runs on `loop`; every method may be called anywhere.
final class ChimeBot: VideoBenchPeer {
    /// What the bot does once in the meeting.
    struct Role: Sendable {
        /// What it sends as audio.
        var audio: WebRTCAudioBot.Sending = .muted
        /// Decodes what it hears and keeps the last second (``dominantFrequency(of:)``); else nothing is decoded.
        var listens = false
        /// Sends the camera, at most this many kbit/s (the SDK's `maxBitRateKbps`).
        var sendsVideoKbps: UInt32?
        /// Receives every remote camera.
        var receivesVideo = false
    }

    private let engine: SessionEngine
    private let observer: SessionObserver
    private let heard: HeardAudio?
    private let camera = Mutex<RepeatedTask?>(nil)

    /// Creates an attendee of `meeting` through `client` and starts its session on `loop` with `role`; `audio` is
    /// what a talker or DTX listener sends.
    static func join(client: ControlAPIClient, meeting: (response: CreateMeetingResponse, meetingId: String), name: String,
                     role: Role, audio: PreEncodedOpus, on loop: any EventLoop) async throws -> ChimeBot {
        let json = try await client.send("POST", "/meetings/\(meeting.meetingId)/attendees",
                                         body: try JSONSerialization.data(withJSONObject: ["ExternalUserId": name]))
        let configuration = MeetingSessionConfiguration(
            createMeetingResponse: meeting.response,
            createAttendeeResponse: try JSONDecoder().decode(CreateAttendeeResponse.self, from: json))
        return try ChimeBot(configuration: configuration, role: role, audio: audio, on: loop)
    }

    private init(configuration: MeetingSessionConfiguration, role: Role, audio: PreEncodedOpus, on loop: any EventLoop) throws {
        let logger = ConsoleLogger(name: "bench-bot", level: .ERROR)
        let virtualDevices = VirtualAudioDevices()
        let devices = DefaultDeviceController(logger: logger, virtualDevices: virtualDevices)
        let sending = role.audio
        devices.chooseAudioDevice(mediaDevice: virtualDevices.addInput(label: "pre-encoded") { format in
            PreEncodedAudioInput(format: format, sending: sending, audio: audio)
        })
        let heard = role.listens ? HeardAudio() : nil
        devices.chooseAudioDevice(mediaDevice: heard.map { heard in
            virtualDevices.addOutput(label: "tone listener") { format in HeardAudio.Sink(format: format, heard: heard) }
        } ?? virtualDevices.addNullOutput())
        self.heard = heard
        observer = SessionObserver()
        engine = try SessionEngine(configuration: configuration, deviceController: devices, observer: observer,
                                   receiveFeedback: false, logger: logger, eventLoop: loop)
        _ = engine.claimStart()
        engine.start(configuration: AudioVideoConfiguration())
        if role.audio == .muted { _ = engine.setMuted(true) }
        if let kbps = role.sendsVideoKbps { engine.startSendingEncodedVideo(maxBitRateKbps: kbps) }
        if role.receivesVideo { engine.startReceivingVideo() }
    }

    /// Where the session stands: joining, in the meeting, or stopped with its status.
    var state: String { observer.state }

    /// Waits until the session is in the meeting (SUBSCRIBE answered, ICE and DTLS up).
    func waitUntilStarted(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !engine.isInMeeting {
            guard !observer.stopped else { throw BenchTimeout(what: "a session that ended: \(state)") }
            guard ContinuousClock.now < deadline else { throw BenchTimeout(what: "a Chime bot's join (\(state))") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Sends `video` as the camera, first frame after `phase`, one frame per 1/frame rate; the loop's first frame
    /// is its key frame.
    func startSendingVideo(_ video: PreEncodedVP8, phase: TimeAmount) {
        let engine = self.engine
        let frames = video.frames.enumerated().map { index, bytes in
            EncodedVideoFrame(bytes: bytes, isKeyframe: index == 0, timestamp: 0, width: video.width, height: video.height)
        }
        let interval = Int64(1_000_000_000 / video.frameRate)
        let sent = Mutex(0)
        let task = engine.eventLoop.scheduleRepeatedTask(initialDelay: phase, delay: .nanoseconds(interval)) { _ in
            let index = sent.withLock { value in defer { value += 1 }; return value }
            engine.sendVideoFrame(encoded: frames[index % frames.count], timestampNanoseconds: Int64(index) * interval)
        }
        camera.withLock { $0 = task }
    }

    /// What the session sent and received so far.
    func counters() async -> SessionMediaCounters? { try? await engine.mediaCounters().get() }

    func sentCounts() async -> (frames: Int, packets: Int) {
        let counters = await counters()
        return (counters?.videoFramesSent ?? 0, counters?.videoPacketsSent ?? 0)
    }

    func receivedStreams() async -> [Int: ReceivedVideoCounts] {
        let videos = await counters()?.receivedVideos ?? []
        return Dictionary(videos.map {
            ($0.videoId, ReceivedVideoCounts(packets: $0.packetsReceived, frames: $0.framesReceived, bytes: $0.bytesReceived))
        }, uniquingKeysWith: { first, _ in first })
    }

    /// The dominant one of `candidates` in the last second heard (only for a bot that listens).
    func dominantFrequency(of candidates: [Double]) -> Double? { heard?.dominant(of: candidates) }

    /// Leaves (LEAVE, LEAVE_ACK), waiting up to `timeout` for the session to stop.
    func leave(timeout: Duration = .seconds(10)) async {
        camera.withLock { $0?.cancel(); $0 = nil }
        engine.stop()
        let deadline = ContinuousClock.now + timeout
        while !observer.stopped, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// The bot's microphone: the pre-encoded tone, DTX silence every 400 ms, or nothing (the session is muted).
private struct PreEncodedAudioInput: EncodedAudioInputSource {
    let format: AudioFormat
    let sending: WebRTCAudioBot.Sending
    let audio: PreEncodedOpus
    private var index = 0

    init(format: AudioFormat, sending: WebRTCAudioBot.Sending, audio: PreEncodedOpus) {
        self.format = format
        self.sending = sending
        self.audio = audio
    }

    mutating func readEncoded() -> EncodedAudioFrame {
        defer { index += 1 }
        switch sending {
        case .talking:
            return EncodedAudioFrame(payload: audio.tone[index % audio.tone.count], level: audio.toneLevel, voiceActive: true)
        case .dtx, .muted:
            return EncodedAudioFrame(payload: index % 20 == 0 ? audio.silence : nil, level: 127, voiceActive: false)
        }
    }

    /// Never read: the session reads ``readEncoded()``.
    mutating func read(frameMilliseconds: Int) -> AudioFrame { .silence(format: format, milliseconds: frameMilliseconds) }
}

/// The last second a listening bot played, for a frequency check.
private final class HeardAudio: Sendable {
    private let samples = Mutex<(rate: Int, mono: [Int16])>((48_000, []))

    /// The session's output: each played frame, downmixed to mono, kept.
    struct Sink: AudioOutputSink {
        let format: AudioFormat
        let heard: HeardAudio

        func write(_ frame: AudioFrame) {
            let mono = frame.format.channels == 1 ? frame.samples : frame.monoDownmix().samples
            heard.samples.withLock { kept in
                kept.rate = frame.format.sampleRate
                kept.mono += mono
                if kept.mono.count > 2 * kept.rate { kept.mono.removeFirst(kept.mono.count - kept.rate) }
            }
        }
    }

    func dominant(of candidates: [Double]) -> Double? {
        let (rate, mono) = samples.withLock { $0 }
        guard mono.count >= rate else { return nil }
        return FrequencyAnalysis.dominantFrequency(samples: mono.suffix(rate), sampleRate: rate, candidates: candidates)
    }
}

/// What the session tells the app, kept for the bench: started, and the status it stopped with.
private final class SessionObserver: AudioVideoObserver, Sendable {
    private let status = Mutex<(started: Bool, stopped: MeetingSessionStatusCode?)>((false, nil))

    var stopped: Bool { status.withLock { $0.stopped != nil } }

    var state: String {
        switch status.withLock({ $0 }) {
        case (_, let code?): "stopped (\(code))"
        case (true, nil): "in the meeting"
        case (false, nil): "joining"
        }
    }

    func audioSessionDidStart(reconnecting: Bool) { status.withLock { $0.started = true } }
    func audioSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {
        status.withLock { $0.stopped = sessionStatus.statusCode }
    }
    func audioSessionDidStartConnecting(reconnecting: Bool) {}
    func audioSessionDidDrop() {}
    func audioSessionDidCancelReconnect() {}
    func connectionDidRecover() {}
    func connectionDidBecomePoor() {}
    func videoSessionDidStartConnecting() {}
    func videoSessionDidStartWithStatus(sessionStatus: MeetingSessionStatus) {}
    func videoSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {}
    func remoteVideoSourcesDidBecomeAvailable(sources: [RemoteVideoSource]) {}
    func remoteVideoSourcesDidBecomeUnavailable(sources: [RemoteVideoSource]) {}
    func cameraSendAvailabilityDidChange(available: Bool) {}
}
