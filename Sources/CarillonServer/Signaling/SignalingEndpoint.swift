import CarillonProtocol
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

/// Serves Chime-style signaling WebSockets (`/control/<MeetingId>`): authenticates each socket, then shuttles frames
/// between it and its meeting's ``MeetingRoom``.
///
/// Threading: one task per socket reads and decodes; a second task writes what the meeting sends. The meeting's state
/// is only touched on its own event loop (see ``MeetingRoom``).
public struct SignalingEndpoint: Sendable {
    /// The sub-protocol the server selects; the join token is the other one the client offers.
    public static let subProtocol = "_aws_wt_session"
    /// Largest WebSocket message accepted from a client.
    public static let maximumMessageSize = 256 * 1024
    /// Most frames waiting for one socket's writer; a socket whose reader falls this far behind is closed with
    /// ``SignalingCloseCode/fellBehind`` (its client reconnects and starts afresh) instead of being buffered for.
    public static let maximumQueuedMessages = 256
    /// Most frames of one socket waiting on its meeting's event loop; the reader waits before reading more (see
    /// ``InboundFrameWindow``).
    public static let maximumFramesInFlight = 32
    /// How long a refused socket waits for its JOIN before it is closed (clients send JOIN at once and understand the
    /// close code only while they wait for JOIN_ACK); a socket that sends nothing holds a descriptor no longer.
    public static let refusalWait = Duration.seconds(10)

    private let rooms: MeetingRooms
    private let authenticator: any SignalingAuthenticator
    private let router: (any SignalingRouter)?
    private let bridge: SignalingBridge?
    private let connectionCounter = NIOLockedValueBox<UInt64>(0)
    private let logger: Logger

    /// Creates the endpoint over a room directory and an authenticator; in a cluster, `router` says which node hosts
    /// each meeting and `bridge` carries sockets there.
    public init(rooms: MeetingRooms, authenticator: any SignalingAuthenticator, logger: Logger) {
        self.init(rooms: rooms, authenticator: authenticator, router: nil, bridge: nil, logger: logger)
    }

    init(rooms: MeetingRooms, authenticator: any SignalingAuthenticator, router: (any SignalingRouter)?,
         bridge: SignalingBridge?, logger: Logger) {
        self.rooms = rooms
        self.authenticator = authenticator
        self.router = router
        self.bridge = bridge
        self.logger = logger
    }

    /// The join token among the offered sub-protocols: the first value that is not `_aws_wt_session`.
    public static func joinToken(fromOffered header: String?) -> String? {
        guard let header else { return nil }
        return header.split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty && $0 != subProtocol }
    }

    /// Runs one socket until it ends; calls `authenticated` once its join token is accepted (the socket is then an
    /// attendee's, no longer a stranger's: see ``ConnectionLimits``), with true when the meeting is hosted here and
    /// false when the socket is bridged to the hosting node. `requestPath` (path and query) is what a bridge asks the
    /// hosting node for; `bridgedBy` is the `X-Carillon-Bridged-By` header of a socket another node bridged here.
    public func serve(
        inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter,
        meetingId: String,
        offeredProtocols: String?,
        requestPath: String? = nil,
        bridgedBy: String? = nil,
        authenticated: @Sendable (_ hostedHere: Bool) -> Void = { _ in }
    ) async {
        let connection = SignalingConnectionID(connectionCounter.withLockedValue { value in
            value += 1
            return value
        })
        var logger = self.logger
        logger[metadataKey: "socket"] = "\(connection)"
        logger[metadataKey: "meeting"] = "\(meetingId)"

        let admitted: (identity: AttendeeIdentity, permissions: AttendeeMediaPermissions, room: MeetingRoom)?
        let refusal: (code: UInt16, reason: String)
        switch await authenticator.authenticate(meetingId: meetingId, joinToken: Self.joinToken(fromOffered: offeredProtocols)) {
        case .accepted(let identity, let permissions):
            var epoch: Int64?
            refusal = (SignalingCloseCode.meetingEnded, "meeting \(meetingId) has ended")
            switch await router?.route(meetingId: meetingId, bridgedBy: bridgedBy) ?? .local(epoch: nil) {
            case .local(let placed):
                epoch = placed
            case .bridge(let nodeId, let url):
                authenticated(false)
                logger.debug("signaling socket for attendee \(identity.attendeeId) bridged to node \(nodeId)")
                if let bridge, await bridge.run(inbound: inbound, outbound: outbound, nodeURL: url,
                                                requestPath: requestPath ?? "/control/\(meetingId)",
                                                offeredProtocols: offeredProtocols) {
                    return
                }
                await refuse(inbound: inbound, outbound: outbound, code: SignalingCloseCode.serverError,
                             reason: "the meeting's node \(nodeId) cannot be reached", logger: logger)
                return
            case .unavailable(let reason):
                await refuse(inbound: inbound, outbound: outbound, code: SignalingCloseCode.serverError, reason: reason,
                             logger: logger)
                return
            }
            // No room: the meeting ended while the token was being checked.
            admitted = rooms.room(for: meetingId, epoch: epoch).map { (identity, permissions, $0) }
        case .rejected(let code, let reason):
            admitted = nil
            refusal = (code, reason)
        }
        guard let (identity, permissions, room) = admitted else {
            await refuse(inbound: inbound, outbound: outbound, code: refusal.code, reason: refusal.reason, logger: logger)
            return
        }
        logger.debug("signaling socket opened for attendee \(identity.attendeeId)")
        authenticated(true)

        let (stream, sink) = AsyncStream.makeStream(of: SignalingOutbound.self,
                                                    bufferingPolicy: .bufferingOldest(Self.maximumQueuedMessages))
        room.attach(connection, identity: identity, permissions: permissions, sink: sink)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await item in stream {
                    switch item {
                    case .message(let buffer):
                        do { try await outbound.write(.binary(buffer)) } catch { return }
                    case .close(let code):
                        try? await outbound.close(.unknown(code), reason: nil)
                        return
                    }
                }
                // The meeting let go of the socket without a close of its own (its queue overflowed, or the socket
                // already ended, when this close does nothing).
                try? await outbound.close(.unknown(SignalingCloseCode.fellBehind), reason: "fell behind")
            }
            var window = InboundFrameWindow(capacity: Self.maximumFramesInFlight)
            do {
                for try await message in inbound.messages(maxSize: Self.maximumMessageSize) {
                    let handled: EventLoopFuture<Void>
                    switch message {
                    case .binary(let buffer):
                        do {
                            handled = room.receive(try SignalFrameCodec.decode(buffer.readableBytesView), from: connection)
                        } catch {
                            handled = room.receiveMalformed(from: connection, reason: "\(error)")
                        }
                    case .text:
                        handled = room.receiveMalformed(from: connection, reason: "text messages are not part of the protocol")
                    }
                    if let oldest = window.add(handled) { try? await oldest.get() }
                }
            } catch {
                logger.debug("signaling socket failed: \(error)")
            }
            room.detach(connection)
            await group.waitForAll()
        }
        logger.debug("signaling socket closed")
    }

    /// Turns a socket away with `code`. Chime clients understand close codes only once they wait for JOIN_ACK, so the
    /// JOIN is let in first, but never waited for longer than a client would wait for its JOIN_ACK.
    private func refuse(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, code: UInt16,
                        reason: String, logger: Logger) async {
        logger.info("signaling refused: \(reason)")
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var messages = inbound.messages(maxSize: Self.maximumMessageSize).makeAsyncIterator()
                _ = try? await messages.next()
            }
            group.addTask { try? await Task.sleep(for: Self.refusalWait) }
            await group.next()
            group.cancelAll()
        }
        try? await outbound.close(.unknown(code), reason: reason)
    }
}
