import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import CarillonRTC

/// The outbox's recycled send buffers on real UDP sockets on 127.0.0.1: bursts far larger than the ring, sent from
/// another loop than the socket's, must arrive intact (a buffer the socket still holds is never written over).
@Suite struct MediaPortOutboxTests {
    /// Collects what a socket receives.
    final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let datagrams = Mutex<[[UInt8]]>([])
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            datagrams.withLock { $0.append(Array(envelope.data.readableBytesView)) }
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
        let collector = Collector()
        let receiver = try await DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let sender = try await DatagramBootstrap(group: socketLoop).bind(host: "127.0.0.1", port: 0).get()
        let target = try #require(receiver.localAddress)
        let written = Mutex(0)
        let outbox = MediaPortOutbox(eventLoop: senderLoop, channel: sender, ringSize: 8) { count, _ in
            written.withLock { $0 += count }
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
}
