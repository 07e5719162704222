import ArgumentParser
import Carillon
import Foundation

extension BenchCommand {
    /// Meetings made and ended over and over against one server: what it keeps after each is the leak.
    struct Churn: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "churn",
            abstract: "Create a meeting, join attendees with audio, leave, delete; repeat. Prints the server's memory and open files (the server runs as a child process)."
        )
        @Option(help: "Meetings to create and end after the warm-up.") var cycles = 200
        @Option(help: "Meetings before the baseline is taken.") var warmup = 20
        @Option(help: "Attendees per meeting; the first speaks a tone, the others listen.") var attendees = 3
        @Option(help: "Seconds the attendees stay in each meeting once all hear audio.") var hold = 1.0

        func validate() throws {
            guard (1...100_000).contains(cycles), (0...10_000).contains(warmup) else {
                throw ValidationError("--cycles must be 1...100000 and --warmup 0...10000")
            }
            guard (1...50).contains(attendees) else { throw ValidationError("--attendees must be 1...50") }
            guard hold >= 0, hold <= 60 else { throw ValidationError("--hold must be 0...60 seconds") }
        }

        func run() async throws {
            let child = try ChildServer.start()
            defer { child.stop() }
            StandardOutput.line("cycle  rss_kib  open_fds")
            var baseline: ServerFootprint?
            for cycle in 1...(warmup + cycles) {
                try await runMeeting(child, cycle: cycle)
                // Leaving and deleting are asynchronous on the server: let them settle before reading.
                try await Task.sleep(for: .milliseconds(200))
                guard let footprint = ServerFootprint(pid: child.pid) else { throw BenchTimeout(what: "the server's /proc entry") }
                if cycle == warmup || (warmup == 0 && cycle == 1) { baseline = footprint }
                if cycle % 10 == 0 || cycle == warmup || cycle == warmup + cycles {
                    StandardOutput.line(String(format: "%5d  %7d  %8d", cycle, footprint.residentKiB, footprint.openFiles))
                }
            }
            guard let baseline, let last = ServerFootprint(pid: child.pid) else { return }
            let measured = warmup == 0 ? cycles - 1 : cycles
            StandardOutput.line(String(format: "after %d cycles from the baseline: resident memory %+d KiB (%.1f KiB per meeting), open files %+d",
                                       measured, last.residentKiB - baseline.residentKiB,
                                       Double(last.residentKiB - baseline.residentKiB) / Double(max(1, measured)),
                                       last.openFiles - baseline.openFiles))
        }

        private func runMeeting(_ child: ChildServer, cycle: Int) async throws {
            let meeting = try await EmbeddedServer.createMeeting(client: child.client, externalId: "churn-\(cycle)")
            var participants: [BenchParticipant] = []
            for index in 0..<attendees {
                let talker = index == 0
                let audio = AudioVideoConfiguration(audioDeviceCapabilities: talker ? .inputAndOutput : .none)
                participants.append(try await BenchParticipant.join(
                    client: child.client, meeting: meeting, name: "churn-\(cycle)-\(index)", audio: audio) { facade in
                    if talker {
                        let devices = facade.deviceController.virtualDevices
                        facade.chooseAudioDevice(mediaDevice: try devices.addTone(frequency: 440))
                        facade.chooseAudioDevice(mediaDevice: devices.addNullOutput())
                    }
                })
            }
            for participant in participants { _ = try await participant.waitUntilStarted(timeout: .seconds(30)) }
            try await Task.sleep(for: .milliseconds(Int(hold * 1000)))
            for participant in participants { try? await participant.leave(timeout: .seconds(20)) }
            _ = try await child.client.send("DELETE", "/meetings/\(meeting.meetingId)")
        }
    }
}

/// A process's resident memory and open file descriptors, from `/proc`.
struct ServerFootprint {
    let residentKiB: Int
    let openFiles: Int

    init?(pid: Int32) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""),
              let files = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        else { return nil }
        residentKiB = kib
        openFiles = files.count
    }
}
