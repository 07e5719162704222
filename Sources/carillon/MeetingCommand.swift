import ArgumentParser
import CarillonControlClient
import CarillonProtocol
import Foundation

/// Options shared by the commands that call the control API.
struct EndpointOptions: ParsableArguments {
    @Option(help: "Base URL of the control API, e.g. http://127.0.0.1:8080 or https://meet.example.com (https trusts the system store plus $CARILLON_CA_FILE).")
    var endpoint: String = "http://127.0.0.1:8080"

    @Option(help: "Access key id (default: $CARILLON_ACCESS_KEY_ID, else the key file in --data-dir).")
    var accessKeyId: String?

    @Option(help: "Secret access key (default: $CARILLON_SECRET_ACCESS_KEY, else the key file in --data-dir).")
    var secretAccessKey: String?

    @Option(help: "Data directory of a local server, to read its generated access keys.")
    var dataDir: String = "./carillon-data"

    @Option(help: "Region used in request signatures.")
    var region: String = "us-east-1"

    func client() throws -> ControlAPIClient {
        guard let url = URL(string: endpoint), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw ValidationError("--endpoint must be an http:// or https:// URL, got \(endpoint)")
        }
        let environment = ProcessInfo.processInfo.environment
        var id = accessKeyId ?? environment["CARILLON_ACCESS_KEY_ID"]
        var secret = secretAccessKey ?? environment["CARILLON_SECRET_ACCESS_KEY"]
        if id == nil || secret == nil {
            let file = URL(fileURLWithPath: dataDir).appendingPathComponent("access-keys.json")
            if let data = try? Data(contentsOf: file),
               let keys = try? JSONSerialization.jsonObject(with: data) as? [[String: String]], let first = keys.first {
                id = id ?? first["AccessKeyId"]
                secret = secret ?? first["SecretAccessKey"]
            }
        }
        guard let id, let secret else {
            throw ValidationError("no access keys: pass --access-key-id/--secret-access-key, set CARILLON_ACCESS_KEY_ID and CARILLON_SECRET_ACCESS_KEY, or point --data-dir at the server's data directory")
        }
        return ControlAPIClient(endpoint: url, accessKeyId: id, secretAccessKey: secret, region: region)
    }
}

/// `carillon meeting create|get|list|delete|invite`, each with `--json`.
struct MeetingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meeting",
        abstract: "Manage meetings through the control API.",
        subcommands: [Create.self, Get.self, List.self, Delete.self, Invite.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a meeting.")
        @OptionGroup var options: EndpointOptions
        @Option(help: "ExternalMeetingId (2-64 characters).") var externalId: String = "carillon-\(Int(Date().timeIntervalSince1970))"
        @Option(help: "MediaRegion.") var mediaRegion: String = "us-east-1"
        @Flag(help: "Ask for this meeting's lifecycle events (a NotificationsConfiguration): the server POSTs them to its --webhook-url. Without an ARN below, an SQS queue ARN stands in (Carillon delivers to the webhook whatever the target).")
        var notifications = false
        @Option(help: "NotificationsConfiguration.SqsQueueArn (implies --notifications).") var sqsQueueArn: String?
        @Option(help: "NotificationsConfiguration.SnsTopicArn (implies --notifications).") var snsTopicArn: String?
        @Option(help: "NotificationsConfiguration.LambdaFunctionArn (implies --notifications).") var lambdaFunctionArn: String?
        @Flag(help: "Print the API's JSON response.") var json = false

        /// The NotificationsConfiguration the flags ask for, nil for none.
        var notificationsConfiguration: [String: String]? {
            var targets: [String: String] = [:]
            targets["SqsQueueArn"] = sqsQueueArn
            targets["SnsTopicArn"] = snsTopicArn
            targets["LambdaFunctionArn"] = lambdaFunctionArn
            if targets.isEmpty, notifications { targets["SqsQueueArn"] = "arn:aws:sqs:\(mediaRegion):000000000000:carillon-webhook" }
            return targets.isEmpty ? nil : targets
        }

        func run() async throws {
            var request: [String: Any] = [
                "ClientRequestToken": UUID().uuidString,
                "ExternalMeetingId": externalId,
                "MediaRegion": mediaRegion,
            ]
            request["NotificationsConfiguration"] = notificationsConfiguration
            let body = try JSONSerialization.data(withJSONObject: request)
            let data = try await options.client().send("POST", "/meetings", body: body)
            if json { return printJSON(data) }
            let meeting = try JSONDecoder().decode(ControlAPI.MeetingResponse.self, from: data).meeting ?? ControlAPI.Meeting()
            print("MeetingId: \(meeting.meetingId ?? "")")
            print("ExternalMeetingId: \(meeting.externalMeetingId ?? "")")
            print("SignalingUrl: \(meeting.mediaPlacement?.signalingUrl ?? "")")
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a meeting and its attendees with what each is doing now (with --json: GetMeeting's Meeting, and Attendees: ListAttendees' members with State, Since, Muted, Video and Content).")
        @OptionGroup var options: EndpointOptions
        @Argument(help: "MeetingId.") var meetingId: String
        @Flag(help: "Print the API's JSON response.") var json = false

        func run() async throws {
            let client = try options.client()
            let data = try await client.send("GET", "/meetings/\(ControlAPIClient.segment(meetingId))")
            let meeting = try JSONDecoder().decode(ControlAPI.MeetingResponse.self, from: data).meeting ?? ControlAPI.Meeting()
            let roster = try await AttendeeRoster.fetch(client, meetingId: meetingId)
            if json {
                var combined = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
                combined["Attendees"] = roster.attendees
                return printJSON(try JSONSerialization.data(withJSONObject: combined))
            }
            print("MeetingId: \(meeting.meetingId ?? "")")
            print("ExternalMeetingId: \(meeting.externalMeetingId ?? "")")
            print("MediaRegion: \(meeting.mediaRegion ?? "")")
            print("SignalingUrl: \(meeting.mediaPlacement?.signalingUrl ?? "")")
            print(roster.summary)
            roster.lines.forEach { print($0) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the meetings of the server.")
        @OptionGroup var options: EndpointOptions
        @Flag(help: "Print the API's JSON response.") var json = false

        func run() async throws {
            let client = try options.client()
            var meetings: [ControlAPI.Meeting] = []
            var nextToken: String?
            repeat {
                var query = "max-results=100"
                if let token = nextToken { query += "&next-token=\(ControlAPIClient.segment(token))" }
                let page = try JSONDecoder().decode(ControlAPI.MeetingsResponse.self,
                                                    from: try await client.send("GET", "/meetings", query: query))
                meetings += page.meetings ?? []
                nextToken = page.nextToken
            } while nextToken != nil
            if json { return printJSON(try JSONEncoder().encode(ControlAPI.MeetingsResponse(meetings: meetings))) }
            if meetings.isEmpty { print("no meetings") }
            for meeting in meetings {
                print("\(meeting.meetingId ?? "")  \(meeting.externalMeetingId ?? "")  \(meeting.mediaRegion ?? "")")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete (end) a meeting.")
        @OptionGroup var options: EndpointOptions
        @Argument(help: "MeetingId.") var meetingId: String
        @Flag(help: "Print the API's JSON response (DeleteMeeting has no body: `{}`).") var json = false

        func run() async throws {
            let data = try await options.client().send("DELETE", "/meetings/\(ControlAPIClient.segment(meetingId))")
            if json { return printJSON(data.isEmpty ? Data("{}".utf8) : data) }
            print("deleted \(meetingId)")
        }
    }
}

extension MeetingCommand {
    /// `carillon meeting invite`: a link a guest opens in a browser to join, through Carillon's signed
    /// `POST /carillon/meetings/{id}/invites`. The URL is the last line printed (scripts read it).
    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an invite link: anyone who opens it in a browser can join the meeting, until it expires or the meeting ends.")
        @OptionGroup var options: EndpointOptions
        @Argument(help: "MeetingId.") var meetingId: String
        @Option(help: "Name filled in on the join page (the guest can change it).") var name: String?
        @Option(name: .customLong("expires-in"), help: "Seconds the link admits guests (at most 2592000, 30 days).")
        var expiresIn: Int = 86400
        @Flag(help: "Print the API's JSON response (the URL is still the last line).") var json = false

        func validate() throws {
            guard (1...2_592_000).contains(expiresIn) else {
                throw ValidationError("--expires-in must be from 1 to 2592000 seconds (30 days), got \(expiresIn)")
            }
        }

        func run() async throws {
            let body = try JSONEncoder().encode(ControlAPI.InviteRequest(expiresInSeconds: expiresIn))
            let data = try await options.client().send("POST", "/carillon/meetings/\(ControlAPIClient.segment(meetingId))/invites",
                                                       body: body)
            let invite = try JSONDecoder().decode(ControlAPI.InviteResponse.self, from: data).invite
            var url = invite.url
            if let name, !name.isEmpty {
                var allowed = CharacterSet.urlQueryAllowed
                allowed.remove(charactersIn: "&=+#")
                url += "?name=" + (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
            }
            if json {
                printJSON(data)
            } else {
                print("MeetingId: \(invite.meetingId)")
                print("Expires: \(invite.expiresAt)")
            }
            print(url)
        }
    }
}

/// Prints a JSON document pretty, or as it came when it is not JSON.
func printJSON(_ data: Data) {
    if let object = try? JSONSerialization.jsonObject(with: data),
       let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) {
        print(String(decoding: pretty, as: UTF8.self))
    } else {
        print(String(decoding: data, as: UTF8.self))
    }
}
