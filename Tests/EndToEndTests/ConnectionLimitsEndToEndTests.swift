import CarillonProtocol
import CarillonServer
import Foundation
import NIOCore
import Testing

/// Strangers' TCP connections against a real server: silent and slow ones are closed, one address cannot hold more
/// than its share of pre-join connections, and a full connection budget sheds the oldest silent connections, never
/// an attendee, while API calls keep being answered.
@Suite(.timeLimit(.minutes(2)))
struct ConnectionLimitsEndToEndTests {
    /// A connection that sends nothing, or only part of a request head, is closed after the head timeout; one that
    /// sent a whole request is not.
    @Test func silentAndSlowConnectionsAreClosedAfterTheHeadTimeout() async throws {
        let harness = try await ServerHarness.start(connections: ConnectionLimits(requestHeadTimeout: .milliseconds(300)))
        defer { Task { await harness.stop() } }
        let port = harness.address.port
        let silent = try await SilentConnection.open(to: "127.0.0.1", port: port)
        let slow = try await SilentConnection.open(to: "127.0.0.1", port: port)
        try await slow.send("GET /meetings HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        let served = try await SilentConnection.open(to: "127.0.0.1", port: port)
        try await served.send("GET /meetings HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(await silent.waitUntilClosed(timeout: .seconds(10)))
        #expect(await slow.waitUntilClosed(timeout: .seconds(10)))
        #expect(served.isOpen, "a connection that sent its request is left to the idle timeout (60 s)")
        await served.close()
    }

    /// An address at its pre-join cap has further connections closed at once; other addresses, API calls and
    /// joins are served, and the address gets its places back as its connections close.
    @Test func anAddressAtItsPreJoinCapIsRefusedWhileOthersAreServed() async throws {
        let harness = try await ServerHarness.start(
            connections: ConnectionLimits(preJoinPerAddress: 4, requestHeadTimeout: .seconds(60)))
        defer { Task { await harness.stop() } }
        let port = harness.address.port
        // Which of five is refused depends on the order the server's loops register them in: exactly one is.
        var opened: [SilentConnection] = []
        for _ in 0..<5 { opened.append(try await SilentConnection.open(to: "127.0.0.1", port: port, from: "127.0.0.2")) }
        let deadline = ContinuousClock.now + .seconds(10)
        while opened.allSatisfy({ $0.isOpen }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let held = opened.filter { $0.isOpen }
        #expect(held.count == 4)
        let meetingId = try await harness.createMeetingId()
        let alice = try await harness.rawJoin(meetingId: meetingId, name: "alice")
        #expect(held.allSatisfy { $0.isOpen })
        await held[0].close()
        // The server sees the close on its own loop; the place comes back once it has.
        var admitted: SilentConnection?
        for _ in 0..<50 where admitted == nil {
            let next = try await SilentConnection.open(to: "127.0.0.1", port: port, from: "127.0.0.2")
            if await next.waitUntilClosed(timeout: .milliseconds(200)) { continue }
            admitted = next
        }
        #expect(admitted != nil)
        try await alice.send(RawSignalingSocket.frame(.pingPong) { $0.pingPong.type = .ping; $0.pingPong.pingID = 3 })
        #expect(try await alice.next(.pingPong)?.pingPong.pingID == 3)
    }

    /// With the connection budget full of silent connections, the oldest make way for new ones: the API answers,
    /// an attendee joins, and the attendee already in the meeting is never closed.
    @Test func aFullBudgetShedsTheOldestSilentConnectionsNeverAnAttendee() async throws {
        let harness = try await ServerHarness.start(
            connections: ConnectionLimits(requestHeadTimeout: .seconds(60), maximumConnections: 8))
        defer { Task { await harness.stop() } }
        let port = harness.address.port
        let meetingId = try await harness.createMeetingId()
        let alice = try await harness.rawJoin(meetingId: meetingId, name: "alice")
        var silent: [SilentConnection] = []
        for _ in 0..<12 { silent.append(try await SilentConnection.open(to: "127.0.0.1", port: port, from: "127.0.0.3")) }
        // The server registers connections on two loops, so "oldest" is the order it registered them in: the early
        // ones go first, not necessarily the very first.
        let deadline = ContinuousClock.now + .seconds(10)
        while silent.prefix(6).filter({ !$0.isOpen }).count < 3, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(silent.prefix(6).filter { !$0.isOpen }.count >= 3)
        let bob = try await harness.rawJoin(meetingId: meetingId, name: "bob")
        #expect(silent.filter { $0.isOpen }.count <= 8 - 2, "alice's and bob's sockets are settled; silent ones fill the rest at most")
        #expect(silent.suffix(3).contains { $0.isOpen })
        for (socket, id) in [(alice, UInt32(1)), (bob, 2)] {
            try await socket.send(RawSignalingSocket.frame(.pingPong) { $0.pingPong.type = .ping; $0.pingPong.pingID = id })
            #expect(try await socket.next(.pingPong)?.pingPong.pingID == id)
        }
    }
}
