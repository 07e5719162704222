import CarillonProtocol
import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing

@testable import CarillonServer

/// The shell of one meeting's signaling on a real event loop.
@Suite struct MeetingRoomTests {
    func frame(_ type: SdkSignalFrame.TypeEnum, _ build: (inout SdkSignalFrame) -> Void = { _ in }) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.type = type
        build(&frame)
        return frame
    }

    /// A socket that stops reading is not buffered for without end: once its queue is full the meeting lets it go
    /// (the endpoint then closes it with 4508) and the others carry on; what it had queued stays bounded.
    @Test func aReaderThatFallsBehindItsQueueIsLetGo() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = MeetingSignalingCore.Configuration()
        configuration.idleTimeout = .hours(1)
        let room = MeetingRoom(meetingId: "m", eventLoop: group.next(), configuration: configuration,
                               logger: Logger(label: "test"))
        let slow = AsyncStream.makeStream(of: SignalingOutbound.self, bufferingPolicy: .bufferingOldest(8))
        let fast = AsyncStream.makeStream(of: SignalingOutbound.self, bufferingPolicy: .unbounded)
        let (a, b) = (SignalingConnectionID(1), SignalingConnectionID(2))
        room.attach(a, identity: AttendeeIdentity(attendeeId: "a", externalUserId: "alice"), sink: slow.continuation)
        room.attach(b, identity: AttendeeIdentity(attendeeId: "b", externalUserId: "bob"), sink: fast.continuation)
        for connection in [a, b] { room.receive(frame(.join) { $0.join.protocolVersion = 2 }, from: connection) }
        // Bob sends 30 data messages; Alice reads nothing.
        for index in 0..<30 {
            room.receive(frame(.dataMessage) {
                var payload = SdkDataMessagePayload()
                payload.topic = "chat"
                payload.data = Data("message \(index)".utf8)
                $0.dataMessage.messages = [payload]
            }, from: b)
        }
        // Everything sent is handled (the room's loop runs its work in order), then Alice's queue is read: it ended
        // after what fitted, and nothing waits for her beyond it.
        try await room.eventLoop.submit {}.get()
        let queued = await withTaskGroup(of: Int?.self) { tasks in
            tasks.addTask {
                var count = 0
                for await _ in slow.stream { count += 1 }
                return count
            }
            // A room that buffers without end never lets the stream end.
            tasks.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = await tasks.next() ?? nil
            tasks.cancelAll()
            return first
        }
        #expect(queued == 8)
        // Bob is still served: a ping is answered.
        room.receive(frame(.pingPong) { $0.pingPong.type = .ping; $0.pingPong.pingID = 7 }, from: b)
        var answered = false
        for await item in fast.stream {
            guard case .message(let buffer) = item, let decoded = try? SignalFrameCodec.decode(buffer.readableBytesView)
            else { continue }
            if decoded.type == .pingPong, decoded.pingPong.pingID == 7 {
                answered = true
                break
            }
        }
        #expect(answered)
        room.closeAll(code: SignalingCloseCode.normal)
        try await group.shutdownGracefully()
    }
}
