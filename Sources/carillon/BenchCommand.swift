import ArgumentParser
import Carillon
import CarillonControlClient
import CarillonProtocol
import CarillonRTC
import CarillonServer
import Foundation
import Synchronization

/// `carillon bench`: measurements against an embedded server on 127.0.0.1; figures go to BENCHMARKS.md.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the control API and signaling on this machine (embedded server on 127.0.0.1).",
        subcommands: [ControlAPI.self, Join.self, Fanout.self, SRTP.self, Handshake.self, Forward.self, MouthToEar.self,
                      AudioMeeting.self, ClientCPU.self, Churn.self, VideoMeeting.self, GlassToGlass.self, VoiceFocus.self,
                      JanusAudio.self, JanusProbe.self, JanusVideo.self, JanusVideoProbe.self, Recording.self,
                      Cluster.self]
    )

    /// CreateAttendee requests per second through the signed REST API.
    struct ControlAPI: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "control-api",
            abstract: "CreateAttendee requests per second (SigV4-signed, SQLite-backed)."
        )
        @Option(help: "Requests to send in total.") var requests = 2000
        @Option(help: "Requests in flight at once.") var concurrency = 16

        func validate() throws {
            guard (1...1_000_000).contains(requests), (1...512).contains(concurrency) else {
                throw ValidationError("--requests must be 1...1000000 and --concurrency 1...512")
            }
        }

        func run() async throws {
            try await EmbeddedServer.with { bench in try await measure(bench) }
        }

        private func measure(_ bench: EmbeddedServer) async throws {
            var meetings: [String] = []
            // One meeting holds at most 250 attendees, so spread the requests over enough meetings.
            for _ in 0..<((requests + 249) / 250) { meetings.append(try await bench.createMeeting().meetingId) }
            let seconds = try await Self.createAttendees(client: bench.client, meetingIds: meetings, requests: requests,
                                                         concurrency: concurrency)
            StandardOutput.line(String(format: "CreateAttendee: %d requests, concurrency %d, %.2f s, %.0f requests/s",
                         requests, concurrency, seconds, Double(requests) / seconds))
        }

        /// Sends `requests` CreateAttendee requests (250 per meeting of `meetingIds`), `concurrency` at once; returns
        /// the seconds they took.
        static func createAttendees(client: ControlAPIClient, meetingIds: [String], requests: Int,
                                    concurrency: Int) async throws -> Double {
            let (total, workers) = (requests, concurrency)
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Worker w sends requests w, w + workers, w + 2 workers, ...: no shared counter needed.
                for worker in 0..<workers {
                    group.addTask {
                        for index in stride(from: worker, to: total, by: workers) {
                            _ = try await client.send(
                                "POST", "/meetings/\(meetingIds[index / 250])/attendees",
                                body: Data("{\"ExternalUserId\":\"bench-\(index)\"}".utf8)
                            )
                        }
                    }
                }
                try await group.waitForAll()
            }
            return start.duration(to: .now).seconds
        }
    }

    /// Time from `start()` to the session being in the meeting (WebSocket open, JOIN, JOIN_ACK, INDEX).
    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Signaling join latency: start() until JOIN_ACK and INDEX arrived, p50 and p99."
        )
        @Option(help: "Sessions to join, one after another.") var sessions = 200

        func validate() throws {
            guard (1...10_000).contains(sessions) else { throw ValidationError("--sessions must be 1...10000") }
        }

        func run() async throws {
            try await EmbeddedServer.with { bench in try await measure(bench) }
        }

        private func measure(_ bench: EmbeddedServer) async throws {
            let meeting = try await bench.createMeeting()
            var latencies: [Duration] = []
            for index in 0..<sessions {
                // A fresh meeting every 200 joins keeps under the attendee cap.
                let target = index % 200 == 0 && index > 0 ? try await bench.createMeeting() : meeting
                let participant = try await bench.join(target, name: "joiner-\(index)")
                latencies.append(try await participant.waitUntilStarted())
                try await participant.leave()
            }
            StandardOutput.line("join latency over \(sessions) sessions: \(Percentiles(latencies).summary)")
        }
    }

    /// Latency from `realtimeSendDataMessage` to delivery at every other attendee of a large meeting.
    struct Fanout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Data-message fan-out latency in one meeting: send to delivery at each receiver, p50 and p99."
        )
        @Option(help: "Attendees in the meeting.") var attendees = 50
        @Option(help: "Messages the first attendee sends.") var messages = 100
        @Option(help: "Messages per second it sends them at (the meeting's data-message throttle passes 100 a second).")
        var rate = 50.0

        func validate() throws {
            guard (2...250).contains(attendees), (1...10_000).contains(messages) else {
                throw ValidationError("--attendees must be 2...250 and --messages 1...10000")
            }
            guard rate > 0, rate <= 10_000 else { throw ValidationError("--rate must be more than 0 and at most 10000") }
        }

        func run() async throws {
            try await EmbeddedServer.with { bench in try await measure(bench) }
        }

        private func measure(_ bench: EmbeddedServer) async throws {
            let meeting = try await bench.createMeeting()
            var participants: [BenchParticipant] = []
            for index in 0..<attendees {
                let participant = try await bench.join(meeting, name: "fan-\(index)")
                _ = try await participant.waitUntilStarted()
                participants.append(participant)
            }
            let sender = participants[0]
            let sentAt = Mutex([String: ContinuousClock.Instant]())
            let start = ContinuousClock.now
            let interval = Duration.nanoseconds(Int64(1e9 / rate))
            for index in 0..<messages {
                // On a schedule from the start, so the rate holds however long each send takes.
                try await Task.sleep(until: start + interval * index)
                let body = "m\(index)"
                sentAt.withLock { $0[body] = .now }
                try sender.session.audioVideo.realtimeSendDataMessage(topic: "bench", data: body, lifetimeMs: 0)
            }
            let deadline = ContinuousClock.now + .seconds(30)
            func settled() -> Bool {
                (messages - sender.throttled) * (attendees - 1) == participants.dropFirst().map(\.received.count).reduce(0, +)
            }
            while !settled(), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            try await Task.sleep(for: .milliseconds(100))
            let throttled = sender.throttled
            let expected = (messages - throttled) * (attendees - 1)
            let sent = sentAt.withLock { $0 }
            var latencies: [Duration] = []
            for participant in participants.dropFirst() {
                for (body, arrival) in participant.received {
                    if let departure = sent[body] { latencies.append(departure.duration(to: arrival)) }
                }
            }
            for participant in participants { try await participant.leave() }
            StandardOutput.line("fan-out to \(attendees - 1) receivers, \(messages) messages at \(rate)/s, \(throttled) throttled, "
                + "\(latencies.count)/\(expected) deliveries: \(Percentiles(latencies).summary)")
        }
    }
}

extension BenchCommand {
    /// SRTP protect and unprotect throughput per profile, on one core, for each implementation side by side.
    struct SRTP: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "srtp",
            abstract: "SRTP protect and unprotect packets per second per profile, OpenSSL EVP and libsrtp2 (one core)."
        )
        @Option(help: "Packets per profile and direction.") var packets = 200_000
        @Option(help: "RTP payload bytes per packet.") var payload = 1188

        func validate() throws {
            guard (1...10_000_000).contains(packets), (1...1400).contains(payload) else {
                throw ValidationError("--packets must be 1...10000000 and --payload 1...1400")
            }
        }

        func run() async throws {
            for profile in SRTPProfile.allCases {
                let key = [UInt8](repeating: 7, count: profile.keyLength), salt = [UInt8](repeating: 9, count: profile.saltLength)
                let implementations: [(name: String, sender: any SRTPContext, receiver: any SRTPContext)] = [
                    ("OpenSSL", try OpenSSLSRTPContext(profile: profile, masterKey: key, masterSalt: salt),
                     try OpenSSLSRTPContext(profile: profile, masterKey: key, masterSalt: salt)),
                    ("libsrtp", try LibSRTPContext(profile: profile, masterKey: key, masterSalt: salt, direction: .outbound),
                     try LibSRTPContext(profile: profile, masterKey: key, masterSalt: salt, direction: .inbound)),
                ]
                for (name, sender, receiver) in implementations {
                    try measure(profile: profile, implementation: name, sender: sender, receiver: receiver)
                }
            }
        }

        private func measure(profile: SRTPProfile, implementation: String, sender: any SRTPContext,
                             receiver: any SRTPContext) throws {
            // Packets are built (with room for the tag) before the clock starts: only SRTP is timed.
            let header: [UInt8] = [0x80, 96, 0, 0, 0, 0, 0, 0, 0x11, 0x22, 0x33, 0x44]
            var protected: [[UInt8]] = (0..<packets).map { index in
                var packet = header + [UInt8](repeating: 0xAB, count: payload)
                packet.reserveCapacity(packet.count + 256)
                packet[2] = UInt8(index >> 8 & 0xFF)
                packet[3] = UInt8(index & 0xFF)
                return packet
            }
            let protectAllocations = AllocationCounter.count
            let protectStart = ContinuousClock.now
            for index in protected.indices { try sender.protectRTP(&protected[index]) }
            let protectSeconds = protectStart.duration(to: .now).seconds
            let unprotectAllocations = AllocationCounter.count
            let unprotectStart = ContinuousClock.now
            for index in protected.indices { try receiver.unprotectRTP(&protected[index]) }
            let unprotectSeconds = unprotectStart.duration(to: .now).seconds
            let end = AllocationCounter.count
            let allocations = if let protectAllocations, let unprotectAllocations, let end {
                String(format: ", %.2f and %.2f heap allocations/packet",
                       Double(unprotectAllocations - protectAllocations) / Double(packets),
                       Double(end - unprotectAllocations) / Double(packets))
            } else {
                ""
            }
            StandardOutput.line(String(format: "%@ %@: protect %.0f packets/s, unprotect %.0f packets/s%@ (%d packets of %d bytes)",
                                       profile.description, implementation, Double(packets) / protectSeconds,
                                       Double(packets) / unprotectSeconds, allocations, packets, payload + 12))
        }
    }
}

/// Percentiles of a set of durations, printed in milliseconds.
struct Percentiles {
    let sorted: [Duration]

    init(_ values: [Duration]) { sorted = values.sorted() }

    func percentile(_ p: Double) -> Duration {
        guard !sorted.isEmpty else { return .zero }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    var summary: String {
        String(format: "p50 %.2f ms, p99 %.2f ms, max %.2f ms",
               percentile(0.50).milliseconds, percentile(0.99).milliseconds, (sorted.last ?? .zero).milliseconds)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var milliseconds: Double { seconds * 1000 }
}
