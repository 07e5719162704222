import ArgumentParser
import CarillonControlClient
import CarillonProtocol
import Foundation

/// `carillon attendee create|list|delete`: the attendees of a meeting through the control API, for an SDK app that
/// needs a join token or a script that follows who is in.
struct AttendeeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attendee",
        abstract: "Manage a meeting's attendees through the control API.",
        subcommands: [Create.self, List.self, Delete.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an attendee (CreateAttendee); with --json, the API's response: Attendee with AttendeeId and JoinToken, what an SDK app joins with.")
        @OptionGroup var options: EndpointOptions
        @Option(help: "MeetingId.") var meeting: String
        @Option(help: "ExternalUserId (2-64 characters); creating it again returns the same attendee.") var externalUserId: String
        @Flag(help: "Print the API's JSON response.") var json = false

        func run() async throws {
            let body = try JSONSerialization.data(withJSONObject: ["ExternalUserId": externalUserId])
            let data = try await options.client().send("POST", "/meetings/\(ControlAPIClient.segment(meeting))/attendees",
                                                       body: body)
            if json { return printJSON(data) }
            let attendee = try JSONDecoder().decode(ControlAPI.AttendeeResponse.self, from: data).attendee ?? ControlAPI.Attendee()
            print("AttendeeId: \(attendee.attendeeId ?? "")")
            print("ExternalUserId: \(attendee.externalUserId ?? "")")
            print("JoinToken: \(attendee.joinToken ?? "")")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a meeting's attendees with what each is doing now (state, since when, muted, video, content).")
        @OptionGroup var options: EndpointOptions
        @Option(help: "MeetingId.") var meeting: String
        @Flag(help: "Print JSON: {\"Attendees\": [...]}, ListAttendees' members with State, Since, Muted, Video and Content.") var json = false

        func run() async throws {
            let roster = try await AttendeeRoster.fetch(options.client(), meetingId: meeting)
            if json { return printJSON(try JSONSerialization.data(withJSONObject: ["Attendees": roster.attendees])) }
            print(roster.summary)
            roster.lines.forEach { print($0) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete an attendee (DeleteAttendee): its join token stops working and its sessions end.")
        @OptionGroup var options: EndpointOptions
        @Option(help: "MeetingId.") var meeting: String
        @Option(help: "AttendeeId.") var attendeeId: String
        @Flag(help: "Print the API's JSON response (DeleteAttendee has no body: `{}`).") var json = false

        func run() async throws {
            let path = "/meetings/\(ControlAPIClient.segment(meeting))/attendees/\(ControlAPIClient.segment(attendeeId))"
            let data = try await options.client().send("DELETE", path)
            if json { return printJSON(data.isEmpty ? Data("{}".utf8) : data) }
            print("deleted \(attendeeId)")
        }
    }
}
