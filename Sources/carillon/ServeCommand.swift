import ArgumentParser
import CarillonServer
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// `carillon serve`: runs the meeting service until SIGINT or SIGTERM.
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

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

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
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
    }

    func run() async throws {
        let logger = CommandLogging.logger(label: "carillon.serve", level: Logger.Level(rawValue: logLevel) ?? .info)
        let directory = URL(fileURLWithPath: dataDir, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (keys, origin) = try AccessKeyFile.load(dataDirectory: directory)
        switch origin {
        case .environment:
            StandardOutput.line("access keys: from CARILLON_ACCESS_KEY_ID / CARILLON_SECRET_ACCESS_KEY")
        case .file(let path):
            StandardOutput.line("access keys: \(path) (access key id \(keys[0].accessKeyId))")
        case .generated(let path):
            StandardOutput.line("generated access keys, saved to \(path):")
            StandardOutput.line("  CARILLON_ACCESS_KEY_ID=\(keys[0].accessKeyId)")
            StandardOutput.line("  CARILLON_SECRET_ACCESS_KEY=\(keys[0].secretAccessKey)")
        }
        let server = try await MeetingServer(
            configuration: ServerConfiguration(
                dataDirectory: directory,
                host: host,
                port: port,
                mediaPort: mediaPort,
                publicHost: publicHost,
                publicMediaPort: publicMediaPort,
                accessKeys: keys,
                meetingExpiry: MeetingExpiryPolicy(idleTimeout: .nanoseconds(Int64(meetingIdleTimeout * 1e9)),
                                                   maximumDuration: .nanoseconds(Int64(meetingMaxDuration * 1e9)))
            ),
            logger: logger
        )
        let group = ServiceGroup(
            configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        let announcement = Task {
            let address = await server.waitUntilReady()
            StandardOutput.line("carillon ready endpoint=\(address.endpoint) media=\(server.configuration.advertisedHost):\(address.mediaPort)")
        }
        defer { announcement.cancel() }
        try await group.run()
        StandardOutput.line("carillon stopped")
    }
}
