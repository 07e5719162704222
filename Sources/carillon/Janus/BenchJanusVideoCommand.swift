import ArgumentParser
import CarillonRTC
import Foundation
import NIOCore
import NIOPosix

extension BenchCommand {
    /// The same video meeting (N publishers at 360p, M subscribers receiving every one) against Janus's VideoRoom and
    /// against `carillon serve`'s SFU, both run inside a private network namespace this command creates: server CPU
    /// per forwarded stream, frames per second per stream, the load generator's CPU.
    struct JanusVideo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "janus-video",
            abstract: "Side by side with Janus VideoRoom: server CPU per forwarded 360p stream and delivery (needs root: creates a network namespace)."
        )
        @Option(help: "Meetings as SENDERSxRECEIVERS, comma-separated.") var meetings = "4x4,10x10"
        @Option(help: "Seconds to measure per meeting and server, after every stream arrived.") var seconds = 10
        @Option(help: "Servers to measure, comma-separated: janus, carillon.") var servers = "janus,carillon"
        @Option(help: "Target bitrate of the Janus publishers' pre-encoded loop, kbit/s.") var kilobits = 600
        @Option(help: "Janus general.event_loops (the tuned configuration); without it Janus runs its defaults (one thread per handle).")
        var eventLoops: Int?
        @Option(help: "Identical meetings run at once, each SENDERSxRECEIVERS (the server's CPU per forwarded stream counts them all).")
        var parallel = 1
        @Option(name: .customLong("server-cpus"), help: "Pin the server to these CPUs (a taskset list: 0, or 0,1).")
        var serverCPUs: String?
        @Option(help: .hidden) var insideNamespace: String?

        /// The bots of one measured meeting: every subscriber receives every publisher.
        typealias MeetingPeers = (publishers: [any VideoBenchPeer], subscribers: [any VideoBenchPeer])

        func validate() throws {
            guard let meetings = Self.meetings(meetings),
                  meetings.allSatisfy({ (1...25).contains($0.senders) && (1...50).contains($0.receivers) }) else {
                throw ValidationError("--meetings must be comma-separated SENDERSxRECEIVERS with 1...25 senders and 1...50 receivers")
            }
            guard (1...600).contains(seconds) else { throw ValidationError("--seconds must be 1...600") }
            guard (100...5_000).contains(kilobits) else { throw ValidationError("--kilobits must be 100...5000") }
            guard Set(servers.split(separator: ",").map(String.init)).isSubset(of: ["janus", "carillon"]) else {
                throw ValidationError("--servers must name janus and/or carillon")
            }
            if let eventLoops, !(1...64).contains(eventLoops) { throw ValidationError("--event-loops must be 1...64") }
            guard (1...8).contains(parallel) else { throw ValidationError("--parallel must be 1...8") }
            if let serverCPUs, serverCPUs.isEmpty || !serverCPUs.allSatisfy({ $0.isNumber || $0 == "," || $0 == "-" }) {
                throw ValidationError("--server-cpus must be a CPU list such as 0 or 0,1")
            }
        }

        /// Parses `4x4,10x10`.
        static func meetings(_ text: String) -> [(senders: Int, receivers: Int)]? {
            let parsed = text.split(separator: ",").map { item -> (senders: Int, receivers: Int)? in
                let parts = item.trimmingCharacters(in: .whitespaces).lowercased().split(separator: "x")
                guard parts.count == 2, let senders = Int(parts[0]), let receivers = Int(parts[1]) else { return nil }
                return (senders, receivers)
            }
            guard !parsed.isEmpty, parsed.allSatisfy({ $0 != nil }) else { return nil }
            return parsed.compactMap { $0 }
        }

        func run() async throws {
            guard insideNamespace != nil else {
                try await NamespacedRun.run(arguments: Array(CommandLine.arguments.dropFirst()))
                return
            }
            let video = try PreEncodedVP8(bitrate: kilobits * 1_000)
            StandardOutput.line("Janus publishers' loop: \(video.frames.count) frames of \(video.width)x\(video.height) at \(video.frameRate) fps, \(video.bitrate / 1_000) kbit/s, one key frame per loop")
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
            do {
                try await measureAll(video: video, group: group)
                try? await group.shutdownGracefully()
            } catch {
                try? await group.shutdownGracefully()
                throw error
            }
        }

        private func measureAll(video: PreEncodedVP8, group: MultiThreadedEventLoopGroup) async throws {
            let chosen = servers.split(separator: ",").map(String.init)
            var rows: [(String, VideoLoadResult?, VideoLoadResult?)] = []
            var failures: [String] = []
            func attempt(_ server: String, _ label: String, _ measure: () async throws -> VideoLoadResult) async -> VideoLoadResult? {
                guard chosen.contains(server) else { return nil }
                do {
                    let result = try await measure()
                    StandardOutput.line(result.line(server: server))
                    if let split = result.kernelLine(server: server) { StandardOutput.line(split) }
                    return result
                } catch {
                    StandardOutput.line("\(server) \(label): failed: \(error)")
                    failures.append("\(server) at \(label) (\(error))")
                    return nil
                }
            }
            for meeting in Self.meetings(meetings) ?? [] {
                let label = (parallel > 1 ? "\(parallel) × " : "") + "\(meeting.senders) × \(meeting.receivers)"
                let janus = await attempt("janus", label) {
                    try await measureJanus(senders: meeting.senders, receivers: meeting.receivers, video: video, group: group)
                }
                let carillon = await attempt("carillon", label) {
                    try await measureCarillon(senders: meeting.senders, receivers: meeting.receivers, video: video, group: group)
                }
                rows.append((label, janus, carillon))
            }
            StandardOutput.line(VideoLoadResult.table(rows, seconds: seconds, eventLoops: eventLoops))
            if !failures.isEmpty { StandardOutput.line("failed, not in the table: " + failures.joined(separator: "; ")) }
        }

        private func measureJanus(senders: Int, receivers: Int, video: PreEncodedVP8,
                                  group: MultiThreadedEventLoopGroup) async throws -> VideoLoadResult {
            let server = try await JanusServer.start(address: BenchNamespace.serverAddress, interface: BenchNamespace.serverInterface,
                                                     eventLoops: eventLoops)
            defer { server.stop() }
            try ServerPinning.pin(pid: server.pid, cpus: serverCPUs)
            let session = try await JanusSession.create(endpoint: server.endpoint)
            var bots: [WebRTCVideoBot] = []
            do {
                var groups: [MeetingPeers] = []
                for copy in 0..<parallel {
                    let room = UInt64(2000 + copy * 10_000 + senders * 100 + receivers)
                    let admin = try await session.attach(plugin: JanusAPI.videoRoom)
                    _ = try await session.message(handle: admin, body: JanusAPI.createVideoRoom(room, publishers: senders))
                    var publishers: [WebRTCVideoBot] = []
                    var feeds: [UInt64] = []
                    for index in 0..<senders {
                        let (bot, feed) = try await JanusVideoJoin.publish(session: session, room: room,
                                                                           name: "sender-\(copy)-\(index)", on: group.next())
                        bots.append(bot)
                        try await bot.waitUntilConnected()
                        bot.startSending(video, payloadType: VideoSessionDescription.offeredPayloadType,
                                         phase: .milliseconds(Int64(index * 66 / senders)))
                        publishers.append(bot)
                        feeds.append(feed)
                    }
                    var subscribers: [WebRTCVideoBot] = []
                    for _ in 0..<receivers {
                        let bot = try await JanusVideoJoin.subscribe(session: session, room: room, feeds: feeds, on: group.next())
                        bots.append(bot)
                        try await bot.waitUntilConnected()
                        subscribers.append(bot)
                    }
                    groups.append((publishers, subscribers))
                }
                let result = try await Self.measure(meetings: groups, serverPID: server.pid, seconds: seconds)
                for bot in bots { await bot.close() }
                await session.close()
                return result
            } catch {
                for bot in bots { await bot.close() }
                await session.close()
                throw error
            }
        }

        /// The same media in a Carillon meeting, sent and received by the product's client sessions (``ChimeBot``):
        /// publishers send their camera (no simulcast), subscribers receive every camera; every bot's audio is muted.
        private func measureCarillon(senders: Int, receivers: Int, video: PreEncodedVP8,
                                     group: MultiThreadedEventLoopGroup) async throws -> VideoLoadResult {
            let child = try ChildServer.start(extraArguments: ["--host", BenchNamespace.serverAddress])
            defer { child.stop() }
            try ServerPinning.pin(pid: child.pid, cpus: serverCPUs)
            let audio = try PreEncodedOpus(frequency: 440)
            var bots: [ChimeBot] = []
            do {
                var groups: [MeetingPeers] = []
                for copy in 0..<parallel {
                    let meeting = try await EmbeddedServer.createMeeting(client: child.client,
                                                                         externalId: "bench-janus-video-\(copy)")
                    var publishers: [ChimeBot] = []
                    var subscribers: [ChimeBot] = []
                    for index in 0..<senders {
                        let bot = try await ChimeBot.join(client: child.client, meeting: meeting, name: "sender-\(index)",
                                                          role: .init(sendsVideoKbps: UInt32(kilobits)), audio: audio,
                                                          on: group.next())
                        bots.append(bot)
                        publishers.append(bot)
                        try await bot.waitUntilStarted()
                        bot.startSendingVideo(video, phase: .milliseconds(Int64(index * 66 / senders)))
                    }
                    for index in 0..<receivers {
                        let bot = try await ChimeBot.join(client: child.client, meeting: meeting, name: "receiver-\(index)",
                                                          role: .init(receivesVideo: true), audio: audio, on: group.next())
                        bots.append(bot)
                        subscribers.append(bot)
                        try await bot.waitUntilStarted()
                    }
                    groups.append((publishers, subscribers))
                }
                let result = try await Self.measure(meetings: groups, serverPID: child.pid, seconds: seconds)
                for bot in bots { await bot.leave() }
                return result
            } catch {
                for bot in bots { await bot.leave(timeout: .seconds(1)) }
                throw error
            }
        }

        /// Waits until every subscriber receives frames of every publisher of its meeting, 2 s more, then measures for
        /// `seconds`: the server's and this process's CPU, frames and packets per forwarded stream against what the
        /// publishers sent (all send the same loop at the same rate, so each stream is held to the publishers' mean).
        /// The meetings are all the same size.
        static func measure(meetings: [MeetingPeers],
                            serverPID: Int32, seconds: Int) async throws -> VideoLoadResult {
            let senders = meetings.first?.publishers.count ?? 0
            let publishers = meetings.flatMap(\.publishers)
            let subscribers = meetings.flatMap(\.subscribers)
            func received() async -> [[Int: ReceivedVideoCounts]] {
                var all: [[Int: ReceivedVideoCounts]] = []
                for subscriber in subscribers { all.append(await subscriber.receivedStreams()) }
                return all
            }
            func packetsSent() async -> Int {
                var total = 0
                for publisher in publishers { total += await publisher.sentCounts().packets }
                return total
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while await received().contains(where: { $0.values.filter { $0.frames > 0 }.count < senders }) {
                guard ContinuousClock.now < deadline else {
                    throw BenchTimeout(what: "every subscriber to receive every publisher (streams per subscriber: \(await received().map(\.count)))")
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            try await Task.sleep(for: .seconds(2))
            let before = await received()
            let sentBefore = await packetsSent()
            let wallStart = ContinuousClock.now
            let serverStart = ProcessCPUTime.split(pid: serverPID)
            let selfStart = ProcessCPUTime.seconds() ?? 0
            try await Task.sleep(for: .seconds(seconds))
            let wall = wallStart.duration(to: .now).seconds
            let serverEnd = ProcessCPUTime.split(pid: serverPID)
            let server = ((serverEnd.map { $0.user + $0.system } ?? 0) - (serverStart.map { $0.user + $0.system } ?? 0)) / wall
            let kernel = serverStart.flatMap { start in serverEnd.map { ($0.system - start.system) / wall } }
            let load = ((ProcessCPUTime.seconds() ?? 0) - selfStart) / wall
            let after = await received()
            let sentPerStream = Double(await packetsSent() - sentBefore) / Double(max(1, publishers.count))

            var rates: [Double] = []
            var deliveries: [Double] = []
            var kilobits: [Double] = []
            for (first, last) in zip(before, after) {
                for (stream, counts) in last {
                    let start = first[stream] ?? ReceivedVideoCounts()
                    rates.append(Double(counts.frames - start.frames) / wall)
                    deliveries.append(min(1, Double(counts.packets - start.packets) / max(1, sentPerStream)))
                    kilobits.append(Double(counts.bytes - start.bytes) * 8 / wall / 1_000)
                }
                // A stream a subscriber never got counts as nothing delivered.
                let missing = max(0, senders - last.count)
                rates += Array(repeating: 0, count: missing)
                deliveries += Array(repeating: 0, count: missing)
            }
            return VideoLoadResult(senders: senders, receivers: meetings.first?.subscribers.count ?? 0, meetings: meetings.count,
                                   serverCPU: server, serverKernelCPU: kernel, loadCPU: load,
                                   frameRates: rates.sorted(),
                                   kilobitsPerStream: kilobits.isEmpty ? 0 : kilobits.reduce(0, +) / Double(kilobits.count),
                                   packetDeliveries: deliveries.sorted())
        }
    }
}

/// The VideoRoom flows of one bot: a publisher's `join` then `publish` with its offer, a subscriber's `join` to feeds
/// then `start` with its answer to Janus's offer.
enum JanusVideoJoin {
    /// Publishes into `room` as `name`; returns the bot (connection started, not yet connected) and its feed id.
    static func publish(session: JanusSession, room: UInt64, name: String,
                        on loop: any EventLoop) async throws -> (WebRTCVideoBot, UInt64) {
        let bot = try await WebRTCVideoBot(host: BenchNamespace.botAddress, on: loop)
        let handle = try await session.attach(plugin: JanusAPI.videoRoom)
        _ = try await session.message(handle: handle, body: JanusAPI.joinVideoPublisher(room, display: name))
        let joined = try await session.event(handle: handle) { $0.pluginEvent == "joined" }
        guard let feed = joined.pluginID else { throw JanusReplyError(description: "the joined event has no publisher id: \(joined)") }
        _ = try await session.message(handle: handle, body: JanusAPI.publishVideo(), offer: bot.publisherOffer())
        let answer = try await session.event(handle: handle) { $0.sdpType == "answer" && $0.sdp != nil }
        try bot.connect(answer: answer.sdp ?? "")
        return (bot, feed)
    }

    /// Subscribes to `feeds` in `room`; returns the bot once its answer went out (not yet connected).
    static func subscribe(session: JanusSession, room: UInt64, feeds: [UInt64], on loop: any EventLoop) async throws -> WebRTCVideoBot {
        let bot = try await WebRTCVideoBot(host: BenchNamespace.botAddress, on: loop)
        let handle = try await session.attach(plugin: JanusAPI.videoRoom)
        _ = try await session.message(handle: handle, body: JanusAPI.joinVideoSubscriber(room, feeds: feeds))
        let attached = try await session.event(handle: handle) { $0.pluginEvent == "attached" && $0.sdpType == "offer" }
        let answer = try bot.answer(offer: attached.sdp ?? "")
        _ = try await session.message(handle: handle, body: JanusAPI.startSubscription(), answer: answer)
        return bot
    }
}
