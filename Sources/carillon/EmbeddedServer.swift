import Carillon
import CarillonControlClient
import CarillonProtocol
import CarillonServer
import Foundation
import Logging
import ServiceLifecycle

/// A `MeetingServer` inside this process, on a free port of 127.0.0.1, with a throw-away data directory and key,
/// plus a signed REST client: what `carillon demo` and `carillon bench` run against.
final class EmbeddedServer: Sendable {
    let server: MeetingServer
    let address: ServerAddress
    let client: ControlAPIClient
    let dataDirectory: URL
    /// The key the server accepts (child processes such as `carillon join` sign with it too).
    let accessKey: AccessKey
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(server: MeetingServer, address: ServerAddress, client: ControlAPIClient, dataDirectory: URL,
                 accessKey: AccessKey, group: ServiceGroup, task: Task<Void, any Error>) {
        self.accessKey = accessKey
        self.server = server
        self.group = group
        self.address = address
        self.client = client
        self.dataDirectory = dataDirectory
        self.task = task
    }

    static func start(logLevel: Logging.Logger.Level = .warning, port: Int = 0) async throws -> EmbeddedServer {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("carillon-\(UUID().uuidString)", isDirectory: true)
        let key = AccessKey.generate()
        let logger = CommandLogging.logger(label: "carillon.embedded", level: logLevel)
        let server = try await MeetingServer(
            configuration: ServerConfiguration(dataDirectory: directory, port: port, mediaPort: 0, accessKeys: [key]),
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        let task = Task { try await group.run() }
        let address = await server.waitUntilReady()
        let client = ControlAPIClient(
            endpoint: URL(string: address.endpoint)!,
            accessKeyId: key.accessKeyId,
            secretAccessKey: key.secretAccessKey
        )
        return EmbeddedServer(server: server, address: address, client: client, dataDirectory: directory, accessKey: key,
                              group: group, task: task)
    }

    /// Runs `body` against a fresh embedded server, then shuts the server down gracefully and removes its data.
    static func with<Result>(port: Int = 0, _ body: (EmbeddedServer) async throws -> Result) async throws -> Result {
        let embedded = try await start(port: port)
        do {
            let result = try await body(embedded)
            await embedded.stop()
            return result
        } catch {
            await embedded.stop()
            throw error
        }
    }

    /// Shuts the server down gracefully (sessions are told to reconnect) and removes its data directory.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// Creates a meeting through the REST API; returns the SDK's view of the response and the meeting id.
    func createMeeting(externalId: String = "carillon-\(UUID().uuidString.prefix(8))") async throws
        -> (response: CreateMeetingResponse, meetingId: String)
    {
        try await Self.createMeeting(client: client, externalId: externalId)
    }

    /// Creates a meeting through `client`'s REST API (of this or another server).
    static func createMeeting(client: ControlAPIClient, externalId: String) async throws
        -> (response: CreateMeetingResponse, meetingId: String)
    {
        let json = try await client.send("POST", "/meetings", body: try JSONSerialization.data(withJSONObject: [
            "ClientRequestToken": UUID().uuidString, "ExternalMeetingId": externalId, "MediaRegion": "us-east-1",
        ]))
        let meetingId = try JSONDecoder().decode(ControlAPI.MeetingResponse.self, from: json).meeting?.meetingId ?? ""
        return (try JSONDecoder().decode(CreateMeetingResponse.self, from: json), meetingId)
    }

    /// Creates an attendee through the REST API and starts its SDK session.
    func join(_ meeting: (response: CreateMeetingResponse, meetingId: String), name: String,
              audio: AudioVideoConfiguration = AudioVideoConfiguration(),
              prepare: (DefaultAudioVideoFacade) throws -> Void = { _ in }) async throws -> BenchParticipant {
        try await BenchParticipant.join(client: client, meeting: meeting, name: name, audio: audio, prepare: prepare)
    }
}
