import ArgumentParser
import CarillonRTC
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
                try await port.register(driver, usernameFragment: serverICE.usernameFragment).get()
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
    /// copying, rewrite SSRC and sequence number, protect in place for the receiver.
    struct Forward: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "forward",
            abstract: "SRTP unprotect + RTP header rewrite + SRTP protect per forwarded packet (one core)."
        )
        @Option(help: "Packets to forward.") var packets = 200_000
        @Option(help: "RTP payload bytes per packet.") var payload = 1100
        @Option(help: "SRTP profile: gcm128, gcm256 or cm128.") var profile = "gcm128"
        @Flag(inversion: .prefixedNo, help: "Include SRTP (--no-srtp times the RTP header path alone).") var srtp = true

        func validate() throws {
            guard (1...10_000_000).contains(packets), (1...1400).contains(payload) else {
                throw ValidationError("--packets must be 1...10000000 and --payload 1...1400")
            }
            guard ["gcm128", "gcm256", "cm128"].contains(profile) else {
                throw ValidationError("--profile must be gcm128, gcm256 or cm128")
            }
        }

        func run() async throws {
            let chosen: SRTPProfile = switch profile {
            case "gcm256": .aeadAES256GCM
            case "cm128": .aes128CMHMACSHA1_80
            default: .aeadAES128GCM
            }
            let senderKey = [UInt8](repeating: 1, count: chosen.keyLength), senderSalt = [UInt8](repeating: 2, count: chosen.saltLength)
            let receiverKey = [UInt8](repeating: 3, count: chosen.keyLength), receiverSalt = [UInt8](repeating: 4, count: chosen.saltLength)
            let sender = try LibSRTPContext(profile: chosen, masterKey: senderKey, masterSalt: senderSalt, direction: .outbound)
            let uplink = try LibSRTPContext(profile: chosen, masterKey: senderKey, masterSalt: senderSalt, direction: .inbound)
            let downlink = try LibSRTPContext(profile: chosen, masterKey: receiverKey, masterSalt: receiverSalt,
                                              direction: .outbound)
            // What the network would deliver: protected packets in receive buffers with room for the tag (built
            // before the clock starts; only forwarding is timed).
            var buffers: [[UInt8]] = try (0..<packets).map { index in
                var bytes = RTPPacket(payloadType: 96, sequenceNumber: UInt16(truncatingIfNeeded: index),
                                      timestamp: UInt32(truncatingIfNeeded: index * 3000), ssrc: 0x1234_5678,
                                      extensions: [(1, [0x85]), (3, [0, UInt8(truncatingIfNeeded: index)])],
                                      payload: ArraySlice(repeating: 0xAB, count: payload)).serialized()
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
            let allocations = AllocationCounter.count.map { after in
                String(format: "%.2f heap allocations/packet", Double(after - (allocationsBefore ?? after)) / Double(packets))
            } ?? "allocations not counted (preload scripts/malloc-counter.c, see BENCHMARKS.md)"
            StandardOutput.line(String(format: "forward %@: %.0f ns/packet, %.0f packets/s, %@ (%d packets of %d bytes, checksum %d)",
                                       srtp ? chosen.description : "without SRTP", seconds * 1e9 / Double(packets),
                                       Double(packets) / seconds, allocations, packets, payload + 12, levels & 0xFF))
        }
    }
}
