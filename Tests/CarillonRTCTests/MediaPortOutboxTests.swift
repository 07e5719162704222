import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import CarillonRTC

/// The outbox on real UDP sockets on 127.0.0.1: bursts far larger than the ring, sent from another loop than the
/// socket's, arrive intact (a buffer the socket still holds is never written over); an outbox writes through its send
/// channel, and once that closes through the socket's channel.
@Suite struct MediaPortOutboxTests {
    /// Collects what a socket receives.
    final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let datagrams = Mutex<[[UInt8]]>([])
        let sources = Mutex<[SocketAddress]>([])
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            datagrams.withLock { $0.append(Array(envelope.data.readableBytesView)) }
            sources.withLock { $0.append(envelope.remoteAddress) }
        }
    }

    /// Datagram `index`: its number in the first two bytes, then a pattern that depends on it, of varying length.
    static func datagram(_ index: Int) -> [UInt8] {
        let length = 60 + (index * 37) % 900
        return [UInt8(index >> 8), UInt8(truncatingIfNeeded: index)]
            + (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index &* 7) }
    }

    @Test func burstsLargerThanTheRingArriveIntactFromAnotherLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let socketLoop = group.next(), senderLoop = group.next()
        #expect(socketLoop !== senderLoop)
        let (receiver, collector) = try await self.receiver(on: group)
        let sender = try await DatagramBootstrap(group: socketLoop).bind(host: "127.0.0.1", port: 0).get()
        let target = try #require(receiver.localAddress)
        let written = Mutex(0)
        let outbox = MediaPortOutbox(eventLoop: senderLoop, socketChannel: sender, ringSize: 8) { batch in
            written.withLock { $0 += batch.datagrams }
        }
        let bursts = 12, perBurst = 50
        for burst in 0..<bursts {
            // One turn of the sender's loop: 50 datagrams through a ring of 8.
            try await senderLoop.submit {
                for index in burst * perBurst..<(burst + 1) * perBurst { outbox.send(Self.datagram(index), to: target) }
            }.get()
            let expected = (burst + 1) * perBurst
            let clock = ContinuousClock(), end = clock.now + .seconds(10)
            while collector.datagrams.withLock({ $0.count }) < expected, clock.now < end {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        let received = collector.datagrams.withLock { $0 }
        #expect(written.withLock { $0 } == bursts * perBurst)
        #expect(received.count == bursts * perBurst)
        let indices = received.map { Int($0[0]) << 8 | Int($0[1]) }
        #expect(Set(indices).count == received.count)
        for (index, datagram) in zip(indices, received) where datagram != Self.datagram(index) {
            Issue.record("datagram \(index) arrived changed (\(datagram.count) bytes)")
        }
        try await sender.close()
        try await receiver.close()
        try await group.shutdownGracefully()
    }

    /// A receiver's socket and the datagrams it has read.
    func receiver(on group: any EventLoopGroup) async throws -> (any Channel, Collector) {
        let collector = Collector()
        let channel = try await DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return (channel, collector)
    }

    func waitFor(_ count: Int, in collector: Collector) async throws {
        let clock = ContinuousClock(), end = clock.now + .seconds(10)
        while collector.datagrams.withLock({ $0.count }) < count, clock.now < end {
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Datagrams leave through the outbox's send channel (on a third loop, as a port gives each loop the next loop's)
    /// while it is open, from its address; once it closes (as NIO closes a datagram channel on a write error it cannot
    /// recover from) the outbox writes through the socket's channel: nothing after the failure is lost.
    @Test func anOutboxWhoseSendChannelClosedGoesOnThroughTheSocketsChannel() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        let socketLoop = group.next(), senderLoop = group.next(), writerLoop = group.next()
        let (receiving, seen) = try await receiver(on: group)
        let socket = try await DatagramBootstrap(group: socketLoop).bind(host: "127.0.0.1", port: 0).get()
        let own = try await DatagramBootstrap(group: writerLoop).bind(host: "127.0.0.1", port: 0).get()
        let outbox = MediaPortOutbox(eventLoop: senderLoop, socketChannel: socket, sendChannel: own) { _ in }
        own.closeFuture.whenComplete { _ in outbox.sendChannelClosed() }
        let target = try #require(receiving.localAddress)
        try await senderLoop.submit {
            for index in 0..<4 { outbox.send(Self.datagram(index), to: target) }
        }.get()
        try await waitFor(4, in: seen)
        let ownAddress = try #require(own.localAddress)
        #expect(seen.sources.withLock { Set($0) } == [ownAddress])
        #expect(try await senderLoop.submit { outbox.writer === own }.get())
        try await own.close()
        // The closing is told on the writer's loop and reaches the outbox's with a hop.
        let clock = ContinuousClock(), end = clock.now + .seconds(10)
        while try await senderLoop.submit({ outbox.writer !== socket }).get(), clock.now < end {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await senderLoop.submit {
            #expect(outbox.writer === socket)
            for _ in 0..<3 { outbox.send(Self.datagram(100), to: target) }
        }.get()
        try await waitFor(7, in: seen)
        let received = seen.datagrams.withLock { $0 }
        #expect(received == (0..<4).map(Self.datagram) + Array(repeating: Self.datagram(100), count: 3))
        // The later datagrams came from the socket's port, not the closed channel's.
        #expect(seen.sources.withLock { Set($0.dropFirst(4)) } == [try #require(socket.localAddress)])
        for channel in [socket, receiving] { try await channel.close() }
        try await group.shutdownGracefully()
    }
}
