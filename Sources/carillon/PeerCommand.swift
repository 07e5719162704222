import ArgumentParser
import CarillonCodecs
import CarillonMedia
import CarillonRTC
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// `carillon peer`: a standalone WebRTC endpoint for checking interoperability with other stacks (browsers,
/// aiortc). It offers or answers one audio m-line, connects (ICE, DTLS-SRTP), sends Opus silence every 20 ms,
/// counts what the other side sends, and reports.
///
/// With `--video` it also offers or accepts one bundled `sendrecv` VP8 m-line and runs the SDK's video streams on
/// it (``PeerVideo``): it sends a moving ``VideoTestPattern`` and decodes what the other side sends, and the result
/// carries a `video` object with both directions' figures (frames sent, key frames, frames decoded, size, frame
/// rate, the pattern counters and colours read from the decoded pictures).
///
/// It talks JSON lines: it prints `{"type":"offer","sdp":...}` (with `--offer`) or reads an offer and prints
/// `{"type":"answer",...}`; it reads the other side's description from stdin the same way; it prints
/// `{"type":"event",...}` lines as the connection progresses and one `{"type":"result",...}` line at the end.
struct PeerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peer",
        abstract: "A standalone WebRTC audio (and VP8 video) endpoint for interop checks (JSON lines on stdin/stdout)."
    )

    @Flag(name: .customLong("offer"), help: "Make the offer (controlling ICE agent, DTLS role from the answer).")
    var offers = false

    @Flag(name: .customLong("answer"), help: "Answer an offer read from stdin (ICE-lite, DTLS server).")
    var answers = false

    @Option(help: "Local address to bind and announce as the host candidate.")
    var host: String = "127.0.0.1"

    @Option(help: "Opus packets (20 ms each) to send once connected.")
    var packets: Int = 150

    @Option(help: "Seconds to stay connected before reporting.")
    var duration: Double = 5

    @Option(help: "Seconds to wait for the connection before giving up.")
    var timeout: Double = 20

    @Flag(name: .customLong("video"), help: "Also send and receive VP8 video on a second, bundled m-line.")
    var video = false

    @Option(name: .customLong("video-size"), help: "Size of the video pattern sent, WxH.")
    var videoSize: String = "320x180"

    @Option(name: .customLong("video-fps"), help: "Pictures per second sent (at most 30, the SDK's camera cap).")
    var videoFrameRate: Int = 15

    @Option(name: .customLong("video-bitrate"),
            help: "VP8 bitrate cap in bit/s (the send-side estimate and the other side's REMB may hold it lower).")
    var videoBitrate: Int = 400_000

    @Option(name: .customLong("video-color"),
            help: "Colour of the pattern's colour area: red, green, blue, yellow, magenta, cyan, orange or purple.")
    var videoColor: String = "magenta"

    @Option(name: .customLong("video-drop-every"),
            help: "Drop every Nth VP8 packet sent and received (never a retransmission), so NACK and RTX run; 0: none.")
    var videoDropEvery: Int = 0

    @Option(name: .customLong("capture-video"),
            help: "Write the first received VP8 packets (decrypted, one hex line each) to this file.")
    var captureVideo: String?

    @Option(name: .customLong("capture-frames"), help: "Frames to capture with --capture-video.")
    var captureFrames: Int = 5

    func validate() throws {
        guard offers != answers else { throw ValidationError("give exactly one of --offer and --answer") }
        guard packets >= 0, duration > 0, timeout > 0 else { throw ValidationError("counts and times must be positive") }
        guard video || captureVideo == nil else { throw ValidationError("--capture-video needs --video") }
        guard parsedVideoSize != nil else { throw ValidationError("--video-size must be WxH, from 20x10 up") }
        guard (1...VideoSendStream.maximumFrameRate).contains(videoFrameRate) else {
            throw ValidationError("--video-fps must be 1-\(VideoSendStream.maximumFrameRate)")
        }
        guard (10_000...10_000_000).contains(videoBitrate) else {
            throw ValidationError("--video-bitrate must be 10000-10000000")
        }
        guard patternColor != nil else { throw ValidationError("unknown --video-color \(videoColor)") }
        guard captureFrames > 0 else { throw ValidationError("--capture-frames must be positive") }
        guard videoDropEvery == 0 || videoDropEvery >= 2 else { throw ValidationError("--video-drop-every must be 0 or from 2 up") }
    }

    private var parsedVideoSize: (width: Int, height: Int)? {
        let parts = videoSize.split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width >= 20, height >= 10,
              width <= 4_096, height <= 4_096
        else { return nil }
        return (width, height)
    }

    private var patternColor: VideoTestPattern.Color? {
        VideoTestPattern.Color.palette.first { $0.name == videoColor.lowercased() }
    }

    /// What the run waits for.
    enum Progress: Sendable {
        case connected
        case failed(String)
    }

    func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let socket = try await PeerConnectionSocket.bind(host: host, group: group)
        let certificate = try DTLSCertificate.generate()
        let local = TransportDescription(
            ice: .random(), fingerprint: certificate.fingerprint, setup: offers ? .actpass : .passive,
            candidates: [TransportDescription.hostCandidate(for: socket.localAddress)], iceLite: answers)
        let ssrc = UInt32.random(in: 1...UInt32.max)
        let videoSender = VideoSessionDescription.Sender(
            ssrc: UInt32.random(in: 1...UInt32.max), rtxSSRC: UInt32.random(in: 1...UInt32.max),
            streamId: "carillon", trackId: "video")
        let configuration: PeerConnectionConfiguration
        let payloadType: UInt8
        let videoParameters: PeerVideoParameters?
        if offers {
            var offer = AudioSessionDescription.offer(transport: local, ssrc: ssrc)
            if video {
                offer.media.append(VideoSessionDescription.offerMedia(
                    mid: Self.videoMid, direction: .sendrecv, transport: local, sender: videoSender))
                offer.bundleGroups = [offer.media.compactMap(\.mid)]
            }
            print(json: ["type": "offer", "sdp": offer.serialized])
            let answer = try SessionDescription(parsing: try readDescription(type: "answer"))
            let remote = try TransportDescription(remote: answer)
            payloadType = try AudioSessionDescription.opusPayloadType(in: answer)
            videoParameters = video ? PeerVideoParameters(
                mid: Self.videoMid, local: offer, remote: answer, localIsOfferer: true, localSSRC: videoSender.ssrc,
                localRTXSSRC: videoSender.rtxSSRC ?? 0) : nil
            configuration = PeerConnectionConfiguration(
                iceRole: .controlling(remoteCandidates: remote.udpAddresses()), localICE: local.ice,
                remoteICE: remote.ice, dtlsRole: TransportDescription.dtlsRole(local: .actpass, remote: remote.setup),
                certificate: certificate, remoteFingerprint: remote.fingerprint)
        } else {
            let offer = try SessionDescription(parsing: try readDescription(type: "offer"))
            let remote = try TransportDescription(remote: offer)
            var answerTransport = local
            // An offer that insists on being the DTLS server leaves this side the client.
            answerTransport.setup = remote.setup == .passive ? .active : .passive
            let answer = video
                ? try Self.answerWithVideo(to: offer, transport: answerTransport, ssrc: ssrc, videoSender: videoSender)
                : try AudioSessionDescription.answer(to: offer, transport: answerTransport, ssrc: ssrc)
            payloadType = try AudioSessionDescription.opusPayloadType(in: answer)
            print(json: ["type": "answer", "sdp": answer.serialized])
            let videoMid = answer.media.first { $0.kind == "video" && $0.port != 0 }?.mid
            videoParameters = videoMid.flatMap { mid in
                PeerVideoParameters(mid: mid, local: answer, remote: offer, localIsOfferer: false,
                                    localSSRC: videoSender.ssrc, localRTXSSRC: videoSender.rtxSSRC ?? 0)
            }
            configuration = PeerConnectionConfiguration(
                iceRole: .lite, localICE: local.ice, remoteICE: remote.ice,
                dtlsRole: TransportDescription.dtlsRole(local: answerTransport.setup, remote: remote.setup),
                certificate: certificate, remoteFingerprint: remote.fingerprint)
        }

        let videoBox = NIOLoopBoundBox.makeEmptyBox(valueType: PeerVideo.self, eventLoop: socket.eventLoop)
        if video {
            guard let videoParameters else { throw PeerVideoError.notNegotiated }
            try await makeVideo(parameters: videoParameters, socket: socket, in: videoBox)
        }

        let connection = try PeerConnection(configuration: configuration)
        let counters = PeerCounters()
        let progress = AsyncStream.makeStream(of: Progress.self)
        socket.attach(connection) { event in
            switch event {
            case .iceConnected(let address):
                print(json: ["type": "event", "event": "ice-connected", "address": address.description])
            case .connected(let profile):
                counters.connected(profile: profile)
                print(json: ["type": "event", "event": "connected", "srtpProfile": profile.description])
                videoBox.value?.start(now: socket.eventLoop.now)
                progress.continuation.yield(.connected)
            case .rtp(let packet):
                counters.receivedRTP(ssrc: packet.ssrc)
                videoBox.value?.received(rtp: packet, now: socket.eventLoop.now)
            case .rtcp(let packets):
                counters.receivedRTCP()
                videoBox.value?.received(rtcp: packets, now: socket.eventLoop.now)
            case .failed(let failure):
                progress.continuation.yield(.failed("\(failure)"))
            case .pathChanged, .closed:
                break
            }
        }

        let outcome = await firstProgress(progress.stream, timeout: timeout)
        if case .connected = outcome {
            // 20 ms of Opus silence (a CELT-only frame) per packet, stamped as a real sender would.
            for index in 0..<packets {
                let packet = RTPPacket(payloadType: payloadType, sequenceNumber: UInt16(truncatingIfNeeded: index),
                                       timestamp: UInt32(truncatingIfNeeded: index * 960), ssrc: ssrc,
                                       payload: [0xF8, 0xFF, 0xFE])
                socket.sendRTP(packet.serialized())
                counters.sentRTP()
                try await Task.sleep(for: .milliseconds(20))
            }
            let remaining = duration - Double(packets) * 0.02
            if remaining > 0 { try await Task.sleep(for: .seconds(remaining)) }
        }
        var result = counters.report()
        if case .failed(let reason) = outcome { result["error"] = reason }
        if case .none = outcome { result["error"] = "not connected within \(timeout) s" }
        if video {
            let (figures, captured) = try await socket.eventLoop.submit {
                videoBox.value?.stop()
                return (videoBox.value?.report() ?? [:], videoBox.value?.capture?.hexLines)
            }.get()
            result["video"] = figures
            if let captureVideo { try write(captured ?? "", to: captureVideo) }
        }
        print(json: result)
        await socket.close()
        try await group.shutdownGracefully()
    }

    /// The mid of the video m-line this side offers (the audio's is `0`).
    static let videoMid = "1"

    /// The answer to `offer` with its first Opus audio m-line and its first VP8 video m-line accepted (video in the
    /// direction the offer allows, sending `videoSender` when the offer receives), every other m-line rejected.
    static func answerWithVideo(to offer: SessionDescription, transport: TransportDescription, ssrc: UInt32,
                                videoSender: VideoSessionDescription.Sender) throws(SDPNegotiationError) -> SessionDescription {
        var audioMid: String?, videoMid: String?
        var media: [MediaDescription] = []
        for offered in offer.media {
            if audioMid == nil, let audio = AudioSessionDescription.answerMedia(offered, transport: transport, ssrc: ssrc) {
                audioMid = audio.mid
                media.append(audio)
                continue
            }
            let direction = offered.direction.reversed
            if videoMid == nil, let video = VideoSessionDescription.answerMedia(
                offered, transport: transport, direction: direction, sender: direction.sends ? videoSender : nil) {
                videoMid = video.mid
                media.append(video)
                continue
            }
            media.append(AudioSessionDescription.rejected(offered))
        }
        guard audioMid != nil else { throw .noCommonCodec("the offer has no audio m-line with Opus/48000") }
        var description = SessionDescription()
        description.iceLite = transport.iceLite
        // The accepted m-lines in offer order, as BUNDLE lists them.
        description.bundleGroups = [media.filter { $0.port != 0 }.compactMap(\.mid)]
        description.msidSemantic = "WMS carillon"
        description.media = media
        return description
    }

    /// Creates the video the negotiation asked for, on the socket's loop, into `box`.
    private func makeVideo(parameters: PeerVideoParameters, socket: PeerConnectionSocket,
                           in box: NIOLoopBoundBox<PeerVideo?>) async throws {
        // validate() checked both.
        guard let size = parsedVideoSize, let color = patternColor else { throw ValidationError("bad video options") }
        let (frameRate, bitrate, dropEvery) = (videoFrameRate, videoBitrate, videoDropEvery)
        let capture = captureVideo != nil ? VideoPacketCapture(frames: captureFrames) : nil
        try await socket.eventLoop.submit {
            box.value = try PeerVideo(parameters: parameters, socket: socket, width: size.width, height: size.height,
                                      frameRate: frameRate, bitrate: bitrate, color: color, dropEvery: dropEvery,
                                      capture: capture)
        }.get()
    }

    private func write(_ text: String, to path: String) throws {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw PeerVideoError.capture(path: path, reason: "\(error)")
        }
    }

    private func firstProgress(_ stream: AsyncStream<Progress>, timeout: Double) async -> Progress? {
        await withTaskGroup(of: Progress?.self) { tasks in
            tasks.addTask {
                for await progress in stream { return progress }
                return nil
            }
            tasks.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return nil
            }
            let first = await tasks.next() ?? nil
            tasks.cancelAll()
            return first
        }
    }

    private func readDescription(type: String) throws -> String {
        while let line = Swift.readLine() {
            guard let data = line.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  object["type"] as? String == type, let sdp = object["sdp"] as? String
            else { continue }
            return sdp
        }
        throw ValidationError("stdin closed before the \(type)")
    }
}

/// Counters shared between the connection's loop and the command.
private final class PeerCounters: Sendable {
    private struct State {
        var profile: SRTPProfile?
        var rtpSent = 0
        var rtpReceived = 0
        var rtcpReceived = 0
        var ssrcs = Set<UInt32>()
    }

    private let state = Mutex(State())

    func connected(profile: SRTPProfile) { state.withLock { $0.profile = profile } }
    func sentRTP() { state.withLock { $0.rtpSent += 1 } }
    func receivedRTCP() { state.withLock { $0.rtcpReceived += 1 } }
    func receivedRTP(ssrc: UInt32) {
        state.withLock {
            $0.rtpReceived += 1
            $0.ssrcs.insert(ssrc)
        }
    }

    func report() -> [String: any Sendable] {
        state.withLock { state in
            [
                "type": "result", "connected": state.profile != nil, "srtpProfile": state.profile?.description ?? "",
                "rtpSent": state.rtpSent, "rtpReceived": state.rtpReceived, "rtcpReceived": state.rtcpReceived,
                "receivedSSRCs": state.ssrcs.sorted().map(Int.init),
            ]
        }
    }
}

/// Prints one JSON object on its own line, flushed.
private func print(json object: [String: any Sendable]) {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    StandardOutput.line(String(decoding: data, as: UTF8.self))
}
