import ArgumentParser
import CarillonRTC
import CarillonServer
import Foundation
import NIOCore
import NIOPosix
import Synchronization

extension BenchCommand {
    /// Time from the client's first STUN check to DTLS connected, over the shared server port on 127.0.0.1.
    struct Handshake: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "handshake",
            abstract: "First STUN check to DTLS connected (both sides) on loopback, through the shared media port."
        )
        @Option(help: "Connections to set up, one after another.") var connections = 100

        func validate() throws {
            guard (1...10_000).contains(connections) else { throw ValidationError("--connections must be 1...10000") }
        }

        func run() async throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
            let port = try await MediaPort.bind(host: "127.0.0.1", port: 0, group: group)
            let serverCertificate = try DTLSCertificate.generate(commonName: "server")
            let clientCertificate = try DTLSCertificate.generate(commonName: "client")
            var durations: [Duration] = []
            for _ in 0..<connections {
                let clientICE = ICECredentials.random(), serverICE = ICECredentials.random()
                let server = try PeerConnection(configuration: PeerConnectionConfiguration(
                    iceRole: .lite, localICE: serverICE, remoteICE: clientICE, dtlsRole: .server,
                    certificate: serverCertificate, remoteFingerprint: clientCertificate.fingerprint))
                let loop = group.next()
                let driver = port.makeDriver(for: server, on: loop)
                try await port.register(driver, credentials: serverICE).get()
                let serverUp = AsyncStream.makeStream(of: Void.self)
                try await loop.submit {
                    driver.start { if case .connected = $0 { serverUp.continuation.yield() } }
                }.get()
                let socket = try await PeerConnectionSocket.bind(host: "127.0.0.1", group: group)
                let client = try PeerConnection(configuration: PeerConnectionConfiguration(
                    iceRole: .controlling(remoteCandidates: [port.localAddress]), localICE: clientICE,
                    remoteICE: serverICE, dtlsRole: .client, certificate: clientCertificate,
                    remoteFingerprint: serverCertificate.fingerprint))
                let clientUp = AsyncStream.makeStream(of: Void.self)
                let start = ContinuousClock.now
                socket.attach(client) { if case .connected = $0 { clientUp.continuation.yield() } }
                var clientIterator = clientUp.stream.makeAsyncIterator()
                var serverIterator = serverUp.stream.makeAsyncIterator()
                _ = await clientIterator.next()
                _ = await serverIterator.next()
                durations.append(start.duration(to: .now))
                await socket.close()
                try await port.unregister(driver).get()
                try await loop.submit { driver.stop() }.get()
            }
            await port.close()
            try await group.shutdownGracefully()
            StandardOutput.line("STUN to DTLS connected over \(connections) connections: \(Percentiles(durations).summary)")
        }
    }

    /// Per-packet cost of forwarding SRTP: unprotect in place, read the header and the audio level without
    /// copying, rewrite SSRC and sequence number, protect in place for the receiver. With `--peer-connection`, the
    /// same packets go through a connected ``PeerConnection`` instead: `receive` (unprotect, parse, event) and
    /// `sendRTP` (protect), each timed and counted on its own.
    struct Forward: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "forward",
            abstract: "SRTP unprotect + RTP header rewrite + SRTP protect per forwarded packet (one core)."
        )
        @Option(help: "Packets to forward.") var packets = 200_000
        @Option(help: "RTP payload bytes per packet.") var payload = 1100
        @Option(help: "SRTP profile: gcm128, gcm256 or cm128.") var profile = "gcm128"
        @Option(help: "SRTP implementation: openssl (the product's) or libsrtp (the test oracle).") var implementation = "openssl"
        @Flag(inversion: .prefixedNo, help: "Include SRTP (--no-srtp times the RTP header path alone).") var srtp = true
        @Flag(help: "Time PeerConnection.receive and sendRTP on an in-process connected pair (always OpenSSL).")
        var peerConnection = false
        @Option(help: "Time the server's video forwarding path instead: one VP8 publisher's packets forwarded to N receivers (rewrite, send history, pacer, SRTP protect with --profile, the copy into the socket's buffer ring; --no-srtp: the core alone).")
        var videoReceivers: Int?

        func validate() throws {
            guard (1...10_000_000).contains(packets), (1...1400).contains(payload) else {
                throw ValidationError("--packets must be 1...10000000 and --payload 1...1400")
            }
            guard ["gcm128", "gcm256", "cm128"].contains(profile) else {
                throw ValidationError("--profile must be gcm128, gcm256 or cm128")
            }
            guard ["openssl", "libsrtp"].contains(implementation) else {
                throw ValidationError("--implementation must be openssl or libsrtp")
            }
            if let videoReceivers, !(1...1_000).contains(videoReceivers) {
                throw ValidationError("--video-receivers must be 1...1000")
            }
        }

        func run() async throws {
            let chosen: SRTPProfile = switch profile {
            case "gcm256": .aeadAES256GCM
            case "cm128": .aes128CMHMACSHA1_80
            default: .aeadAES128GCM
            }
            if peerConnection {
                try throughPeerConnection(chosen)
                return
            }
            if let videoReceivers {
                try forwardVideo(to: videoReceivers, profile: srtp ? chosen : nil)
                return
            }
            func context(_ key: [UInt8], _ salt: [UInt8], _ direction: LibSRTPContext.Direction) throws -> any SRTPContext {
                implementation == "libsrtp"
                    ? try LibSRTPContext(profile: chosen, masterKey: key, masterSalt: salt, direction: direction)
                    : try OpenSSLSRTPContext(profile: chosen, masterKey: key, masterSalt: salt)
            }
            let senderKey = [UInt8](repeating: 1, count: chosen.keyLength), senderSalt = [UInt8](repeating: 2, count: chosen.saltLength)
            let receiverKey = [UInt8](repeating: 3, count: chosen.keyLength), receiverSalt = [UInt8](repeating: 4, count: chosen.saltLength)
            let sender = try context(senderKey, senderSalt, .outbound)
            let uplink = try context(senderKey, senderSalt, .inbound)
            let downlink = try context(receiverKey, receiverSalt, .outbound)
            // What the network would deliver: protected packets in receive buffers with room for the tag (built
            // before the clock starts; only forwarding is timed).
            var buffers: [[UInt8]] = try (0..<packets).map { index in
                var bytes = Self.packet(index, payload: payload)
                bytes.reserveCapacity(1500)
                try sender.protectRTP(&bytes)
                return bytes
            }
            var levels = 0
            if !srtp {
                // Start from plain packets: only the header work is timed.
                for index in buffers.indices { try uplink.unprotectRTP(&buffers[index]) }
            }
            let allocationsBefore = AllocationCounter.count
            let start = ContinuousClock.now
            for index in buffers.indices {
                if srtp { try uplink.unprotectRTP(&buffers[index]) }
                var header = try RTPHeader(reading: buffers[index])
                if let level = header.extensionRange(id: 1, in: buffers[index]) { levels &+= Int(buffers[index][level.lowerBound]) }
                header.ssrc = 0x0BAD_F00D
                header.sequenceNumber &+= 1000
                header.write(into: &buffers[index])
                if srtp { try downlink.protectRTP(&buffers[index]) }
            }
            let seconds = start.duration(to: .now).seconds
            let what = srtp ? "\(chosen.description) (\(implementation == "libsrtp" ? "LibSRTPContext" : "OpenSSLSRTPContext"))"
                : "without SRTP"
            StandardOutput.line(String(format: "forward %@: %.0f ns/packet, %.0f packets/s, %@ (%d packets of %d bytes, checksum %d)",
                                       what, seconds * 1e9 / Double(packets), Double(packets) / seconds,
                                       Self.allocations(since: allocationsBefore, packets: packets), packets,
                                       payload + 12, levels & 0xFF))
        }

        /// The RTP packet of the benchmark: audio level and one more one-byte extension, then the payload.
        static func packet(_ index: Int, payload: Int, ssrc: UInt32 = 0x1234_5678) -> [UInt8] {
            RTPPacket(payloadType: 96, sequenceNumber: UInt16(truncatingIfNeeded: index),
                      timestamp: UInt32(truncatingIfNeeded: index * 3000), ssrc: ssrc,
                      extensions: [(1, [0x85]), (3, [0, UInt8(truncatingIfNeeded: index)])],
                      payload: ArraySlice(repeating: 0xAB, count: payload)).serialized()
        }

        static func allocations(since before: UInt?, packets: Int) -> String {
            guard let before, let after = AllocationCounter.count else {
                return "allocations not counted (preload scripts/malloc-counter.c, see BENCHMARKS.md)"
            }
            return String(format: "%.2f heap allocations/packet", Double(after - before) / Double(packets))
        }

        /// The server's forwarding path: each publisher packet through `MeetingMediaCore.receive` with a reused
        /// output buffer and, with a profile, each receiver's packet protected and copied to the socket's ring, its
        /// array back in the core's pool; timed and counted on its own; the core's timers run between packets,
        /// untimed.
        private func forwardVideo(to receivers: Int, profile: SRTPProfile?) throws {
            let benchmark = try VideoForwardingBenchmark(receivers: receivers, packetCount: packets, payloadSize: payload,
                                                         profile: profile)
            var forwarded = 0, allocations: UInt = 0
            var elapsed = Duration.zero
            for index in benchmark.packets.indices {
                let before = AllocationCounter.count
                let start = ContinuousClock.now
                forwarded += benchmark.forward(index)
                elapsed += start.duration(to: .now)
                if let before, let after = AllocationCounter.count { allocations += after - before }
                _ = benchmark.runTimers()
            }
            let counted = AllocationCounter.count == nil
                ? "allocations not counted (preload scripts/malloc-counter.c, see BENCHMARKS.md)"
                : String(format: "%.2f heap allocations per publisher packet, %.3f per forwarded packet",
                         Double(allocations) / Double(packets), Double(allocations) / Double(max(1, forwarded)))
            let misses = benchmark.poolMisses
            StandardOutput.line(String(format: "forward video to %d receivers, %@: %.0f ns per publisher packet, %.0f ns per forwarded packet, %@ (%d packets of %d payload bytes, %d forwarded; datagram pool: %d allocated, %d let go)",
                                       receivers, profile.map { "\($0) and the socket ring" } ?? "core only, no SRTP",
                                       elapsed.seconds * 1e9 / Double(packets),
                                       elapsed.seconds * 1e9 / Double(max(1, forwarded)), counted, packets, payload,
                                       forwarded, misses.freshAllocations, misses.released))
        }

        /// The packets through a connected pair: the client protects them (untimed); the server's `receive` is
        /// timed with the output reused (as `PeerConnectionDriver` does) and returned (the plain call), then its
        /// `sendRTP` with each packet handed over with capacity for the tag.
        private func throughPeerConnection(_ profile: SRTPProfile) throws {
            let pair = try ConnectedPeerPair(profile: profile)
            let (server, now) = (pair.server, pair.now)
            func report(_ what: String, _ start: ContinuousClock.Instant, _ allocationsBefore: UInt?, _ bytes: Int) {
                let seconds = start.duration(to: .now).seconds
                StandardOutput.line(String(format: "%@, %@: %.0f ns/packet, %@ (%d packets, %d bytes)", what,
                                           profile.description, seconds * 1e9 / Double(packets),
                                           Self.allocations(since: allocationsBefore, packets: packets), packets, bytes))
            }
            // Consecutive sequence numbers across both receive runs, so that the second is not taken for replays.
            func datagrams(from first: Int) -> [[UInt8]] {
                (first..<(first + packets)).compactMap { index in
                    var packet = Self.packet(index, payload: payload)
                    packet.reserveCapacity(1500)
                    return pair.client.sendRTP(packet)?.datagram
                }
            }
            var received = datagrams(from: 0)
            guard received.count == packets else { throw ValidationError("the client did not protect every packet") }
            var output = PeerConnectionOutput()
            var bytes = 0
            var allocationsBefore = AllocationCounter.count
            var start = ContinuousClock.now
            for index in received.indices {
                // Moved out of the array, so the connection holds the only reference and decrypts in place.
                var datagram: [UInt8] = []
                swap(&datagram, &received[index])
                server.receive(consume datagram, from: pair.clientAddress, now: now, into: &output)
                if case .rtp(let packet) = output.events.first { bytes &+= packet.payload.count }
                output.events.removeAll(keepingCapacity: true)
            }
            report("PeerConnection.receive(_:from:now:into:) with a reused output", start, allocationsBefore, bytes)

            received = datagrams(from: packets)
            bytes = 0
            allocationsBefore = AllocationCounter.count
            start = ContinuousClock.now
            for index in received.indices {
                var datagram: [UInt8] = []
                swap(&datagram, &received[index])
                if case .rtp(let packet) = server.receive(consume datagram, from: pair.clientAddress, now: now).events.first {
                    bytes &+= packet.payload.count
                }
            }
            report("PeerConnection.receive(_:from:now:) returning its output", start, allocationsBefore, bytes)

            var plain: [[UInt8]] = (0..<packets).map { index in
                var packet = Self.packet(index, payload: payload, ssrc: 0x0BAD_F00D)
                packet.reserveCapacity(1500)
                return packet
            }
            bytes = 0
            allocationsBefore = AllocationCounter.count
            start = ContinuousClock.now
            for index in plain.indices {
                var packet: [UInt8] = []
                swap(&packet, &plain[index])
                if let (datagram, _) = server.sendRTP(consume packet) { bytes &+= datagram.count }
            }
            report("PeerConnection.sendRTP, packet handed over with room for the tag", start, allocationsBefore, bytes)
            guard server.statistics.rtpPacketsReceived == 2 * packets, server.statistics.rtpPacketsSent == packets else {
                throw ValidationError("the server dropped packets: \(server.statistics)")
            }
        }
    }
}
