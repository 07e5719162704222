import Foundation
import Logging

/// Everything `carillon serve` needs to run a meeting service.
public struct ServerConfiguration: Sendable {
    /// Directory holding the SQLite database, the access keys and the server secret.
    public var dataDirectory: URL
    /// Address the HTTP and WebSocket listener binds to.
    public var host: String
    /// TCP port of the control API and signaling; 0 picks a free port.
    public var port: Int
    /// UDP port announced for media in `MediaPlacement.AudioHostUrl`.
    public var mediaPort: Int
    /// Host name clients use to reach this server, written into MediaPlacement URLs. Defaults to `host`, or
    /// 127.0.0.1 when `host` is a wildcard address.
    public var publicHost: String?
    /// UDP port clients send media to, when it differs from the bound one: a port forward or NAT in front of the
    /// server. Written into ICE candidates and MediaPlacement URLs; nil announces the bound port.
    public var publicMediaPort: Int?
    /// Keys allowed to sign control-API requests.
    public var accessKeys: [AccessKey]
    /// Whether a node on a ``database`` takes the cluster's keys from it (storing ``accessKeys`` there when it is the
    /// first): true for keys from the data directory's file, false for keys the operator gave in the environment.
    public var sharesAccessKeys: Bool
    /// Account id used in meeting ARNs.
    public var accountId: String
    /// Tunables of the meetings' signaling.
    public var signaling: MeetingSignalingCore.Configuration
    /// Largest control-API request body accepted.
    public var maximumRequestBodyBytes: Int
    /// When meetings end by themselves (idle for 5 minutes, or 24 hours old, by default).
    public var meetingExpiry: MeetingExpiryPolicy
    /// Serve HTTPS and WSS with this certificate; nil serves HTTP and WS (e.g. behind a TLS-terminating proxy).
    public var tls: ServerTLS?
    /// The base URL clients reach the control API and signaling at, when a reverse proxy stands in front of the
    /// server (e.g. `https://meet.example.com`): MediaPlacement URLs are built from it (`https` gives `wss`
    /// signaling). Nil builds them from ``advertisedHost``, the bound port and the scheme ``tls`` implies.
    public var publicEndpoint: String?
    /// Where `/metrics` and `/health` are served; nil serves neither.
    public var operations: OperationsEndpoint?
    /// Where the lifecycle events of meetings created with a `NotificationsConfiguration` go; nil sends none.
    public var webhook: WebhookTarget?
    /// This node's name in a cluster (`--node-id`); nil: `<host name>:<HTTP port>`.
    public var nodeId: String?
    /// How other nodes reach this node's HTTP port (`--node-url`); nil: the listener's own URL.
    public var nodeURL: String?
    /// The PostgreSQL a cluster's nodes share (`carillon serve --database`); nil keeps meetings in SQLite in
    /// ``dataDirectory``.
    public var database: PostgresConnectionURL?
    /// Where media capture pipelines write their files; nil: the server records nothing and refuses
    /// CreateMediaCapturePipeline.
    public var recordings: RecordingConfiguration?
    /// Bounds on TCP connections that have not joined (per address, head timeout, total budget) and on idle ones.
    public var connections: ConnectionLimits

    /// Creates a configuration; unset values take the defaults documented on each property.
    public init(
        dataDirectory: URL,
        host: String = "127.0.0.1",
        port: Int = 8080,
        mediaPort: Int = 3478,
        publicHost: String? = nil,
        publicMediaPort: Int? = nil,
        accessKeys: [AccessKey],
        sharesAccessKeys: Bool = false,
        accountId: String = "000000000000",
        signaling: MeetingSignalingCore.Configuration = .init(),
        maximumRequestBodyBytes: Int = 1 << 20,
        meetingExpiry: MeetingExpiryPolicy = .init(),
        tls: ServerTLS? = nil,
        publicEndpoint: String? = nil,
        operations: OperationsEndpoint? = nil,
        webhook: WebhookTarget? = nil,
        recordings: RecordingConfiguration? = nil,
        database: PostgresConnectionURL? = nil,
        nodeId: String? = nil,
        nodeURL: String? = nil,
        connections: ConnectionLimits = .init()
    ) {
        self.nodeId = nodeId
        self.nodeURL = nodeURL
        self.database = database
        self.recordings = recordings
        self.connections = connections
        self.webhook = webhook
        self.operations = operations
        self.tls = tls
        self.publicEndpoint = publicEndpoint
        self.dataDirectory = dataDirectory
        self.host = host
        self.port = port
        self.mediaPort = mediaPort
        self.publicHost = publicHost
        self.publicMediaPort = publicMediaPort
        self.accessKeys = accessKeys
        self.sharesAccessKeys = sharesAccessKeys
        self.accountId = accountId
        self.signaling = signaling
        self.maximumRequestBodyBytes = maximumRequestBodyBytes
        self.meetingExpiry = meetingExpiry
    }

    /// The host written into URLs handed to clients.
    public var advertisedHost: String {
        if let publicHost, !publicHost.isEmpty { return publicHost }
        return ["0.0.0.0", "::", "[::]", ""].contains(host) ? "127.0.0.1" : host
    }
}
