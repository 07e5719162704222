import ArgumentParser
import Carillon
import CarillonCodecs
import CarillonControlClient
import Foundation
import Synchronization

extension BenchCommand {
    /// Server CPU per forwarded video stream: `--senders` SDK sessions send a 360p pattern at 15 fps, `--receivers`
    /// other sessions receive every one of them (senders × receivers forwarded streams); the server runs as a child
    /// process and is measured from outside.
    struct VideoMeeting: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "video-meeting",
            abstract: "Server CPU per forwarded stream: senders × receivers SDK sessions, 360p at 15 fps (server as a child process)."
        )
        @Option(help: "Sessions sending a 640x360 pattern at 15 fps (they receive nothing).") var senders = 4
        @Option(help: "Sessions receiving every sender's video (they send none; frames are assembled, not decoded: no view is bound).") var receivers = 4
        @Option(help: "Seconds to measure, after every stream arrived.") var seconds = 20

        func validate() throws {
            guard (1...25).contains(senders) else { throw ValidationError("--senders must be 1...25 (Chime's sender limit)") }
            guard (1...50).contains(receivers) else { throw ValidationError("--receivers must be 1...50") }
            guard (1...600).contains(seconds) else { throw ValidationError("--seconds must be 1...600") }
        }

        func run() async throws {
            let child = try ChildServer.start()
            defer { child.stop() }
            let result = try await Self.measure(client: child.client, serverPID: child.pid, senders: senders,
                                                receivers: receivers, seconds: seconds)
            let streams = result.streams
            StandardOutput.line(String(format: "%d senders × %d receivers (%d forwarded 360p streams), %d s: server %.1f %% of one core in total, %.2f %% per forwarded stream",
                                       senders, receivers, streams, seconds, result.serverCPU * 100, result.serverCPU * 100 / Double(streams)))
            StandardOutput.line(String(format: "load generator (this process: %d encoders, %d receiving streams, none decoded) %.1f %% of one core",
                                       senders, streams, result.loadCPU * 100))
            let rates = result.frameRates
            StandardOutput.line(String(format: "delivery: %d streams, complete frames per second min %.1f, median %.1f; mean %.0f kbit/s per stream",
                                       rates.count, rates.first ?? 0, rates.isEmpty ? 0 : rates[rates.count / 2],
                                       result.kilobitsPerStream))
        }

        /// The meeting on the server behind `client` (process `serverPID`): `senders` SDK sessions sending a 360p
        /// pattern at 15 fps, `receivers` sessions receiving every one; waits until every stream arrives, then
        /// measures for `seconds`. Every session leaves before it returns.
        static func measure(client: ControlAPIClient, serverPID: Int32, senders: Int, receivers: Int,
                            seconds: Int) async throws -> VideoLoadResult {
            let meeting = try await EmbeddedServer.createMeeting(client: client, externalId: "bench-video")
            let colors = VideoTestPattern.Color.palette
            var participants: [BenchParticipant] = []
            var watching: [BenchParticipant] = []
            do {
                for index in 0..<senders {
                    let source = try PatternVideoSource(color: colors[index % colors.count], width: 640, height: 360, fps: 15)
                    let participant = try await BenchParticipant.join(client: client, meeting: meeting, name: "sender-\(index)")
                    participants.append(participant)
                    _ = try await participant.waitUntilStarted(timeout: .seconds(30))
                    source.start()
                    participant.session.audioVideo.startLocalVideo(source: source)
                }
                for index in 0..<receivers {
                    let participant = try await BenchParticipant.join(client: client, meeting: meeting, name: "receiver-\(index)")
                    watching.append(participant)
                    _ = try await participant.waitUntilStarted(timeout: .seconds(30))
                    participant.session.audioVideo.startRemoteVideo()
                }
                let result = try await measure(watching: watching, serverPID: serverPID, senders: senders, seconds: seconds)
                for participant in participants + watching { try? await participant.leave(timeout: .seconds(20)) }
                return result
            } catch {
                for participant in participants + watching { try? await participant.leave(timeout: .seconds(20)) }
                throw error
            }
        }

        private static func measure(watching: [BenchParticipant], serverPID: Int32, senders: Int,
                                    seconds: Int) async throws -> VideoLoadResult {
            // Every receiver gets every sender's frames before the window opens.
            let deadline = ContinuousClock.now + .seconds(60)
            while watching.contains(where: { Self.statistics($0).filter { $0.framesReceived > 0 }.count < senders }) {
                guard ContinuousClock.now < deadline else {
                    let streams = watching.map { Self.statistics($0).map { "\($0.attendeeId.suffix(4)):\($0.framesReceived)f/\($0.bytesReceived)B" } }
                    throw BenchTimeout(what: "every receiver to receive every sender (per receiver: \(streams))")
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            try await Task.sleep(for: .seconds(2))

            let before = watching.map(Self.statistics)
            let wallStart = ContinuousClock.now
            let serverStart = ProcessCPUTime.seconds(pid: serverPID) ?? 0
            let selfStart = ProcessCPUTime.seconds() ?? 0
            try await Task.sleep(for: .seconds(seconds))
            let wall = wallStart.duration(to: .now).seconds
            let server = ((ProcessCPUTime.seconds(pid: serverPID) ?? 0) - serverStart) / wall
            let load = ((ProcessCPUTime.seconds() ?? 0) - selfStart) / wall
            let after = watching.map(Self.statistics)

            // Complete frames received per second on every forwarded stream over the window.
            var rates: [Double] = []
            var kilobits: [Double] = []
            for (first, last) in zip(before, after) {
                for stream in last {
                    let start = first.first { $0.videoId == stream.videoId }
                    rates.append(Double(stream.framesReceived - (start?.framesReceived ?? 0)) / wall)
                    kilobits.append(Double(stream.bytesReceived - (start?.bytesReceived ?? 0)) * 8 / wall / 1_000)
                }
                // A stream a receiver lost during the window counts as nothing delivered.
                rates += Array(repeating: 0, count: max(0, senders - last.count))
            }
            rates.sort()
            return VideoLoadResult(senders: senders, receivers: watching.count, serverCPU: server, loadCPU: load,
                                   frameRates: rates,
                                   kilobitsPerStream: kilobits.isEmpty ? 0 : kilobits.reduce(0, +) / Double(kilobits.count),
                                   packetDeliveries: nil)
        }

        static func statistics(_ participant: BenchParticipant) -> [RemoteVideoStatistics] {
            (participant.session.audioVideo as? DefaultAudioVideoFacade)?.remoteVideoStatistics() ?? []
        }
    }

    /// Glass-to-glass latency on loopback: a 640x360 pattern source's frames, each carrying its counter, from the
    /// moment the source hands a picture to the SDK to the moment the receiver's tile sink gets it decoded (encode,
    /// pacing, SRTP, the SFU, reassembly and decode included; no screen or camera).
    struct GlassToGlass: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "glass-to-glass",
            abstract: "Frame captured to frame decoded at another attendee through the SFU on loopback, p50 and p99."
        )
        @Option(help: "Frames to time (15 a second).") var frames = 300

        func validate() throws {
            guard (10...100_000).contains(frames) else { throw ValidationError("--frames must be 10...100000") }
        }

        func run() async throws {
            try await EmbeddedServer.with { bench in try await measure(bench) }
        }

        private func measure(_ bench: EmbeddedServer) async throws {
            let meeting = try await bench.createMeeting()
            let captured = FrameClock(), shown = FrameClock()
            let source = try PatternVideoSource(color: .green, width: 640, height: 360, fps: 15)
            source.addVideoSink(sink: captured)
            let sender = try await bench.join(meeting, name: "sender")
            let receiver = try await bench.join(meeting, name: "receiver")
            _ = try await sender.waitUntilStarted()
            _ = try await receiver.waitUntilStarted()
            guard let facade = receiver.session.audioVideo as? DefaultAudioVideoFacade else { return }
            let binder = TileBinder(facade: facade, sink: shown)
            facade.addVideoTileObserver(observer: binder)
            facade.startRemoteVideo()
            source.start()
            sender.session.audioVideo.startLocalVideo(source: source)
            // Warm up (key frame, the encoder's rate settles), then time the next `frames` pictures.
            try await Task.sleep(for: .seconds(3))
            let first = captured.latestCounter + 1
            let deadline = ContinuousClock.now + .seconds(Int64(frames / 15 + 10))
            while captured.latestCounter < first + frames, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            try await Task.sleep(for: .milliseconds(500))
            source.stop()
            try await sender.leave()
            try await receiver.leave()

            let sent = captured.times, seen = shown.times
            var latencies: [Duration] = []
            for counter in first..<(first + frames) {
                guard let start = sent[counter], let end = seen[counter] else { continue }
                latencies.append(start.duration(to: end))
            }
            guard latencies.count >= frames / 2 else {
                throw BenchTimeout(what: "frames at the receiver (\(latencies.count) of \(frames) timed)")
            }
            StandardOutput.line("glass-to-glass (640x360, 15 fps) over \(latencies.count) of \(frames) frames: \(Percentiles(latencies).summary)")
        }
    }
}

/// A sink that notes when each pattern counter first passed it (on the thread that delivered the frame).
final class FrameClock: VideoRenderView, @unchecked Sendable {
    private let state = Mutex((times: [Int: ContinuousClock.Instant](), latest: -1))

    var times: [Int: ContinuousClock.Instant] { state.withLock { $0.times } }
    var latestCounter: Int { state.withLock { $0.latest } }

    func onVideoFrameReceived(frame: VideoFrame) {
        let now = ContinuousClock.now
        guard let buffer = frame.buffer as? VideoFrameI420Buffer, let counter = VideoPatternReading(buffer.image).counter
        else { return }
        state.withLock { state in
            if state.times[counter] == nil { state.times[counter] = now }
            state.latest = max(state.latest, counter)
        }
    }
}

/// Binds one sink to every remote tile.
final class TileBinder: VideoTileObserver, @unchecked Sendable {
    private let facade: DefaultAudioVideoFacade
    private let sink: any VideoRenderView

    init(facade: DefaultAudioVideoFacade, sink: any VideoRenderView) {
        self.facade = facade
        self.sink = sink
    }

    func videoTileDidAdd(tileState: VideoTileState) {
        if !tileState.isLocalTile { facade.bindVideoView(videoView: sink, tileId: tileState.tileId) }
    }
    func videoTileDidRemove(tileState: VideoTileState) {}
    func videoTileDidPause(tileState: VideoTileState) {}
    func videoTileDidResume(tileState: VideoTileState) {}
    func videoTileSizeDidChange(tileState: VideoTileState) {}
}
