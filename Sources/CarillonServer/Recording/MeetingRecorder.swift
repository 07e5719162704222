import CarillonMedia
import CarillonProtocol
import CarillonRTC
import Foundation
import NIOCore

/// The recorder of one meeting for a media capture pipeline, sans-IO: fed the meeting's mix, its cameras' and content
/// shares' packets as received, its events and data messages, and `now`; it returns ``RecordingFileOperation``s for
/// a shell to apply to files, and the key frames it needs. Nothing is decoded or encoded: the mix is the mixer's own
/// (the recorder is a listener of the mixer that never speaks, so it gets the shared encode of everyone), and video
/// is VP8 as the senders sent it.
///
/// Every time is on one clock (``RecordingClock``: milliseconds since the recording started, monotonic): the mix's
/// frames by their RTP times from where the first one arrived, a camera's frames likewise (re-anchored after a gap
/// or a layer switch), events and messages when they happen. Files: `audio/<stamp>.webm` (Opus, mono),
/// `video/<stamp>-<attendee id>-<ExternalUserId>.webm` and `content/…` (VP8), `meeting-events/<stamp>.jsonl` and
/// `data-channel/<stamp>.jsonl`, each cut every chunk length (video at a key frame, asked for when a chunk is due)
/// or kept whole.
///
/// Costs: per mixed frame one RTP parse and the frame copied into the open cluster; per video packet one assembler
/// insert (packets kept as slices until their frame completes), per frame one copy into the cluster; memory: an open
/// cluster per stream (up to 5 s). Threading: not thread-safe; the meeting's event loop owns it.
final class MeetingRecorder {
    /// What the recorder asks of the meeting besides its files.
    enum Request: Equatable {
        /// Ask this publisher for a key frame of simulcast layer `layer`.
        case keyFrame(SignalingConnectionID, layer: Int)
    }

    /// The recorder's place in the mixer: a participant id no signaling connection has.
    static let mixerParticipant = SignalingConnectionID(UInt64.max)
    /// A mixed frame this far from where its RTP time puts it (the mixer was made anew) re-anchors the mix's times.
    static let audioResyncMilliseconds: Int64 = 500

    let setup: MeetingRecordingSetup
    let clock: RecordingClock
    private var audio: RecordedStreamFiles
    private var audioAnchor: (milliseconds: Int64, timestamp: UInt32)?
    private var sources: [SignalingConnectionID: RecordedVideoSource] = [:]
    /// Publishers whose video is not recorded (not selected), so they are not looked at again per packet.
    private var ignored: Set<SignalingConnectionID> = []
    private var events: RecordedLines
    private var messages: RecordedLines
    /// Every attendee's ExternalUserId, for file names and lines.
    private var names: [String: String]
    private var isFinished = false
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A recorder starting at `start`, knowing the attendees present (attendee id → ExternalUserId).
    init(setup: MeetingRecordingSetup, start: ClockReading, attendees: [String: String]) {
        self.setup = setup
        clock = RecordingClock(start: start)
        audio = RecordedStreamFiles(folder: "audio", suffix: "", clock: clock, chunkMilliseconds: setup.chunkMilliseconds)
        events = RecordedLines(folder: "meeting-events", clock: clock, chunkMilliseconds: setup.chunkMilliseconds)
        messages = RecordedLines(folder: "data-channel", clock: clock, chunkMilliseconds: setup.chunkMilliseconds)
        names = attendees
    }

    /// When ``tick(now:)`` is next due.
    var nextDeadline: NIODeadline? {
        var earliest: NIODeadline?
        for source in sources.values { earliest = earliest.earlier(source.nextDeadline) }
        return earliest
    }

    // MARK: Media

    /// A mixed frame for the recorder (a plain RTP packet of the mixer's).
    func mix(_ datagram: [UInt8], now: NIODeadline) -> [RecordingFileOperation] {
        guard setup.recordsAudio, !isFinished, let packet = try? RTPPacket(parsing: datagram) else { return [] }
        let arrival = clock.milliseconds(now)
        var time = audioAnchor.map { $0.milliseconds + Int64(Int32(bitPattern: packet.timestamp &- $0.timestamp)) / 48 }
        if time == nil || abs(time! - arrival) > Self.audioResyncMilliseconds {
            audioAnchor = (arrival, packet.timestamp)
            time = arrival
        }
        var operations: [RecordingFileOperation] = []
        // The packets continue an encoder that was already running: no pre-skip.
        let tracks = [WebMTrack(number: 1, media: .opus(channels: 1, preSkip: 0), name: "mix")]
        audio.append(Array(packet.payload), tracks: tracks, milliseconds: time!, keyFrame: true,
                     durationMilliseconds: 20, into: &operations)
        return operations
    }

    /// A packet of a publisher's video (RTX already unwrapped) of simulcast layer `layer`, `best` being the best layer
    /// of the camera flowing now; `attendeeId` is the publisher's attendee.
    func video(_ packet: RTPPacket, from publisher: SignalingConnectionID, attendeeId: String, layer: Int, best: Int,
               now: NIODeadline, requests: inout [Request]) -> [RecordingFileOperation] {
        guard !isFinished, !ignored.contains(publisher) else { return [] }
        if sources[publisher] == nil {
            let content = attendeeId.hasSuffix(JoinToken.contentSuffix)
            let base = content ? String(attendeeId.dropLast(JoinToken.contentSuffix.count)) : attendeeId
            let external = names[attendeeId] ?? names[base]
            let records = content ? setup.recordsContent
                : setup.recordsCamera(attendeeId: attendeeId, externalUserId: external)
            guard records else {
                ignored.insert(publisher)
                return []
            }
            let externalBase = external.map { content && $0.hasSuffix(JoinToken.contentSuffix)
                ? String($0.dropLast(JoinToken.contentSuffix.count)) : $0 }
            let suffix = "-\(base)" + (externalBase.map { "-\(SafeFileName.make($0))" } ?? "")
            sources[publisher] = RecordedVideoSource(files: RecordedStreamFiles(
                folder: content ? "content" : "video", suffix: suffix, clock: clock,
                chunkMilliseconds: setup.chunkMilliseconds))
        }
        var operations: [RecordingFileOperation] = []
        let wanted = sources[publisher]!.receive(packet, layer: layer, best: best, now: now, clock: clock,
                                                 into: &operations)
        requests += wanted.map { .keyFrame(publisher, layer: $0) }
        return operations
    }

    /// A publisher's session ended: its files are finished.
    func publisherEnded(_ publisher: SignalingConnectionID) -> [RecordingFileOperation] {
        ignored.remove(publisher)
        return sources.removeValue(forKey: publisher).map { source in
            var source = source
            return source.finish()
        } ?? []
    }

    /// Runs what is due: stalled sources' files finished, key frames a waiting assembler asks for.
    func tick(now: NIODeadline, requests: inout [Request]) -> [RecordingFileOperation] {
        var operations: [RecordingFileOperation] = []
        for publisher in sources.keys.sorted() {
            guard let due = sources[publisher]?.nextDeadline, due <= now else { continue }
            let wanted = sources[publisher]!.tick(now: now, into: &operations)
            requests += wanted.map { .keyFrame(publisher, layer: $0) }
        }
        return operations
    }

    // MARK: Events and messages

    /// One line of `meeting-events/`: `EventType` with the attendee it concerns.
    func event(_ type: String, attendeeId: String, externalUserId: String?, now: ClockReading) -> [RecordingFileOperation] {
        if let externalUserId { names[attendeeId] = externalUserId }
        guard !isFinished else { return [] }
        let line = EventLine(timestamp: clock.iso8601(clock.milliseconds(now.monotonic)), eventType: type,
                             eventParameters: .init(attendeeId: attendeeId, externalUserId: externalUserId ?? names[attendeeId]))
        var operations: [RecordingFileOperation] = []
        if let bytes = try? Self.encoder.encode(line) {
            events.append(Array(bytes), milliseconds: clock.milliseconds(now.monotonic), into: &operations)
        }
        return operations
    }

    /// Data messages the meeting delivered: one line each in `data-channel/`.
    func dataMessages(_ payloads: [SdkDataMessagePayload], now: ClockReading) -> [RecordingFileOperation] {
        guard !isFinished else { return [] }
        var operations: [RecordingFileOperation] = []
        let milliseconds = clock.milliseconds(now.monotonic)
        for payload in payloads {
            let line = MessageLine(timestamp: clock.iso8601(milliseconds), topic: payload.topic,
                                   data: payload.data.base64EncodedString(),
                                   senderAttendeeId: payload.senderAttendeeID,
                                   senderExternalUserId: payload.senderExternalUserID,
                                   ingestTimeNs: payload.ingestTimeNs)
            if let bytes = try? Self.encoder.encode(line) {
                messages.append(Array(bytes), milliseconds: milliseconds, into: &operations)
            }
        }
        return operations
    }

    /// Ends the recording: every open file is finished. Nothing is recorded after.
    func finish() -> [RecordingFileOperation] {
        guard !isFinished else { return [] }
        isFinished = true
        var operations = audio.finish()
        for publisher in sources.keys.sorted() { operations += sources[publisher]!.finish() }
        sources.removeAll()
        operations += events.finish()
        operations += messages.finish()
        return operations
    }

    private struct EventLine: Encodable {
        struct Parameters: Encodable {
            var attendeeId: String
            var externalUserId: String?
            enum CodingKeys: String, CodingKey {
                case attendeeId = "AttendeeId"
                case externalUserId = "ExternalUserId"
            }
        }
        var timestamp: String
        var eventType: String
        var eventParameters: Parameters
        enum CodingKeys: String, CodingKey {
            case timestamp = "Timestamp"
            case eventType = "EventType"
            case eventParameters = "EventParameters"
        }
    }

    private struct MessageLine: Encodable {
        var timestamp: String
        var topic: String
        var data: String
        var senderAttendeeId: String
        var senderExternalUserId: String
        var ingestTimeNs: Int64
        enum CodingKeys: String, CodingKey {
            case timestamp = "Timestamp"
            case topic = "Topic"
            case data = "Data"
            case senderAttendeeId = "SenderAttendeeId"
            case senderExternalUserId = "SenderExternalUserId"
            case ingestTimeNs = "IngestTimeNs"
        }
    }
}
