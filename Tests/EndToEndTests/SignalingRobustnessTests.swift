import CarillonProtocol
import CarillonServer
import Foundation
import Testing

/// Raw sockets against a real server: what a misbehaving or vanishing client gets, and that others keep being served.
@Suite(.timeLimit(.minutes(2)))
struct SignalingRobustnessTests {
    @Test func aSocketThatVanishesWithoutLeaveIsReportedDropped() async throws {
        var signaling = MeetingSignalingCore.Configuration()
        signaling.dropGrace = .milliseconds(300)
        let harness = try await ServerHarness.start(signaling: signaling)
        defer { Task { await harness.stop() } }
        let meetingId = try await harness.createMeetingId()
        let alice = try await harness.rawJoin(meetingId: meetingId, name: "alice")
        let bob = try await harness.rawJoin(meetingId: meetingId, name: "bob")
        var bobStream: UInt32?
        while bobStream == nil, let roster = try await alice.next(.audioStreamIDInfo) {
            bobStream = roster.audioStreamIDInfo.streams.first { $0.externalUserID == "bob" }?.audioStreamID
        }
        await bob.vanish()
        let drop = try await alice.next(.audioStreamIDInfo)
        let entry = try #require(drop?.audioStreamIDInfo.streams.first)
        #expect(entry.audioStreamID == (try #require(bobStream)))
        #expect(entry.dropped)
        #expect(!entry.hasAttendeeID)
    }

    @Test func malformedInputGetsAnErrorFrameAndServiceContinues() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meetingId = try await harness.createMeetingId()
        let alice = try await harness.rawJoin(meetingId: meetingId, name: "alice")
        for garbage in [[0x05, 0xFF, 0xFF, 0xFF], [0x07, 0x08, 0x01], [0x05], Array(repeating: 0x05, count: 300)] as [[UInt8]] {
            try await alice.send(garbage)
            let answer = try await alice.next(.notification)
            #expect(answer?.error.status == 400)
        }
        // A frame missing its required ping id is rejected the same way.
        var ping = RawSignalingSocket.frame(.pingPong) { $0.pingPong.type = .ping }
        ping.pingPong.clearPingID()
        try await alice.send([0x05] + (try ping.serializedBytes(partial: true)))
        #expect(try await alice.next(.notification)?.error.status == 400)
        // The socket still works, and so does everybody else.
        try await alice.send(RawSignalingSocket.frame(.pingPong) { $0.pingPong.type = .ping; $0.pingPong.pingID = 9 })
        #expect(try await alice.next(.pingPong)?.pingPong.pingID == 9)
        _ = try await harness.rawJoin(meetingId: meetingId, name: "bob")
    }

    @Test func badTokensAreClosedWithTheDocumentedCodes() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meetingId = try await harness.createMeetingId()
        let real = try await harness.joinToken(meetingId: meetingId, name: "alice")
        var tampered = Array(real)
        tampered[10] = tampered[10] == "a" ? "b" : "a"
        let cases: [(meetingId: String, token: String?, code: UInt16)] = [
            (meetingId, nil, 4401),
            (meetingId, String(tampered), 4401),
            (meetingId, String(repeating: "Z", count: 96), 4401),
            (UUID().uuidString.lowercased(), real, 4410),
        ]
        for (meetingId, token, code) in cases {
            let socket = try await RawSignalingSocket.connect(
                host: "127.0.0.1", port: harness.address.port, meetingId: meetingId, token: token
            )
            try await socket.send(RawSignalingSocket.joinFrame(session: 1))
            #expect(try await socket.closeCode() == code)
        }
        // The real token still works afterwards.
        let socket = try await RawSignalingSocket.connect(
            host: "127.0.0.1", port: harness.address.port, meetingId: meetingId, token: real
        )
        try await socket.send(RawSignalingSocket.joinFrame(session: 1))
        #expect(try await socket.next(.joinAck) != nil)
    }
}
