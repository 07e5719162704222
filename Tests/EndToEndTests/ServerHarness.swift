import Carillon
import CarillonControlClient
import CarillonProtocol
import CarillonServer
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// A real `MeetingServer` on 127.0.0.1 (port 0 unless told otherwise) with a signed REST client, for end-to-end tests.
final class ServerHarness: Sendable {
    let server: MeetingServer
    let address: ServerAddress
    let client: ControlAPIClient
    let dataDirectory: URL
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    static let key = AccessKey(accessKeyId: "AKIAENDTOEND00000001", secretAccessKey: "end-to-end-secret-0123456789")

    private init(server: MeetingServer, address: ServerAddress, dataDirectory: URL, group: ServiceGroup,
                 task: Task<Void, any Error>, trustedCertificateFiles: [String]) {
        self.server = server
        self.group = group
        self.address = address
        self.dataDirectory = dataDirectory
        self.task = task
        self.client = ControlAPIClient(
            endpoint: URL(string: address.endpoint)!,
            accessKeyId: Self.key.accessKeyId,
            secretAccessKey: Self.key.secretAccessKey,
            trustedCertificateFiles: trustedCertificateFiles
        )
    }

    /// Starts a server; reuse `dataDirectory` and `port` to restart one.
    static func start(
        dataDirectory: URL? = nil,
        port: Int = 0,
        publicMediaPort: Int? = nil,
        signaling: MeetingSignalingCore.Configuration = .init(),
        meetingExpiry: MeetingExpiryPolicy = .init(),
        tls: ServerTLS? = nil,
        trustedCertificateFiles: [String] = [],
        operations: OperationsEndpoint? = nil,
        webhook: WebhookTarget? = nil,
        connections: ConnectionLimits = .init()
    ) async throws -> ServerHarness {
        let directory = dataDirectory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("carillon-e2e-\(UUID().uuidString)", isDirectory: true)
        var logger = Logger(label: "e2e.server")
        logger.logLevel = ProcessInfo.processInfo.environment["CARILLON_E2E_SERVER_LOG"] == nil ? .warning : .debug
        let server = try await MeetingServer(
            configuration: ServerConfiguration(
                dataDirectory: directory,
                port: port,
                mediaPort: 0,
                publicMediaPort: publicMediaPort,
                accessKeys: [key],
                signaling: signaling,
                meetingExpiry: meetingExpiry,
                tls: tls,
                operations: operations,
                webhook: webhook,
                connections: connections
            ),
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        let task = Task { try await group.run() }
        let address = await server.waitUntilReady()
        return ServerHarness(server: server, address: address, dataDirectory: directory, group: group, task: task,
                             trustedCertificateFiles: trustedCertificateFiles)
    }

    /// Shuts the server down gracefully and waits until it has let go of its port.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }

    /// Creates a meeting through the REST API; returns its id.
    func createMeetingId() async throws -> String {
        let json = try await client.send("POST", "/meetings", body: try JSONSerialization.data(withJSONObject: [
            "ClientRequestToken": UUID().uuidString, "ExternalMeetingId": "e2e-meeting", "MediaRegion": "us-east-1",
        ]))
        return try #require(try JSONDecoder().decode(ControlAPI.MeetingResponse.self, from: json).meeting?.meetingId)
    }

    /// Creates an attendee and returns only its join token (for raw-socket tests).
    func joinToken(meetingId: String, name: String) async throws -> String {
        let json = try await client.send(
            "POST", "/meetings/\(meetingId)/attendees",
            body: try JSONSerialization.data(withJSONObject: ["ExternalUserId": name])
        )
        let body = try JSONSerialization.jsonObject(with: json) as? [String: [String: Any]]
        return try #require(body?["Attendee"]?["JoinToken"] as? String)
    }

    /// Creates a meeting through the REST API.
    func createMeeting(clientRequestToken: String = UUID().uuidString) async throws
        -> (response: CreateMeetingResponse, meetingId: String) {
        let json = try await client.send("POST", "/meetings", body: try JSONSerialization.data(withJSONObject: [
            "ClientRequestToken": clientRequestToken, "ExternalMeetingId": "e2e-meeting", "MediaRegion": "us-east-1",
        ]))
        let id = try #require(try JSONDecoder().decode(ControlAPI.MeetingResponse.self, from: json).meeting?.meetingId)
        return (try JSONDecoder().decode(CreateMeetingResponse.self, from: json), id)
    }

    /// Creates an attendee through the REST API, with `capabilities` (`Audio`, `Video`, `Content`) when given.
    func createAttendee(meetingId: String, name: String, capabilities: [String: String]? = nil) async throws
        -> CreateAttendeeResponse {
        var body: [String: Any] = ["ExternalUserId": name]
        if let capabilities { body["Capabilities"] = capabilities }
        let json = try await client.send(
            "POST", "/meetings/\(meetingId)/attendees", body: try JSONSerialization.data(withJSONObject: body)
        )
        return try JSONDecoder().decode(CreateAttendeeResponse.self, from: json)
    }

    /// A session configuration for a new attendee of `meeting`.
    func configuration(
        meeting: (response: CreateMeetingResponse, meetingId: String),
        name: String,
        capabilities: [String: String]? = nil
    ) async throws -> MeetingSessionConfiguration {
        MeetingSessionConfiguration(
            createMeetingResponse: meeting.response,
            createAttendeeResponse: try await createAttendee(meetingId: meeting.meetingId, name: name,
                                                             capabilities: capabilities)
        )
    }
}
