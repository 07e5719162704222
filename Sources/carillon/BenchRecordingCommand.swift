import ArgumentParser
import Carillon
import CarillonCodecs
import CarillonControlClient
import Foundation

extension BenchCommand {
    /// What recording costs the server: the same meeting (`--cameras` SDK sessions, each sending a 360p pattern at
    /// 15 fps and one of them a tone, each receiving the others) measured for `--seconds` unrecorded, then as long with
    /// a media capture pipeline writing it, then unrecorded again; server CPU and memory (mean resident set) from
    /// outside the child server, disk bytes from the pipeline's directory.
    struct Recording: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recording",
            abstract: "Server CPU, memory and disk of recording a meeting (a media capture pipeline) against the same meeting unrecorded."
        )
        @Option(help: "Attendees with a camera (360p at 15 fps); each receives the others.") var cameras = 4
        @Option(help: "Seconds to measure each phase (unrecorded, then recorded).") var seconds = 60

        func validate() throws {
            guard (1...25).contains(cameras) else { throw ValidationError("--cameras must be 1...25") }
            guard (5...3_600).contains(seconds) else { throw ValidationError("--seconds must be 5...3600") }
        }

        func run() async throws {
            let recordings = FileManager.default.temporaryDirectory.appendingPathComponent("carillon-bench-recordings-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: recordings) }
            let child = try ChildServer.start(extraArguments: ["--recordings-dir", recordings.path])
            defer { child.stop() }
            // Unrecorded before and after, so what the server's heap does over time is not taken for the recording's.
            let before = try await phase(child: child, recordings: nil)
            let recorded = try await phase(child: child, recordings: recordings)
            let after = try await phase(child: child, recordings: nil)
            let plainCPU = (before.cpu + after.cpu) / 2, plainResident = (before.residentMiB + after.residentMiB) / 2
            StandardOutput.line(String(format: "%d cameras, %d s each: unrecorded server %.1f %% / %.1f %% of one core (before / after), %.0f / %.0f MiB resident; recorded %.1f %%, %.0f MiB (%+.1f %% of a core, %+.0f MiB)",
                                       cameras, seconds, before.cpu * 100, after.cpu * 100, before.residentMiB,
                                       after.residentMiB, recorded.cpu * 100, recorded.residentMiB,
                                       (recorded.cpu - plainCPU) * 100, recorded.residentMiB - plainResident))
            StandardOutput.line(String(format: "recording: %.2f MB per minute on disk (%d files: audio %.2f, video %.2f, events and messages %.3f MB/min)",
                                       recorded.diskBytes.total / 1e6 / (Double(seconds) / 60), recorded.files,
                                       recorded.diskBytes.audio / 1e6 / (Double(seconds) / 60),
                                       recorded.diskBytes.video / 1e6 / (Double(seconds) / 60),
                                       recorded.diskBytes.lines / 1e6 / (Double(seconds) / 60)))
        }

        private struct Phase {
            var cpu: Double
            var residentMiB: Double
            var diskBytes: (total: Double, audio: Double, video: Double, lines: Double) = (0, 0, 0, 0)
            var files = 0
        }

        /// One meeting measured for `seconds`, recorded into `recordings` when given (the pipeline starts once every
        /// stream flows and is deleted, and its files finished, after the window).
        private func phase(child: ChildServer, recordings: URL?) async throws -> Phase {
            let client = child.client
            let meeting = try await EmbeddedServer.createMeeting(client: client, externalId: "bench-recording-\(recordings == nil ? "off" : "on")")
            let colors = VideoTestPattern.Color.palette
            var participants: [BenchParticipant] = []
            defer { for participant in participants { participant.session.audioVideo.stop() } }
            for index in 0..<cameras {
                let source = try PatternVideoSource(color: colors[index % colors.count], width: 640, height: 360, fps: 15)
                let participant = try await BenchParticipant.join(client: client, meeting: meeting, name: "camera-\(index)") { facade in
                    // One speaker, so the mix is encoded as in a meeting someone talks in.
                    if index == 0 { facade.chooseAudioDevice(mediaDevice: try facade.deviceController.virtualDevices.addTone(frequency: 440)) }
                }
                participants.append(participant)
                _ = try await participant.waitUntilStarted(timeout: .seconds(30))
                source.start()
                participant.session.audioVideo.startLocalVideo(source: source)
                participant.session.audioVideo.startRemoteVideo()
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while participants.contains(where: { VideoMeeting.statistics($0).filter { $0.framesReceived > 0 }.count < cameras - 1 }) {
                guard ContinuousClock.now < deadline else { throw BenchTimeout(what: "every camera to reach every attendee") }
                try await Task.sleep(for: .milliseconds(100))
            }
            var pipelineId: String?
            if recordings != nil {
                let body: [String: Any] = [
                    "SourceType": "ChimeSdkMeeting", "SourceArn": "arn:aws:chime::000000000000:meeting:\(meeting.meetingId)",
                    "SinkType": "S3Bucket", "SinkArn": "arn:aws:s3:::bench",
                ]
                let reply = try await client.send("POST", "/sdk-media-capture-pipelines",
                                                  body: try JSONSerialization.data(withJSONObject: body))
                let pipeline = (try JSONSerialization.jsonObject(with: reply) as? [String: Any])?["MediaCapturePipeline"] as? [String: Any]
                pipelineId = pipeline?["MediaPipelineId"] as? String
            }
            try await Task.sleep(for: .seconds(2))
            let wallStart = ContinuousClock.now
            let cpuStart = ProcessCPUTime.seconds(pid: child.pid) ?? 0
            var residentSamples: [Double] = []
            while wallStart.duration(to: .now) < .seconds(seconds) {
                try await Task.sleep(for: .seconds(1))
                if let resident = Self.residentMiB(pid: child.pid) { residentSamples.append(resident) }
            }
            let wall = wallStart.duration(to: .now).seconds
            var phase = Phase(cpu: ((ProcessCPUTime.seconds(pid: child.pid) ?? 0) - cpuStart) / wall,
                              residentMiB: residentSamples.isEmpty ? 0 : residentSamples.reduce(0, +) / Double(residentSamples.count))
            if let pipelineId, let recordings {
                _ = try await client.send("DELETE", "/sdk-media-capture-pipelines/\(pipelineId)")
                try await Task.sleep(for: .seconds(2))
                let directory = recordings.appendingPathComponent("bench/\(pipelineId)")
                for folder in ["audio", "video", "meeting-events", "data-channel"] {
                    let url = directory.appendingPathComponent(folder)
                    for name in (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [] {
                        let attributes = try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(name).path)
                        let size = Double((attributes?[.size] as? Int) ?? 0)
                        switch folder {
                        case "audio": phase.diskBytes.audio += size
                        case "video": phase.diskBytes.video += size
                        default: phase.diskBytes.lines += size
                        }
                        phase.diskBytes.total += size
                        phase.files += 1
                    }
                }
            }
            for participant in participants { try? await participant.leave(timeout: .seconds(20)) }
            participants.removeAll()
            return phase
        }

        /// The resident set of a process (VmRSS), MiB.
        static func residentMiB(pid: Int32) -> Double? {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                  let kilobytes = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            else { return nil }
            return kilobytes / 1_024
        }
    }
}
