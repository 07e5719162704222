import CarillonProtocol
import CarillonRTC
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The Carillon meeting service: the Chime SDK Meetings control API and Chime-style signaling on one TCP port.
///
/// Use it as a ServiceLifecycle `Service` (`carillon serve` runs it in a `ServiceGroup` that handles SIGINT and
/// SIGTERM), or embed it: start ``run()`` in a task, await ``waitUntilReady()`` for the bound address, cancel the task
/// or trigger graceful shutdown to stop. On shutdown every signaling socket is closed with code 4503, which Chime
/// clients treat as "reconnect", so they come back by themselves when the server is up again.
///
/// Threading: all members are safe from any thread.
public final class MeetingServer: Service, Sendable {
    /// The configuration the server was created with.
    public let configuration: ServerConfiguration
    /// Persistent meetings and attendees.
    public let store: SQLiteMeetingStore
    /// Live meetings.
    public let rooms: MeetingRooms
    private let handler: ControlAPIHandler
    private let placement: LocalMeetingPlacement
    private let tokenSecret: JoinTokenSecret
    private let logger: Logger
    private let group: any EventLoopGroup
    private let readiness = NIOLockedValueBox<ServerReadiness>(ServerReadiness())
    /// The shared media port, the DTLS certificate and the announced media address.
    public let media: MediaContext

    /// Opens (or creates) the data directory and its database; does not listen yet.
    public init(configuration: ServerConfiguration, logger: Logger, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws {
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        self.configuration = configuration
        self.logger = logger
        self.group = group
        let store = try SQLiteMeetingStore(directory: configuration.dataDirectory)
        self.store = store
        self.tokenSecret = try await Self.loadTokenSecret(store)
        // The media port is bound now, so its real port (0 picks a free one) goes into every MediaPlacement.
        let port = try await MediaPort.bind(host: configuration.host, port: configuration.mediaPort, group: group)
        let announcedPort = configuration.publicMediaPort ?? Int(port.localAddress.port)
        let candidate = try SocketAddress.makeAddressResolvingHost(configuration.advertisedHost, port: announcedPort)
        guard let candidateAddress = STUNAddress(candidate) else {
            await port.close()
            throw MeetingServerError.unusableMediaAddress(configuration.advertisedHost)
        }
        self.media = MediaContext(port: port, certificate: try DTLSCertificate.generate(commonName: "carillon"),
                                  candidateAddress: candidateAddress)
        let rooms = MeetingRooms(group: group, configuration: configuration.signaling, media: media, logger: logger)
        self.rooms = rooms
        let secret = tokenSecret
        let placement = LocalMeetingPlacement(
            host: configuration.advertisedHost,
            httpPort: configuration.port,
            mediaPort: announcedPort
        )
        self.placement = placement
        self.handler = ControlAPIHandler(
            store: store,
            placement: placement,
            accountId: configuration.accountId,
            issueJoinToken: { meetingId, attendeeId in
                JoinToken.issue(meetingId: meetingId, attendeeId: attendeeId, secret: secret)
            },
            lifecycle: LiveMeetingTerminator(rooms: rooms)
        )
    }

    /// Serves until cancelled or until graceful shutdown is triggered.
    public func run() async throws {
        let endpoint = SignalingEndpoint(
            rooms: rooms,
            authenticator: StoreSignalingAuthenticator(store: store, secret: tokenSecret),
            logger: logger
        )
        let webSocketRouter = Router(context: BasicWebSocketRequestContext.self)
        webSocketRouter.ws("control/:meetingId") { request, _ in
            // Select `_aws_wt_session`: browsers abort a handshake whose offered sub-protocols were all ignored.
            let offered = request.headers[.secWebSocketProtocol] ?? ""
            let selects = offered.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == SignalingEndpoint.subProtocol }
            return .upgrade(selects ? [.secWebSocketProtocol: SignalingEndpoint.subProtocol] : [:])
        } onUpgrade: { inbound, outbound, context in
            await endpoint.serve(
                inbound: inbound,
                outbound: outbound,
                meetingId: context.requestContext.parameters.get("meetingId") ?? "",
                offeredProtocols: context.request.headers[.secWebSocketProtocol]
            )
        }
        let responder = ControlAPIResponder(
            handler: handler,
            verifier: AccessKeyVerifier(keys: configuration.accessKeys),
            maximumBodyBytes: configuration.maximumRequestBodyBytes,
            logger: logger
        )
        let readiness = self.readiness
        let configuration = self.configuration
        let placement = self.placement
        let mediaPort = configuration.publicMediaPort ?? Int(media.port.localAddress.port)
        let app = Application(
            responder: responder,
            server: .http1WebSocketUpgrade(
                webSocketRouter: webSocketRouter,
                configuration: .init(ws: .init(maxFrameSize: SignalingEndpoint.maximumMessageSize, autoPing: .disabled))
            ),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Carillon"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                placement.setHTTPPort(port)
                let address = ServerAddress(
                    endpoint: "http://\(configuration.advertisedHost):\(port)",
                    port: port,
                    mediaPort: mediaPort
                )
                let waiters = readiness.withLockedValue { $0.ready(address) }
                for waiter in waiters { waiter.resume(returning: address) }
            },
            eventLoopGroupProvider: .shared(group),
            logger: logger
        )
        let rooms = self.rooms
        let expiry = MeetingExpiry(store: store, rooms: rooms, policy: configuration.meetingExpiry, logger: logger,
                                   started: .now())
        do {
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await app.run() }
                    tasks.addTask { await expiry.run() }
                    // The listener ends the server (shutdown or failure); expiry stops with it.
                    defer { tasks.cancelAll() }
                    try await tasks.next()
                }
            } onGracefulShutdown: {
                rooms.closeAll(code: SignalingCloseCode.shuttingDown)
            }
        } catch {
            rooms.closeAll(code: SignalingCloseCode.shuttingDown)
            await media.port.close()
            throw error
        }
        rooms.closeAll(code: SignalingCloseCode.shuttingDown)
        await media.port.close()
    }

    /// Waits until the listener is bound and returns where it can be reached.
    public func waitUntilReady() async -> ServerAddress {
        await withCheckedContinuation { continuation in
            let address = readiness.withLockedValue { state -> ServerAddress? in
                if let address = state.address { return address }
                state.waiters.append(continuation)
                return nil
            }
            if let address { continuation.resume(returning: address) }
        }
    }

    private static func loadTokenSecret(_ store: SQLiteMeetingStore) async throws -> JoinTokenSecret {
        let key = "join-token-secret"
        if let stored = try await store.setting(key), let secret = try? JoinTokenSecret(hex: stored) { return secret }
        let secret = JoinTokenSecret.generate()
        try await store.setSetting(key, value: secret.hex)
        return secret
    }
}

/// Bound address and the tasks waiting for it.
struct ServerReadiness {
    var address: ServerAddress?
    var waiters: [CheckedContinuation<ServerAddress, Never>] = []

    mutating func ready(_ address: ServerAddress) -> [CheckedContinuation<ServerAddress, Never>] {
        self.address = address
        defer { waiters = [] }
        return waiters
    }
}
