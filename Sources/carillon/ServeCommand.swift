import ArgumentParser
import CarillonServer
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// `carillon serve`: runs the meeting service until SIGINT or SIGTERM; SIGHUP re-reads the TLS certificate.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the meeting service: control API, signaling and media."
    )

    @Option(help: "Directory for the database, access keys and server secret.")
    var dataDir: String = "./carillon-data"

    @Option(help: "Address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "TCP port of the control API and signaling (0 picks a free port).")
    var port: Int = 8080

    @Option(help: "UDP port for media.")
    var mediaPort: Int = 3478

    @Option(help: "Host name clients use to reach this server (default: --host, or 127.0.0.1 for a wildcard host).")
    var publicHost: String?

    @Option(help: "UDP port clients send media to, when a port forward or NAT maps it to --media-port (default: the bound port).")
    var publicMediaPort: Int?

    @Option(help: "Seconds a meeting lives without any attendee's audio connection before it ends.")
    var meetingIdleTimeout: Double = 300

    @Option(help: "Seconds a meeting lives at most, from its creation.")
    var meetingMaxDuration: Double = 86_400

    @Option(help: "PEM certificate chain (leaf first): serve HTTPS and WSS instead of HTTP and WS. Re-read on SIGHUP.")
    var tlsCert: String?

    @Option(help: "PEM private key of --tls-cert. Re-read on SIGHUP.")
    var tlsKey: String?

    @Option(help: "Base URL clients reach this server at through a reverse proxy, e.g. https://meet.example.com (written into MediaPlacement URLs; https gives wss signaling).")
    var publicEndpoint: String?

    @Option(help: "Address of the /metrics and /health listener (a non-loopback address needs --metrics-token).")
    var metricsHost: String = "127.0.0.1"

    // Unconditional: `--metrics-port -1`, as the README writes it, is a value, not an unknown option.
    @Option(parsing: .unconditional, help: "TCP port of /metrics and /health (0 picks a free port, -1 serves neither).")
    var metricsPort: Int = 9464

    @Option(help: "Bearer token /metrics and /health require (default: $CARILLON_METRICS_TOKEN, else none).")
    var metricsToken: String?

    @Option(help: "URL that receives the lifecycle events of meetings created with a NotificationsConfiguration, as signed JSON POSTs.")
    var webhookUrl: String?

    @Option(help: "Secret the webhook signatures are made with (default: $CARILLON_WEBHOOK_SECRET).")
    var webhookSecret: String?

    @Flag(help: "On first run, also print the generated secret access key (for scripts); by default only the file that holds it is named.")
    var printSecret = false

    @Option(help: "PostgreSQL the server keeps meetings in, shared by a cluster's nodes: postgresql://USER[:PASSWORD]@HOST[:PORT]/DB (password also from $PGPASSWORD; ?sslmode=disable|prefer|require, ?host=/socket/dir). Without it: SQLite in --data-dir.")
    var database: String?

    @Option(help: "This node's name in a cluster (default: <host name>:<HTTP port>).")
    var nodeId: String?

    @Option(help: "How the cluster's other nodes reach this node's HTTP port (default: the listener's URL).")
    var nodeUrl: String?

    @Option(help: "Directory media capture pipelines write their files under (<dir>/<bucket>/<prefix>/<MediaPipelineId>/); without it CreateMediaCapturePipeline is refused.")
    var recordingsDir: String?

    @Option(help: "Seconds each recorded file runs before the next starts (Chime's chunk length); 0 keeps each stream in one file.")
    var recordingChunkSeconds: Int = RecordingConfiguration.defaultChunkSeconds

    @Option(help: "Media capture pipelines recording at once; more are refused with ResourceLimitExceededException.")
    var maxActivePipelines: Int = 100

    @Option(help: "Connections from one IP address that may be open at once before their first request, or before their join token is checked; more are closed at accept.")
    var maxPreJoinPerAddress: Int = 64

    @Option(help: "TCP connections open at once; at the limit the oldest connection that has not joined or sent a request is closed for a new one (default and upper bound: the open-file limit less an eighth, at least 64, kept for everything else).")
    var maxConnections: Int?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @Option(help: "Log line format: text (readable) or json (one object per line: time, level, logger, message, metadata).")
    var logFormat: CommandLogging.Format = .text

    @Flag(inversion: .prefixedNo, help: "Server-side video adaptation (mode 4) for clients that ask for it: per receiver the server picks each remote video's layer, pauses and resumes them by priority, and probes for bandwidth. --no-server-side-adaptation answers JOIN with client-side adaptation instead.")
    var serverSideAdaptation = true

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard (0...65535).contains(mediaPort) else { throw ValidationError("--media-port must be 0...65535 (0 picks a free port)") }
        if let publicMediaPort, !(1...65535).contains(publicMediaPort) {
            throw ValidationError("--public-media-port must be 1...65535")
        }
        guard meetingIdleTimeout > 0, meetingIdleTimeout.isFinite, meetingIdleTimeout <= 1e9 else {
            throw ValidationError("--meeting-idle-timeout must be a positive number of seconds")
        }
        guard meetingMaxDuration > 0, meetingMaxDuration.isFinite, meetingMaxDuration <= 1e9 else {
            throw ValidationError("--meeting-max-duration must be a positive number of seconds")
        }
        if let database {
            do { _ = try PostgresConnectionURL(database) } catch { throw ValidationError("\(error)") }
        }
        if let nodeId, !(1...64).contains(nodeId.count) || nodeId.contains(where: { $0.isWhitespace }) {
            throw ValidationError("--node-id must be 1-64 characters without spaces")
        }
        if let nodeUrl {
            guard let url = URL(string: nodeUrl), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("--node-url must be an http:// or https:// URL")
            }
        }
        guard (0...3_600).contains(recordingChunkSeconds) else {
            throw ValidationError("--recording-chunk-seconds must be 0...3600 (0: one file per stream)")
        }
        guard maxActivePipelines > 0 else { throw ValidationError("--max-active-pipelines must be at least 1") }
        guard maxPreJoinPerAddress > 0 else { throw ValidationError("--max-pre-join-per-address must be at least 1") }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be at least 1") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        if let webhookUrl {
            guard let url = URL(string: webhookUrl), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("--webhook-url must be an http:// or https:// URL")
            }
            guard resolvedWebhookSecret != nil else {
                throw ValidationError("--webhook-url needs --webhook-secret (or CARILLON_WEBHOOK_SECRET)")
            }
        }
        guard (-1...65535).contains(metricsPort) else { throw ValidationError("--metrics-port must be -1...65535") }
        if metricsPort >= 0, resolvedMetricsToken == nil, !["127.0.0.1", "::1", "localhost"].contains(metricsHost) {
            throw ValidationError("--metrics-host \(metricsHost) is not loopback: set --metrics-token (or CARILLON_METRICS_TOKEN) too")
        }
        if let publicEndpoint {
            guard let url = URL(string: publicEndpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil,
                  url.query == nil
            else { throw ValidationError("--public-endpoint must be an http:// or https:// base URL") }
        }
    }

    private var resolvedWebhookSecret: String? {
        webhookSecret ?? ProcessInfo.processInfo.environment["CARILLON_WEBHOOK_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    private var resolvedMetricsToken: String? {
        metricsToken ?? ProcessInfo.processInfo.environment["CARILLON_METRICS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func run() async throws {
        let logger = CommandLogging.logger(label: "carillon.serve", level: Logger.Level(rawValue: logLevel) ?? .info,
                                            format: logFormat)
        if let limit = DescriptorLimit.raise() {
            logger.info("open-file limit \(limit.soft) (hard limit \(limit.hard))")
        }
        let directory = URL(fileURLWithPath: dataDir, isDirectory: true)
        _ = try DataDirectory.prepare(directory)
        let (keys, origin) = try AccessKeyFile.load(dataDirectory: directory)
        switch origin {
        case .environment:
            StandardOutput.line("access keys: from CARILLON_ACCESS_KEY_ID / CARILLON_SECRET_ACCESS_KEY")
        case .file(let path):
            StandardOutput.line("access keys: \(path) (access key id \(keys[0].accessKeyId))")
        case .generated(let path):
            // The secret stays in the file (0600): a terminal's scrollback or a collected log is no place for it.
            StandardOutput.line("generated access keys (access key id \(keys[0].accessKeyId)), saved to \(path); "
                + "`carillon meeting` and `carillon join` read them with --data-dir \(dataDir)")
            if printSecret {
                StandardOutput.line("  CARILLON_ACCESS_KEY_ID=\(keys[0].accessKeyId)")
                StandardOutput.line("  CARILLON_SECRET_ACCESS_KEY=\(keys[0].secretAccessKey)")
            }
        }
        var signaling = MeetingSignalingCore.Configuration()
        signaling.serverSideAdaptation = serverSideAdaptation
        let server = try await MeetingServer(
            configuration: ServerConfiguration(
                dataDirectory: directory,
                host: host,
                port: port,
                mediaPort: mediaPort,
                publicHost: publicHost,
                publicMediaPort: publicMediaPort,
                accessKeys: keys,
                sharesAccessKeys: origin != .environment,
                signaling: signaling,
                meetingExpiry: MeetingExpiryPolicy(idleTimeout: .nanoseconds(Int64(meetingIdleTimeout * 1e9)),
                                                   maximumDuration: .nanoseconds(Int64(meetingMaxDuration * 1e9))),
                tls: tlsCert.flatMap { cert in tlsKey.map { ServerTLS(certificateChainPath: cert, privateKeyPath: $0) } },
                publicEndpoint: publicEndpoint,
                operations: metricsPort < 0 ? nil
                    : OperationsEndpoint(host: metricsHost, port: metricsPort, token: resolvedMetricsToken),
                webhook: webhookUrl.flatMap { url in resolvedWebhookSecret.map { WebhookTarget(url: url, secret: $0) } },
                recordings: recordingsDir.map {
                    RecordingConfiguration(directory: URL(fileURLWithPath: $0, isDirectory: true),
                                           chunkSeconds: recordingChunkSeconds == 0 ? nil : recordingChunkSeconds,
                                           activePipelineLimit: maxActivePipelines)
                },
                database: try database.map { try PostgresConnectionURL($0) },
                nodeId: nodeId,
                nodeURL: nodeUrl,
                connections: ConnectionLimits(preJoinPerAddress: maxPreJoinPerAddress, maximumConnections: maxConnections)
            ),
            logger: logger
        )
        if server.accessKeys != keys {
            // A cluster's node: its keys are the ones the first node kept in the database.
            let id = server.accessKeys.first?.accessKeyId ?? "none"
            if case .generated = origin {
                let path = try AccessKeyFile.save(server.accessKeys, dataDirectory: directory)
                StandardOutput.line("access keys: the cluster's (access key id \(id)), kept in the database; saved to \(path)")
            } else if case .file(let path) = origin {
                StandardOutput.line("access keys: the cluster's (access key id \(id)), kept in the database; \(path) "
                    + "holds others, which this node does not accept")
            }
        }
        let group = ServiceGroup(
            configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        let announcement = Task {
            let address = await server.waitUntilReady()
            let operations = address.operationsEndpoint.map { " operations=\($0)" } ?? ""
            StandardOutput.line("carillon ready endpoint=\(address.endpoint) media=\(server.configuration.advertisedHost):\(address.mediaPort)\(operations)")
        }
        defer { announcement.cancel() }
        let hangUps = await UnixSignalsSequence(trapping: .sighup)
        let reloader = Task {
            for await _ in hangUps {
                do {
                    try server.reloadTLS()
                    StandardOutput.line("tls certificate reloaded")
                } catch {
                    logger.error("kept the previous TLS certificate: \(error)")
                }
            }
        }
        defer { reloader.cancel() }
        try await group.run()
        StandardOutput.line("carillon stopped")
    }
}
