import ArgumentParser
import Carillon
import CarillonControlClient
import CarillonProtocol
import CarillonServer
import Foundation

extension BenchCommand {
    /// A cluster on PostgreSQL against one server: the control API's rate on each store, join latency through a
    /// node that bridges the signaling against the hosting node itself, and failover time from `kill -9` of a
    /// meeting's node until its attendees hear each other again. Every server is a `carillon serve` child process on
    /// 127.0.0.1; the database is the operator's (`--database`), which the bench fills with meetings.
    struct Cluster: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cluster",
            abstract: "Control-API rate on PostgreSQL against SQLite, join latency bridged against direct, and failover time after kill -9 of a meeting's node (three nodes)."
        )
        @Option(help: "PostgreSQL the nodes share, postgresql://USER@HOST[:PORT]/DB (the bench creates meetings in it).")
        var database: String
        @Option(help: "CreateAttendee requests per store.") var requests = 2000
        @Option(help: "Requests in flight at once.") var concurrency = 16
        @Option(help: "Joins timed each way (bridged and direct).") var joins = 20
        @Option(help: "Failovers timed (kill -9 of the meeting's node, then it is restarted).") var trials = 20

        func validate() throws {
            guard (1...100_000).contains(requests), (1...512).contains(concurrency) else {
                throw ValidationError("--requests must be 1...100000 and --concurrency 1...512")
            }
            guard (1...1_000).contains(joins), (1...200).contains(trials) else {
                throw ValidationError("--joins must be 1...1000 and --trials 1...200")
            }
        }

        func run() async throws {
            try await controlAPIRate()
            let key = AccessKey.generate()
            var nodes: [String: ChildServer] = [:]
            defer { for node in nodes.values { node.stop() } }
            for name in ["bench-a", "bench-b", "bench-c"] { nodes[name] = try start(name, key: key) }
            try await joinLatency(nodes)
            try await failover(&nodes, key: key)
        }

        private func start(_ name: String, key: AccessKey) throws -> ChildServer {
            try ChildServer.start(extraArguments: ["--database", database, "--node-id", name], key: key)
        }

        private func controlAPIRate() async throws {
            for (store, arguments) in [("SQLite", [String]()), ("PostgreSQL", ["--database", database])] {
                let child = try ChildServer.start(extraArguments: arguments)
                defer { child.stop() }
                var meetings: [String] = []
                for _ in 0..<((requests + 249) / 250) {
                    meetings.append(try await EmbeddedServer.createMeeting(client: child.client, externalId: "bench-rate").meetingId)
                }
                let seconds = try await ControlAPI.createAttendees(client: child.client, meetingIds: meetings,
                                                                   requests: requests, concurrency: concurrency)
                StandardOutput.line(String(format: "CreateAttendee on %@: %d requests, concurrency %d, %.0f requests/s",
                                           store, requests, concurrency, Double(requests) / seconds))
            }
        }

        /// A meeting created through `front` whose media is on a node for which `wanted` holds.
        private func meeting(through front: ChildServer, hostedOn wanted: (String) -> Bool) async throws
            -> (response: CreateMeetingResponse, meetingId: String, host: String) {
            for _ in 0..<30 {
                let json = try await front.client.send("POST", "/meetings", body: try JSONSerialization.data(withJSONObject: [
                    "ClientRequestToken": UUID().uuidString, "ExternalMeetingId": "bench-cluster", "MediaRegion": "us-east-1",
                ]))
                let meeting = try JSONDecoder().decode(CarillonProtocol.ControlAPI.MeetingResponse.self, from: json).meeting
                if let host = meeting?.mediaPlacement?.audioHostUrl, let id = meeting?.meetingId, wanted(host) {
                    return (try JSONDecoder().decode(CreateMeetingResponse.self, from: json), id, host)
                }
            }
            throw BenchTimeout(what: "a meeting placed on the node wanted")
        }

        private func joinLatency(_ nodes: [String: ChildServer]) async throws {
            let front = try require(nodes["bench-a"])
            for (way, bridged) in [("direct", false), ("bridged", true)] {
                var latencies: [Duration] = []
                for index in 0..<joins {
                    let meeting = try await meeting(through: front) { ($0 == front.media) != bridged }
                    let participant = try await BenchParticipant.join(client: front.client,
                                                                      meeting: (meeting.response, meeting.meetingId),
                                                                      name: "join-\(index)")
                    latencies.append(try await participant.waitUntilStarted(timeout: .seconds(20)))
                    try await participant.leave()
                }
                StandardOutput.line("join \(way) over \(latencies.count) joins: \(Percentiles(latencies).summary)")
            }
        }

        /// Each trial: a speaker's bursts and a listener join a meeting hosted off the front node, through the front
        /// node; once bursts are heard, the hosting node is killed; the time to the first burst heard after it is the
        /// failover; the node is restarted with its id and the next trial starts.
        private func failover(_ nodes: inout [String: ChildServer], key: AccessKey) async throws {
            var times: [Duration] = []
            for trial in 0..<trials {
                let front = try require(nodes["bench-a"])
                let meeting = try await meeting(through: front) { $0 != front.media }
                guard let (hostName, host) = nodes.first(where: { $0.value.media == meeting.host }) else {
                    throw BenchTimeout(what: "the meeting's node among the bench's")
                }
                let bursts = BurstSource.Log()
                let onsets = OnsetSink.Log()
                let speaker = try await BenchParticipant.join(client: front.client, meeting: (meeting.response, meeting.meetingId), name: "speaker-\(trial)") { facade in
                    let devices = facade.deviceController.virtualDevices
                    facade.chooseAudioDevice(mediaDevice: devices.addInput(label: "Bursts") { BurstSource(format: $0, log: bursts) })
                }
                let listener = try await BenchParticipant.join(client: front.client, meeting: (meeting.response, meeting.meetingId), name: "listener-\(trial)") { facade in
                    let devices = facade.deviceController.virtualDevices
                    facade.chooseAudioDevice(mediaDevice: devices.addOutput(label: "Onsets") { OnsetSink(format: $0, log: onsets) })
                }
                defer {
                    speaker.session.audioVideo.stop()
                    listener.session.audioVideo.stop()
                }
                try await until("bursts heard before the kill", timeout: .seconds(30)) { onsets.times.count >= 3 }
                let killed = ContinuousClock.now
                host.kill()
                // Audio already on its way when the node died is not the meeting coming back.
                try await until("bursts heard after the kill", timeout: .seconds(60)) {
                    onsets.times.contains { $0 > killed + .seconds(1) }
                }
                let back = try require(onsets.times.first { $0 > killed + .seconds(1) })
                times.append(killed.duration(to: back))
                host.stop()
                nodes[hostName] = try start(hostName, key: key)
            }
            StandardOutput.line("failover (kill -9 of the meeting's node to sound back) over \(times.count) trials: \(Percentiles(times).summary)")
        }

        private func until(_ what: String, timeout: Duration, _ condition: () -> Bool) async throws {
            let deadline = ContinuousClock.now + timeout
            while !condition() {
                guard ContinuousClock.now < deadline else { throw BenchTimeout(what: what) }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        private func require<Value>(_ value: Value?) throws -> Value {
            guard let value else { throw BenchTimeout(what: "a node of the bench") }
            return value
        }
    }
}
