import Carillon
import CarillonControlClient
import Foundation

/// Joins a meeting as a headless attendee and prints its roster as it changes, then leaves.
///
/// Usage: `RosterBot <endpoint> <MeetingId> <ExternalUserId> [seconds]`, with the control API's key pair in
/// `CARILLON_ACCESS_KEY_ID` and `CARILLON_SECRET_ACCESS_KEY`. It creates its attendee through the control API (as
/// an app's backend would), joins with the SDK, and prints `roster: a, b, ...` at every change.
@main
struct RosterBot {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count >= 3, let endpoint = URL(string: arguments[arguments.startIndex]) else {
            print("usage: RosterBot <endpoint> <MeetingId> <ExternalUserId> [seconds]")
            exit(64)
        }
        let meetingId = arguments[arguments.startIndex + 1]
        let name = arguments[arguments.startIndex + 2]
        let seconds = arguments.count > 3 ? Double(arguments[arguments.startIndex + 3]) ?? 10 : 10
        let environment = ProcessInfo.processInfo.environment
        guard let keyId = environment["CARILLON_ACCESS_KEY_ID"], let secret = environment["CARILLON_SECRET_ACCESS_KEY"] else {
            print("set CARILLON_ACCESS_KEY_ID and CARILLON_SECRET_ACCESS_KEY")
            exit(64)
        }

        // The meeting and a new attendee, from the control API.
        let client = ControlAPIClient(endpoint: endpoint, accessKeyId: keyId, secretAccessKey: secret)
        let meetingPath = "/meetings/\(ControlAPIClient.segment(meetingId))"
        let meeting = try await client.send("GET", meetingPath)
        let attendee = try await client.send("POST", "\(meetingPath)/attendees",
                                             body: try JSONSerialization.data(withJSONObject: ["ExternalUserId": name]))
        let configuration = MeetingSessionConfiguration(
            createMeetingResponse: try JSONDecoder().decode(CreateMeetingResponse.self, from: meeting),
            createAttendeeResponse: try JSONDecoder().decode(CreateAttendeeResponse.self, from: attendee))

        // The session, with a silent microphone (a bot has no sound card).
        let session = DefaultMeetingSession(configuration: configuration, logger: ConsoleLogger(name: "bot", level: .ERROR))
        if let facade = session.audioVideo as? DefaultAudioVideoFacade {
            session.audioVideo.chooseAudioDevice(mediaDevice: try facade.deviceController.virtualDevices.add(specification: "silence"))
        }
        let roster = RosterPrinter()
        session.audioVideo.addAudioVideoObserver(observer: roster)
        session.audioVideo.addRealtimeObserver(observer: roster)
        try session.audioVideo.start()
        try await Task.sleep(for: .seconds(seconds))
        session.audioVideo.stop()
        await roster.stopped()
        print("left")
    }
}
