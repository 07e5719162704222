import Carillon
import CarillonCodecs
import CarillonControlClient
import CarillonProtocol
import Foundation
import Synchronization

/// One headless attendee of the demo: an SDK session plus what it has seen so far.
///
/// Threading: the session's callbacks write the state on its callback queue; the demo reads it from its task; a mutex
/// keeps the two apart.
final class DemoBot: Sendable {
    private struct Seen {
        var roster: Set<String> = []
        var muted: Set<String> = []
        var messages: [DataMessage] = []
        var stopStatus: MeetingSessionStatus?
        var joinLatency: Duration?
        var volumes: [String: VolumeLevel] = [:]
        var activeSpeakers: [String] = []
        /// Attendee id to external user id, for naming video tiles.
        var names: [String: String] = [:]
    }

    let name: String
    let session: DefaultMeetingSession
    /// The tone this attendee's virtual microphone plays, in Hz.
    let tone: Double
    /// Where the attendee records what it hears.
    let recording: URL
    private let seen = Mutex(Seen())
    private let printer: Mutex<AttendeeEventPrinter?> = Mutex(nil)
    /// The camera: a 320x180 pattern at 15 fps in the attendee's colour.
    private let camera: Mutex<PatternVideoSource?> = Mutex(nil)
    /// What the attendee receives of the others' video.
    private let tiles: Mutex<TileRecorder?> = Mutex(nil)

    private init(name: String, session: DefaultMeetingSession, tone: Double, recording: URL) {
        self.name = name
        self.session = session
        self.tone = tone
        self.recording = recording
    }

    var roster: Set<String> { seen.withLock { $0.roster } }
    var muted: Set<String> { seen.withLock { $0.muted } }
    var messages: [DataMessage] { seen.withLock { $0.messages } }
    var stopStatus: MeetingSessionStatus? { seen.withLock { $0.stopStatus } }
    var joinLatency: Duration? { seen.withLock { $0.joinLatency } }
    /// The latest volume of each attendee (by external user id) as this attendee's session reports it.
    var volumes: [String: VolumeLevel] { seen.withLock { $0.volumes } }
    /// The active speakers as this attendee's detector ranks them.
    var activeSpeakers: [String] { seen.withLock { $0.activeSpeakers } }

    /// Frames received so far per remote attendee (external user id), with the last size.
    var videoReceived: [String: (frames: Int, width: Int, height: Int)] { tiles.withLock { $0?.framesByAttendee ?? [:] } }

    /// Stops the camera (before leaving).
    func stopCamera() { camera.withLock { $0?.stop() } }

    /// Whether this attendee hears `others` speaking (a volume above "not speaking").
    func hearsSpeaking(_ others: [String]) -> Bool {
        let volumes = self.volumes
        return others.allSatisfy { [.low, .medium, .high].contains(volumes[$0] ?? .notSpeaking) }
    }

    /// Creates the attendee through the REST API and starts its session: its microphone plays `tone`, and what it
    /// hears is recorded to `recording`.
    static func join(
        name: String,
        meeting: CreateMeetingResponse,
        meetingId: String,
        client: ControlAPIClient,
        tone: Double,
        color: VideoTestPattern.Color,
        recording: URL,
        log: DemoLog
    ) async throws -> DemoBot {
        let attendeeJSON = try await client.send(
            "POST", "/meetings/\(ControlAPIClient.segment(meetingId))/attendees",
            body: try JSONSerialization.data(withJSONObject: ["ExternalUserId": name])
        )
        let attendee = try JSONDecoder().decode(CreateAttendeeResponse.self, from: attendeeJSON)
        log.say("api", "CreateAttendee \(name)")
        let configuration = MeetingSessionConfiguration(createMeetingResponse: meeting, createAttendeeResponse: attendee)
        let session = DefaultMeetingSession(configuration: configuration, logger: ConsoleLogger(name: name, level: .ERROR))
        let bot = DemoBot(name: name, session: session, tone: tone, recording: recording)
        if let devices = (session.audioVideo as? DefaultAudioVideoFacade)?.deviceController.virtualDevices {
            session.audioVideo.chooseAudioDevice(mediaDevice: try devices.addTone(frequency: tone))
            session.audioVideo.chooseAudioDevice(mediaDevice: devices.addRecorder(path: recording.path))
        }
        let startedAt = ContinuousClock.now
        let printer = AttendeeEventPrinter(
            prefix: "",
            output: { [name] line in log.say(name, line) },
            onStart: { [weak bot] _ in bot?.seen.withLock { $0.joinLatency = startedAt.duration(to: .now) } },
            onStop: { [weak bot] status in bot?.seen.withLock { $0.stopStatus = status } },
            onMessage: { [weak bot] message in bot?.seen.withLock { $0.messages.append(message) } },
            onRoster: { [weak bot] change in bot?.seen.withLock { seen in
                switch change {
                case .joined(let who):
                    seen.roster.formUnion(who.map(\.externalUserId))
                    for attendee in who { seen.names[attendee.attendeeId] = attendee.externalUserId }
                case .left(let who), .dropped(let who): seen.roster.subtract(who.map(\.externalUserId))
                case .muted(let who): seen.muted.formUnion(who.map(\.externalUserId))
                case .unmuted(let who): seen.muted.subtract(who.map(\.externalUserId))
                }
            } },
            onVolumes: { [weak bot] updates in bot?.seen.withLock { seen in
                for update in updates { seen.volumes[update.attendeeInfo.externalUserId] = update.volumeLevel }
            } },
            onActiveSpeakers: { [weak bot] names in bot?.seen.withLock { $0.activeSpeakers = names } }
        )
        bot.printer.withLock { $0 = printer }
        session.audioVideo.addAudioVideoObserver(observer: printer)
        session.audioVideo.addRealtimeObserver(observer: printer)
        session.audioVideo.addActiveSpeakerObserver(policy: DefaultActiveSpeakerPolicy(), observer: printer)
        session.audioVideo.addRealtimeDataMessageObserver(topic: "chat", observer: printer)
        try session.audioVideo.start()
        if let facade = session.audioVideo as? DefaultAudioVideoFacade {
            let recorder = TileRecorder(facade: facade, directory: nil,
                                        line: EventLine(json: false) { [name] line in log.say(name, line) }) { [weak bot] id in
                bot?.seen.withLock { $0.names[id] } ?? id
            }
            bot.tiles.withLock { $0 = recorder }
            session.audioVideo.addVideoTileObserver(observer: recorder)
            let camera = try PatternVideoSource(color: color, width: 320, height: 180, fps: 15)
            bot.camera.withLock { $0 = camera }
            session.audioVideo.startLocalVideo(source: camera)
            camera.start()
            session.audioVideo.startRemoteVideo()
        }
        return bot
    }
}
