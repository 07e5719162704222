import CarillonProtocol
import Foundation
import Testing

extension RawSignalingSocket {
    /// A signaling frame of `type`, stamped now, filled in by `build`.
    static func frame(_ type: SdkSignalFrame.TypeEnum, _ build: (inout SdkSignalFrame) -> Void = { _ in }) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.timestampMs = UInt64(Date().timeIntervalSince1970 * 1000)
        frame.type = type
        build(&frame)
        return frame
    }

    /// A JOIN as the Chime clients send it, for audio session `session`.
    static func joinFrame(session: UInt64) -> SdkSignalFrame {
        frame(.join) { $0.join.protocolVersion = 2; $0.join.audioSessionID = session; $0.join.flags = 2 }
    }
}

extension ServerHarness {
    /// Creates an attendee and joins it over a raw socket; returns the socket once JOIN_ACK arrived.
    func rawJoin(meetingId: String, name: String) async throws -> RawSignalingSocket {
        let token = try await joinToken(meetingId: meetingId, name: name)
        let socket = try await RawSignalingSocket.connect(
            host: "127.0.0.1", port: address.port, meetingId: meetingId, token: token
        )
        try await socket.send(RawSignalingSocket.joinFrame(session: UInt64.random(in: 1...UInt64(UInt32.max))))
        let ack = try await socket.next(.joinAck)
        #expect(ack?.joinack.hasDefaultServerSideNetworkAdaption == true)
        return socket
    }
}
