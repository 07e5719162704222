import CarillonProtocol
import CarillonRTC
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle

/// The Carillon meeting service: the Chime SDK Meetings control API and Chime-style signaling on one TCP port.
///
/// Use it as a ServiceLifecycle `Service` (`carillon serve` runs it in a `ServiceGroup` that handles SIGINT and
/// SIGTERM), or embed it: start ``run()`` in a task, await ``waitUntilReady()`` for the bound address, cancel the task
/// or trigger graceful shutdown to stop. On shutdown every signaling socket is closed with code 4503, which Chime
/// clients treat as "reconnect", so they come back by themselves when the server is up again.
///
/// With ``ServerConfiguration/tls`` the one port serves HTTPS and WSS (HTTP/1.1 over TLS; ``reloadTLS()`` re-reads
/// the certificate for new connections); without it, HTTP and WS.
///
/// Threading: all members are safe from any thread.
public final class MeetingServer: Service, Sendable {
    /// The configuration the server was created with.
    public let configuration: ServerConfiguration
    /// Persistent meetings and attendees.
    public let store: any MeetingStore
    /// The keys that may sign control-API requests: the configuration's, or on a database with
    /// ``ServerConfiguration/sharesAccessKeys`` the cluster's, kept in the database.
    public let accessKeys: [AccessKey]
    /// The PostgreSQL store when the server has one (``ServerConfiguration/database``), whose pool it stops at the end.
    private let postgres: PostgresMeetingStore?
    /// Live meetings.
    public let rooms: MeetingRooms
    private let handler: ControlAPIHandler
    private let placement: LocalMeetingPlacement
    /// This node: its identity, heartbeats (on PostgreSQL) and the single node's `GET /carillon/nodes`.
    private let node: NodeHeartbeat
    /// On PostgreSQL with a webhook, the cluster's webhook queue, which this node fills and delivers from.
    private let webhooks: ClusterWebhookQueue?
    /// On PostgreSQL, this node as a cluster member: signaling routed to the hosting node, the fence, the changes
    /// other nodes take.
    private let membership: ClusterMembership?
    /// Media capture pipelines, when the server records (`RecordingConfiguration`).
    private let capture: MediaCapturePipelines?
    /// The TLS certificate, when the server terminates TLS itself.
    private let certificate: ReloadableCertificate?
    private let tokenSecret: JoinTokenSecret
    /// Guest invites (`carillon meeting invite`, the join page), signed with the token secret.
    private let invites: GuestInvites
    private let logger: Logger
    private let group: any EventLoopGroup
    private let readiness = NIOLockedValueBox<ServerReadiness>(ServerReadiness())
    /// The shared media port, the DTLS certificate and the announced media address.
    public let media: MediaContext
    /// The server's metrics (what `/metrics` serves).
    public let metrics = ServerMetrics()

    /// Opens (or creates) the data directory and its database; does not listen yet.
    public init(configuration: ServerConfiguration, logger: Logger, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws {
        if let warning = try DataDirectory.prepare(configuration.dataDirectory) { logger.warning("\(warning)") }
        self.configuration = configuration
        self.logger = logger
        self.group = group
        let store: any MeetingStore
        if let database = configuration.database {
            let postgres = PostgresMeetingStore(configuration: try database.clientConfiguration(), logger: logger)
            postgres.start()
            do {
                let applied = try await postgres.migrate(timeout: .seconds(20))
                logger.info("database \(database)\(applied.isEmpty ? "" : ": schema versions \(applied) applied")")
            } catch {
                postgres.stop()
                throw MeetingServerError.databaseUnavailable(database: "\(database)", reason: "\(error)")
            }
            store = postgres
            self.postgres = postgres
        } else {
            store = try SQLiteMeetingStore(directory: configuration.dataDirectory)
            postgres = nil
        }
        self.store = store
        if configuration.sharesAccessKeys, let postgres {
            // Nodes starting together each offer their keys; all of them use the ones stored first.
            let offered = String(decoding: try JSONEncoder().encode(configuration.accessKeys), as: UTF8.self)
            let stored = try await postgres.setting("access-keys", orInsert: offered)
            accessKeys = try JSONDecoder().decode([AccessKey].self, from: Data(stored.utf8))
        } else {
            accessKeys = configuration.accessKeys
        }
        self.certificate = try configuration.tls.map { try ReloadableCertificate(files: $0) }
        self.tokenSecret = try await Self.loadTokenSecret(store)
        // The media port is bound now, so its real port (0 picks a free one) goes into every MediaPlacement.
        let port: MediaPort
        do {
            port = try await MediaPort.bind(host: configuration.host, port: configuration.mediaPort, group: group)
        } catch {
            throw MeetingServerError.binding(error, listener: "media (UDP)", host: configuration.host,
                                             port: configuration.mediaPort, option: "--media-port")
        }
        let announcedPort = configuration.publicMediaPort ?? Int(port.localAddress.port)
        let candidate = try SocketAddress.makeAddressResolvingHost(configuration.advertisedHost, port: announcedPort)
        guard let candidateAddress = STUNAddress(candidate) else {
            await port.close()
            throw MeetingServerError.unusableMediaAddress(configuration.advertisedHost)
        }
        self.media = MediaContext(port: port, certificate: try DTLSCertificate.generate(commonName: "carillon"),
                                  candidateAddress: candidateAddress)
        // One server keeps its webhooks in memory; a cluster's nodes queue them in the database and share delivery.
        let webhooks = postgres.flatMap { postgres in
            configuration.webhook.map { ClusterWebhookQueue(store: postgres, target: $0, logger: logger) }
        }
        self.webhooks = webhooks
        let events = configuration.webhook.map { target in
            webhooks.map { MeetingEventRouter(sink: $0, filters: false) }
                ?? MeetingEventRouter(dispatcher: WebhookDispatcher(target: target, eventLoop: group.next(), logger: logger))
        }
        if webhooks == nil { events?.subscribe(try await store.meetings()) }
        let rooms = MeetingRooms(group: group, configuration: configuration.signaling, media: media, logger: logger,
                                 events: events)
        self.rooms = rooms
        let secret = tokenSecret
        let placement = LocalMeetingPlacement(
            host: configuration.advertisedHost,
            httpPort: configuration.port,
            mediaPort: announcedPort,
            secure: configuration.tls != nil,
            publicEndpoint: configuration.publicEndpoint
        )
        self.placement = placement
        let invites = GuestInvites(secret: secret, baseURL: { placement.baseURL })
        self.invites = invites
        let node = NodeHeartbeat(nodeId: configuration.nodeId, url: configuration.nodeURL,
                                 mediaAddress: "\(configuration.advertisedHost):\(announcedPort)", rooms: rooms)
        self.node = node
        let capture = configuration.recordings.map {
            MediaCapturePipelines(configuration: $0, store: store, rooms: rooms, logger: logger)
        }
        self.capture = capture
        let terminator = LiveMeetingTerminator(rooms: rooms, logger: logger)
        let membership = postgres.map {
            ClusterMembership(store: $0, node: node, rooms: rooms, local: terminator, capture: capture, logger: logger)
        }
        self.membership = membership
        self.handler = ControlAPIHandler(
            store: store,
            placement: postgres.map { ClusterMeetingPlacement(store: $0, urls: placement) } ?? placement,
            accountId: configuration.accountId,
            issueJoinToken: { meetingId, attendeeId in
                JoinToken.issue(meetingId: meetingId, attendeeId: attendeeId, secret: secret)
            },
            lifecycle: membership ?? terminator,
            live: rooms,
            capture: Self.captureControl(capture, membership: membership),
            cluster: postgres.map { $0 as any ClusterNodeSource } ?? node,
            invites: invites
        )
    }

    /// Serves until cancelled or until graceful shutdown is triggered.
    public func run() async throws {
        let endpoint = SignalingEndpoint(
            rooms: rooms,
            authenticator: StoreSignalingAuthenticator(store: store, secret: tokenSecret),
            router: membership,
            bridge: membership.map { _ in SignalingBridge(node: node, group: group, logger: logger) },
            logger: logger
        )
        // Never past the descriptor limit: at EMFILE, NIO's accept loop retries at once and spins a core (its accept
        // backoff cannot help while the failed read stays pending), so the budget keeps accepts short of it.
        let descriptorBudget = DescriptorLimit.current().map { ConnectionLimits.connectionBudget(descriptorLimit: $0) } ?? 1 << 20
        let budget = min(configuration.connections.maximumConnections ?? descriptorBudget, descriptorBudget)
        logger.info("connections: at most \(budget) open, \(configuration.connections.preJoinPerAddress) per address before joining")
        let connections = ConnectionGuard(limits: configuration.connections, budget: budget, logger: logger)
        let webSocketRouter = Router(context: SignalingRequestContext.self)
        webSocketRouter.ws("control/:meetingId") { request, _ in
            // Select `_aws_wt_session`: browsers abort a handshake whose offered sub-protocols were all ignored.
            let offered = request.headers[.secWebSocketProtocol] ?? ""
            let selects = offered.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == SignalingEndpoint.subProtocol }
            return .upgrade(selects ? [.secWebSocketProtocol: SignalingEndpoint.subProtocol] : [:])
        } onUpgrade: { [metrics, node] inbound, outbound, context in
            metrics.sessionOpened()
            // Only a session hosted here is one of this node's attendees (a bridged one is its host's).
            let hosted = NIOLockedValueBox(false)
            defer {
                metrics.sessionClosed()
                if hosted.withLockedValue({ $0 }) { node.sessionClosed() }
            }
            let channel = context.requestContext.channel
            connections.awaitingJoin(channel)
            await endpoint.serve(
                inbound: inbound,
                outbound: outbound,
                meetingId: context.requestContext.parameters.get("meetingId") ?? "",
                offeredProtocols: context.request.headers[.secWebSocketProtocol],
                requestPath: context.request.uri.description,
                bridgedBy: context.request.headers[SignalingBridge.bridgedByHeader],
                authenticated: { hostedHere in
                    connections.joined(channel)
                    if hostedHere {
                        hosted.withLockedValue { $0 = true }
                        node.sessionOpened()
                    }
                }
            )
        }
        let responder = HTTPPortResponder(
            joinPage: JoinPageResponder(handler: handler, invites: invites, logger: logger, metrics: metrics),
            controlAPI: ControlAPIResponder(
                handler: handler,
                verifier: AccessKeyVerifier(keys: accessKeys),
                maximumBodyBytes: configuration.maximumRequestBodyBytes,
                logger: logger,
                metrics: metrics
            )
        )
        let readiness = self.readiness
        let configuration = self.configuration
        let placement = self.placement
        let mediaPort = configuration.publicMediaPort ?? Int(media.port.localAddress.port)
        let webSocketResponder = webSocketRouter.buildResponder()
        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: configuration.connections.idleTimeout),
            ws: .init(maxFrameSize: SignalingEndpoint.maximumMessageSize, autoPing: .disabled)
        )
        let tlsConfiguration = certificate?.tlsConfiguration
        let server = HTTPServerBuilder { responder in
            let guarded = GuardedChildChannel(
                base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                                   configuration: channelConfiguration),
                connections: connections, plaintext: tlsConfiguration == nil)
            guard let tlsConfiguration else { return guarded }
            return try TLSChannel(guarded, tlsConfiguration: tlsConfiguration)
        }
        let scheme = certificate == nil ? "http" : "https"
        // Once a listener has failed to bind, the others' cancellation errors are expected: the bind error says it.
        let listenerFailed = NIOLockedValueBox(false)
        var listenerLogger = logger
        listenerLogger.handler = ErrorDemotingLogHandler(base: logger.handler,
                                                         demoteErrors: { listenerFailed.withLockedValue { $0 } })
        let app = Application(
            responder: responder,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Carillon"),
            onServerRunning: { [node] channel in
                let port = channel.localAddress?.port ?? configuration.port
                placement.setHTTPPort(port)
                let waiters = readiness.withLockedValue {
                    $0.listening(endpoint: "\(scheme)://\(configuration.advertisedHost):\(port)", port: port,
                                 mediaPort: mediaPort)
                }
                // The node has its name before anyone hears it is ready (its metrics carry it from the first scrape).
                if let address = readiness.withLockedValue({ $0.address }) { node.bound(to: address) }
                for (waiter, address) in waiters { waiter.resume(returning: address) }
            },
            eventLoopGroupProvider: .shared(group),
            logger: listenerLogger
        )
        let operations = configuration.operations.map { endpoint in
            Application(
                router: OperationsRouter.make(token: endpoint.token, metrics: { [self] in await self.scrape() },
                                              ready: { [self] in await self.isReady() }),
                server: HTTPServerBuilder { responder in
                    GuardedChildChannel(
                        base: HTTP1Channel(responder: responder,
                                           configuration: .init(idleTimeout: configuration.connections.idleTimeout)),
                        connections: connections, plaintext: true)
                },
                configuration: .init(address: .hostname(endpoint.host, port: endpoint.port), serverName: "Carillon"),
                onServerRunning: { [node] channel in
                    let port = channel.localAddress?.port ?? endpoint.port
                    let host = endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host
                    let waiters = readiness.withLockedValue { $0.operationsListening("http://\(host):\(port)") }
                    if let address = readiness.withLockedValue({ $0.address }) { node.bound(to: address) }
                    for (waiter, address) in waiters { waiter.resume(returning: address) }
                },
                eventLoopGroupProvider: .shared(group),
                logger: listenerLogger
            )
        }
        if operations == nil { readiness.withLockedValue { $0.operationsExpected = false } }
        let rooms = self.rooms
        let capture = self.capture
        let membership = self.membership
        try await capture?.resume(startsRecordings: membership == nil)
        var hostedElsewhere: (@Sendable () async throws -> Set<String>)?
        if let membership { hostedElsewhere = { try await membership.meetingsHostedElsewhere() } }
        let expiry = MeetingExpiry(store: store, rooms: rooms, policy: configuration.meetingExpiry, logger: logger,
                                   started: .now(), hostedElsewhere: hostedElsewhere)
        do {
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    // A listener that fails says which one, where, and the option that sets it.
                    func listen(_ run: @escaping @Sendable () async throws -> Void, _ listener: String, host: String,
                                port: Int, option: String) {
                        tasks.addTask {
                            do { try await run() } catch {
                                listenerFailed.withLockedValue { $0 = true }
                                throw MeetingServerError.binding(error, listener: listener, host: host, port: port,
                                                                 option: option)
                            }
                        }
                    }
                    listen({ try await app.run() }, "control API and signaling (TCP)", host: configuration.host,
                           port: configuration.port, option: "--port")
                    if let operations, let endpoint = configuration.operations {
                        listen({ try await operations.run() }, "metrics and health (TCP)", host: endpoint.host,
                               port: endpoint.port, option: "--metrics-port")
                    }
                    tasks.addTask { await expiry.run() }
                    let node = self.node
                    // Like expiry, it runs until the listener ends the server.
                    let postgres = self.postgres, logger = self.logger
                    tasks.addTask {
                        // Polled, not awaited: a listener that fails to bind ends the group, and this task must
                        // end with it (``waitUntilReady()`` would wait for good).
                        while !Task.isCancelled {
                            if let address = readiness.withLockedValue({ $0.address }) {
                                node.bound(to: address)
                                break
                            }
                            try? await Task.sleep(for: .milliseconds(20))
                        }
                        await node.run(store: postgres, logger: logger, afterBeat: { await membership?.fence() })
                    }
                    if let membership { tasks.addTask { await membership.listen() } }
                    if let webhooks = self.webhooks { tasks.addTask { await webhooks.run() } }
                    // The listener ends the server (shutdown or failure); expiry stops with it.
                    defer { tasks.cancelAll() }
                    try await tasks.next()
                }
            } onGracefulShutdown: { [node, postgres] in
                // Draining: no new meetings here from now on. Its attendees are told to reconnect once the other
                // nodes can see that, so their reconnects move their meetings to a serving node.
                node.drain()
                guard let postgres, let beat = node.beat() else {
                    rooms.closeAll(code: SignalingCloseCode.shuttingDown)
                    return
                }
                Task {
                    try? await postgres.heartbeat(beat, timeout: ClusterNode.heartbeatTimeout)
                    rooms.closeAll(code: SignalingCloseCode.shuttingDown)
                }
            }
        } catch {
            await capture?.suspendAll()
            rooms.closeAll(code: SignalingCloseCode.shuttingDown)
            await media.port.close()
            postgres?.stop()
            throw error
        }
        await capture?.suspendAll()
        rooms.closeAll(code: SignalingCloseCode.shuttingDown)
        await media.port.close()
        // The last word: draining (dead once its heartbeats have been missing long enough).
        if let postgres, let beat = node.beat() { try? await postgres.heartbeat(beat, timeout: ClusterNode.heartbeatTimeout) }
        postgres?.stop()
    }

    /// Re-reads the TLS certificate and key (``ServerConfiguration/tls``) for connections made from now on; on failure
    /// keeps the current ones and throws ``MeetingServerError/unusableTLSFiles(_:)``. Does nothing without TLS.
    public func reloadTLS() throws {
        try certificate?.reload()
    }

    /// The metrics in Prometheus' text format: reads the store, the media port and every media loop (one hop each).
    /// In a cluster every sample carries the node's id as the label `node`, and `carillon_meetings` and
    /// `carillon_attendees` count the whole cluster's (they are read from the shared database).
    public func scrape() async -> String {
        let counts = try? await storeCounts()
        let port = (try? await media.port.statistics()) ?? MediaPortStatistics()
        let totals = (try? await media.counters.totals()) ?? MediaTotals()
        let text = metrics.render(ServerMetrics.Reading(
            meetings: counts?.meetings ?? 0, liveMeetings: rooms.count, attendees: counts?.attendees ?? 0,
            port: port, media: totals, kernelDrops: KernelUDPDrops.read(port: Int(media.port.localAddress.port))))
        guard postgres != nil, let nodeId = node.nodeId else { return text }
        return ServerMetrics.labelled(text, node: nodeId)
    }

    /// Ready to serve: the API listener is bound and the database answers (within 2 s).
    public func isReady() async -> Bool {
        guard readiness.withLockedValue({ $0.address != nil }) else { return false }
        return (try? await storeCounts()) != nil
    }

    /// The store's counts; on PostgreSQL given up after 2 s, so a database that is away makes a scrape or a
    /// readiness probe answer rather than wait for the pool.
    private func storeCounts() async throws -> (meetings: Int, attendees: Int) {
        guard let postgres else { return try await store.counts() }
        return try await postgres.within(.seconds(2)) { try await postgres.counts() }
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

    /// What the control API starts and stops pipelines through: in a cluster, on the meeting's hosting node.
    private static func captureControl(_ capture: MediaCapturePipelines?, membership: ClusterMembership?)
        -> (any MediaCaptureControl)? {
        guard let capture else { return nil }
        guard let membership else { return capture }
        return ClusterMediaCapture(pipelines: capture, membership: membership)
    }

    private static func loadTokenSecret(_ store: any MeetingStore) async throws -> JoinTokenSecret {
        let key = "join-token-secret"
        // Nodes of a cluster starting together each offer a secret; all of them use the one stored first.
        let stored = try await store.setting(key, orInsert: JoinTokenSecret.generate().hex)
        if let secret = try? JoinTokenSecret(hex: stored) { return secret }
        let secret = JoinTokenSecret.generate()
        try await store.setSetting(key, value: secret.hex)
        return secret
    }
}

/// Bound addresses and the tasks waiting for them: ready once the API listener and, when configured, the
/// operations listener are both bound.
struct ServerReadiness {
    /// Set once everything expected is bound.
    var address: ServerAddress?
    var waiters: [CheckedContinuation<ServerAddress, Never>] = []
    var operationsExpected = true
    private var api: ServerAddress?
    private var operationsEndpoint: String?

    mutating func listening(endpoint: String, port: Int, mediaPort: Int)
        -> [(CheckedContinuation<ServerAddress, Never>, ServerAddress)] {
        api = ServerAddress(endpoint: endpoint, port: port, mediaPort: mediaPort)
        return settle()
    }

    mutating func operationsListening(_ endpoint: String) -> [(CheckedContinuation<ServerAddress, Never>, ServerAddress)] {
        operationsEndpoint = endpoint
        return settle()
    }

    private mutating func settle() -> [(CheckedContinuation<ServerAddress, Never>, ServerAddress)] {
        guard var ready = api, !operationsExpected || operationsEndpoint != nil else { return [] }
        ready.operationsEndpoint = operationsEndpoint
        address = ready
        defer { waiters = [] }
        return waiters.map { ($0, ready) }
    }
}
