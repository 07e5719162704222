import ArgumentParser
import Carillon
import CarillonCodecs
import Foundation

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
        @Option(help: "Sessions receiving (and decoding) every sender's video (they send none).") var receivers = 4
        @Option(help: "Seconds to measure, after every stream arrived.") var seconds = 20

        func validate() throws {
            guard (1...25).contains(senders) else { throw ValidationError("--senders must be 1...25 (Chime's sender limit)") }
            guard (1...50).contains(receivers) else { throw ValidationError("--receivers must be 1...50") }
            guard (1...600).contains(seconds) else { throw ValidationError("--seconds must be 1...600") }
        }

        func run() async throws {
            let child = try ChildServer.start()
            defer { child.stop() }
            let meeting = try await EmbeddedServer.createMeeting(client: child.client, externalId: "bench-video")
            let colors = VideoTestPattern.Color.palette
            var participants: [BenchParticipant] = []
            for index in 0..<senders {
                let source = try PatternVideoSource(color: colors[index % colors.count], width: 640, height: 360, fps: 15)
                let participant = try await BenchParticipant.join(client: child.client, meeting: meeting, name: "sender-\(index)")
                _ = try await participant.waitUntilStarted(timeout: .seconds(30))
                source.start()
                participant.session.audioVideo.startLocalVideo(source: source)
                participants.append(participant)
            }
            var watching: [BenchParticipant] = []
            for index in 0..<receivers {
                let participant = try await BenchParticipant.join(client: child.client, meeting: meeting, name: "receiver-\(index)")
                _ = try await participant.waitUntilStarted(timeout: .seconds(30))
                participant.session.audioVideo.startRemoteVideo()
                watching.append(participant)
            }
            // Every receiver decodes every sender before the window opens.
            let deadline = ContinuousClock.now + .seconds(30)
            while watching.contains(where: { Self.statistics($0).filter { $0.framesDecoded > 0 }.count < senders }) {
                guard ContinuousClock.now < deadline else { throw BenchTimeout(what: "every receiver to decode every sender") }
                try await Task.sleep(for: .milliseconds(100))
            }
            try await Task.sleep(for: .seconds(2))

            let before = watching.map(Self.statistics)
            let wallStart = ContinuousClock.now
            let serverStart = ProcessCPUTime.seconds(pid: child.pid) ?? 0
            let selfStart = ProcessCPUTime.seconds() ?? 0
            try await Task.sleep(for: .seconds(seconds))
            let wall = wallStart.duration(to: .now).seconds
            let server = ((ProcessCPUTime.seconds(pid: child.pid) ?? 0) - serverStart) / wall
            let load = ((ProcessCPUTime.seconds() ?? 0) - selfStart) / wall
            let after = watching.map(Self.statistics)
            for participant in participants + watching { try? await participant.leave(timeout: .seconds(20)) }

            // Frames decoded per second on every forwarded stream over the window.
            var rates: [Double] = []
            var kilobits: [Double] = []
            for (first, last) in zip(before, after) {
                for stream in last {
                    let start = first.first { $0.videoId == stream.videoId }
                    rates.append(Double(stream.framesDecoded - (start?.framesDecoded ?? 0)) / wall)
                    kilobits.append(Double(stream.bytesReceived - (start?.bytesReceived ?? 0)) * 8 / wall / 1_000)
                }
            }
            rates.sort()
            let streams = senders * receivers
            StandardOutput.line(String(format: "%d senders × %d receivers (%d forwarded 360p streams), %d s: server %.1f %% of one core in total, %.2f %% per forwarded stream",
                                       senders, receivers, streams, seconds, server * 100, server * 100 / Double(streams)))
            StandardOutput.line(String(format: "load generator (this process: %d encoders, %d decoders) %.1f %% of one core",
                                       senders, streams, load * 100))
            StandardOutput.line(String(format: "delivery: %d streams decoded, fps min %.1f, median %.1f; mean %.0f kbit/s per stream",
                                       rates.count, rates.first ?? 0, rates.isEmpty ? 0 : rates[rates.count / 2],
                                       kilobits.isEmpty ? 0 : kilobits.reduce(0, +) / Double(kilobits.count)))
        }

        static func statistics(_ participant: BenchParticipant) -> [RemoteVideoStatistics] {
            (participant.session.audioVideo as? DefaultAudioVideoFacade)?.remoteVideoStatistics() ?? []
        }
    }
}
