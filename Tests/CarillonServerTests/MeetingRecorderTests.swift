import CarillonCodecs
import CarillonMedia
import CarillonProtocol
import CarillonRTC
import Foundation
import Logging
import NIOCore
import Testing

@testable import CarillonServer

/// A meeting's recorder in virtual time, through the media core and the meeting core that own it: the mix in chunks
/// on the recording's clock, a camera from its first key frame with a new file per resolution, a stalled camera's file
/// finished, selected streams only, events and data messages as JSON lines. The files are written by the product's
/// own file shell (``RecordingFileWriter``) and read back with Debian's ffprobe (the oracle the WebM tests use).
@Suite struct MeetingRecorderTests {
    /// 2025-11-29 07:06:40.000 UTC on the wall clock.
    let start = ClockReading(monotonic: .uptimeNanoseconds(10_000_000_000), unixNanoseconds: 1_764_400_000_000_000_000)
    let certificate = try! DTLSCertificate.generate()
    let candidate = STUNAddress(address: [127, 0, 0, 1], port: 4000)!

    /// The recording operations of `outputs`, applied to a fresh directory by the product's file shell.
    final class Files: @unchecked Sendable {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory() + "carillon-recorder-\(UUID().uuidString)")
        var operations: [RecordingFileOperation] = []
        lazy var writer = RecordingFileWriter(directory: directory) { Issue.record("file shell failed: \($0)") }

        func take(_ outputs: [MeetingMediaOutput]) {
            for case .recording(_, let batch) in outputs {
                operations += batch
                writer.apply(batch)
            }
        }

        func names(_ folder: String) async -> [String] {
            await writer.drain()
            let url = directory.appendingPathComponent(folder)
            return ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
        }

        func path(_ folder: String, _ name: String) -> String { directory.appendingPathComponent("\(folder)/\(name)").path }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    /// What ffprobe reads of a file: its duration and its one stream's codec, size and frame count.
    struct Probe: Equatable {
        var duration: Double
        var codec: String
        var width: Int?
        var height: Int?
        var frames: Int
    }

    static func probe(_ path: String) throws -> Probe {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-count_frames", "-show_entries",
                             "format=duration:stream=codec_name,width,height,nb_read_frames", "-of", "json", path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        let duration = Double((json["format"] as? [String: Any])?["duration"] as? String ?? "") ?? -1
        return Probe(duration: (duration * 1_000).rounded() / 1_000, codec: stream["codec_name"] as? String ?? "",
                     width: stream["width"] as? Int, height: stream["height"] as? Int,
                     frames: Int(stream["nb_read_frames"] as? String ?? "") ?? -1)
    }

    func setup(chunk: Int64? = 5_000, audio: Bool = true, externalUserIds: Set<String>? = nil) -> MeetingRecordingSetup {
        MeetingRecordingSetup(pipelineId: "p-1", recordsAudio: audio, selectedExternalUserIds: externalUserIds,
                              chunkMilliseconds: chunk)
    }

    /// A publisher whose camera (VP8, SSRC 1111) is negotiated and connected, with no receiver.
    func publishing(_ core: MeetingMediaCore, _ id: SignalingConnectionID, attendee: String) throws {
        let negotiation = try MeetingMediaNegotiation(offer: VideoOffer.make(receiveMids: []), certificate: certificate,
                                                      candidate: candidate, video: .init(sending: .allowed, receive: [nil]))
        _ = core.add(id, attendeeId: attendee, negotiation: negotiation, now: start.monotonic)
        _ = core.connected(id, muted: false, now: start.monotonic)
    }

    /// A real VP8 camera (libvpx) sending `color` at 15 fps, packetised as a client does.
    struct Camera {
        var encoder: VP8Encoder
        var pattern: VideoTestPattern
        var packetizer = VP8Packetizer(maximumPayloadSize: 1_000, firstPictureID: 7)
        var sequence: UInt16 = 65_000
        var timestamp: UInt32 = 500_000
        var index = 0

        init(width: Int, height: Int) throws {
            encoder = try VP8Encoder(configuration: .init(width: width, height: height, bitrate: 300_000, maxFrameRate: 15))
            pattern = try VideoTestPattern(width: width, height: height, color: .blue)
        }

        /// The next frame's packets (the first is a key frame), 1/15 s after the last.
        mutating func next() throws -> [RTPPacket] {
            let encoded = try #require(try encoder.encode(pattern.image(frame: index), timestamp: timestamp))
            index += 1
            defer { timestamp &+= 6_000 }
            let payloads = packetizer.payloads(for: encoded.bytes[...])
            return payloads.enumerated().map { position, payload in
                defer { sequence &+= 1 }
                return RTPPacket(marker: position == payloads.count - 1, payloadType: 96, sequenceNumber: sequence,
                                 timestamp: timestamp, ssrc: 1_111, payload: payload[...])
            }
        }
    }

    static func pictureLossRequests(_ outputs: [MeetingMediaOutput]) -> Int {
        outputs.reduce(0) { count, output in
            guard case .rtcp(_, let bytes) = output, let packets = try? RTCPPacket.parseCompound(bytes) else { return count }
            return count + packets.filter { if case .pictureLossIndication(_, 1_111) = $0 { true } else { false } }.count
        }
    }

    // MARK: The mix

    /// 12 s of one attendee's tone, recorded from the start in 5 s chunks: three files named by their start on the
    /// wall clock, 250 + 250 + 100 Opus frames of 20 ms, durations exact.
    @Test func theMixIsRecordedInChunksOnTheRecordingsClock() async throws {
        let core = MeetingMediaCore(now: start.monotonic)
        let speaker = SignalingConnectionID(1)
        core.add(speaker, attendeeId: "a-1", ssrc: 1_000, opusPayloadType: 111, audioLevelExtensionId: 1, now: start.monotonic)
        core.connected(speaker, muted: false, now: start.monotonic)
        let files = Files()
        files.take(core.startRecording(setup(), start: start, attendees: ["a-1": "alice"]))

        let encoder = try OpusEncoder(format: .mono48k, application: .voip, dtx: false)
        var tone = ToneGenerator(frequency: 440, amplitude: 0.3)
        var now = start.monotonic
        let end = start.monotonic + .seconds(12)
        var sequence: UInt16 = 1
        while now < end {
            let frame = tone.next()
            let level = AudioLevel.rfc6464Level(frame)
            let packet = RTPPacket(payloadType: 111, sequenceNumber: sequence, timestamp: UInt32(sequence) * 960, ssrc: 77,
                                   extensions: [(1, RTPHeaderExtensionValue.audioLevelValue(voice: true, level: level))],
                                   payload: try encoder.encode(frame)[...])
            sequence &+= 1
            files.take(core.receive(packet, from: speaker, now: now))
            if let due = core.nextDeadline, due <= now { files.take(core.tick(now: now)) }
            now = now + .milliseconds(20)
        }
        files.take(core.stopRecording())

        let names = await files.names("audio")
        #expect(names == ["2025-11-29-07-06-40-000.webm", "2025-11-29-07-06-45-000.webm", "2025-11-29-07-06-50-000.webm"])
        let probes = try names.map { try Self.probe(files.path("audio", $0)) }
        #expect(probes == [Probe(duration: 5, codec: "opus", frames: 250), Probe(duration: 5, codec: "opus", frames: 250),
                           Probe(duration: 2, codec: "opus", frames: 100)])
        #expect(core.recorder == nil)
    }

    // MARK: Cameras

    /// A camera recorded whole: nothing before its first key frame (asked for with the first packet), then 45 frames
    /// of 320x180; a key frame of 640x360 starts a second file of 15 frames. Files are named by the start, the
    /// attendee id and the ExternalUserId made a plain file name.
    @Test func aCameraIsRecordedFromAKeyFrameAndANewSizeStartsANewFile() async throws {
        let core = MeetingMediaCore(now: start.monotonic)
        let publisher = SignalingConnectionID(3)
        try publishing(core, publisher, attendee: "pub-1")
        let files = Files()
        files.take(core.startRecording(setup(chunk: nil), start: start, attendees: ["pub-1": "carol/../x"]))

        var camera = try Camera(width: 320, height: 180)
        var now = start.monotonic + .milliseconds(500)
        // A delta frame first (its key frame lost): nothing is written, a key frame is asked for at once.
        _ = try camera.next()
        let early = try camera.next()
        let asked = core.receive(early[0], from: publisher, now: now)
        #expect(Self.pictureLossRequests(asked) == 1)
        files.take(asked)
        camera = try Camera(width: 320, height: 180)
        camera.sequence = early[0].sequenceNumber &+ UInt16(early.count)
        for index in 0..<60 {
            if index == 45 {
                var larger = try Camera(width: 640, height: 360)
                larger.sequence = camera.sequence
                larger.timestamp = camera.timestamp
                camera = larger
            }
            for packet in try camera.next() { files.take(core.receive(packet, from: publisher, now: now)) }
            now = now + .nanoseconds(1_000_000_000 / 15)
        }
        files.take(core.stopRecording())

        let names = await files.names("video")
        #expect(names == ["2025-11-29-07-06-40-500-pub-1-carol_.._x.webm", "2025-11-29-07-06-43-500-pub-1-carol_.._x.webm"])
        #expect(try Self.probe(files.path("video", names[0])) == Probe(duration: 3, codec: "vp8", width: 320, height: 180, frames: 45))
        #expect(try Self.probe(files.path("video", names[1])) == Probe(duration: 1, codec: "vp8", width: 640, height: 360, frames: 15))
        #expect(await files.names("audio").isEmpty)
    }

    /// A camera that stops sending has its file finished two seconds after its last frame, while the recording goes
    /// on; when it comes back it starts a new file at a key frame it asks for.
    @Test func aStalledCamerasFileIsFinishedAndItsReturnStartsANewOne() async throws {
        let core = MeetingMediaCore(now: start.monotonic)
        let publisher = SignalingConnectionID(3)
        try publishing(core, publisher, attendee: "pub-1")
        let files = Files()
        files.take(core.startRecording(setup(chunk: nil), start: start, attendees: ["pub-1": "carol"]))
        var camera = try Camera(width: 320, height: 180)
        var now = start.monotonic
        for _ in 0..<15 {
            for packet in try camera.next() { files.take(core.receive(packet, from: publisher, now: now)) }
            now = now + .nanoseconds(1_000_000_000 / 15)
        }
        let last = now - .nanoseconds(1_000_000_000 / 15)
        // Nothing for 2 s: the tick at the recorder's deadline finishes the file, exactly then.
        let deadline = try #require(core.nextDeadline)
        #expect(deadline <= last + RecordedVideoSource.stallTimeout)
        var finishedAt: NIODeadline?
        while finishedAt == nil, now < last + .seconds(3) {
            now = max(now, core.nextDeadline ?? now + .milliseconds(100))
            let outputs = core.tick(now: now)
            files.take(outputs)
            if outputs.contains(where: { if case .recording(_, let ops) = $0 { ops.contains { if case .finish = $0 { true } else { false } } } else { false } }) {
                finishedAt = now
            }
            now = now + .milliseconds(1)
        }
        #expect(finishedAt == last + RecordedVideoSource.stallTimeout)
        // It comes back with a delta frame: a key frame is asked for, and the next one starts a second file.
        let back = try camera.next()
        let outputs = core.receive(back[0], from: publisher, now: now)
        #expect(Self.pictureLossRequests(outputs) == 1)
        camera.encoder.requestKeyframe()
        for _ in 0..<15 {
            for packet in try camera.next() { files.take(core.receive(packet, from: publisher, now: now)) }
            now = now + .nanoseconds(1_000_000_000 / 15)
        }
        files.take(core.stopRecording())
        let names = await files.names("video")
        #expect(names.count == 2)
        #expect(try names.map { try Self.probe(files.path("video", $0)).frames } == [15, 15])
    }

    /// A sender that changes its simulcast layers (Chime's policy at a third participant: `mid` stops, `hi` starts;
    /// back at two: `hi` stops, `mid` starts) starts each new layer with a key frame: the recording moves up at
    /// `hi`'s key frame at once, and down to `mid`'s once `hi` has been quiet, writing `mid`'s frames from its key
    /// frame on. Not a picture is lost, and the only key frame asked for is the one the recording starts with (asked
    /// with the first packet, before the recorder can know that packet starts one).
    @Test func aSenderChangingItsLayersLosesNoPicture() async throws {
        let files = Files()
        let clock = RecordingClock(start: start)
        var source = RecordedVideoSource(files: RecordedStreamFiles(folder: "video", suffix: "-pub", clock: clock,
                                                                    chunkMilliseconds: nil))
        var operations: [RecordingFileOperation] = []
        var requests: [Int] = []
        var now = start.monotonic
        var mid = try Camera(width: 320, height: 180), hi = try Camera(width: 320, height: 180)
        hi.sequence = 1_000
        // 0-2 s mid, 2-4 s hi, 4-6 s mid again (a fresh encoder, as a restarted layer is).
        for index in 0..<90 {
            let (layer, packets): (Int, [RTPPacket])
            switch index {
            case 30..<60: (layer, packets) = (2, try hi.next())
            case 60:
                let sequence = mid.sequence, timestamp = mid.timestamp
                mid = try Camera(width: 320, height: 180)
                (mid.sequence, mid.timestamp) = (sequence, timestamp &+ 180_000)
                (layer, packets) = (1, try mid.next())
            default:
                (layer, packets) = (1, try mid.next())
            }
            // What the router says: the best layer sending in the last second.
            let best = (30..<75).contains(index) ? 2 : 1
            for packet in packets {
                requests += source.receive(packet, layer: layer, best: best, now: now, clock: clock, into: &operations)
            }
            now = now + .nanoseconds(1_000_000_000 / 15)
        }
        operations += source.finish()
        files.writer.apply(operations)
        let names = await files.names("video")
        #expect(names.count == 1)
        #expect(try Self.probe(files.path("video", names[0])).frames == 90)
        #expect(requests == [1])
    }

    /// SelectedVideoStreams: a camera of an attendee not named is never recorded (and never asked for a key frame).
    @Test func onlySelectedCamerasAreRecorded() async throws {
        let core = MeetingMediaCore(now: start.monotonic)
        let publisher = SignalingConnectionID(3)
        try publishing(core, publisher, attendee: "pub-1")
        let files = Files()
        files.take(core.startRecording(setup(chunk: nil, externalUserIds: ["alice"]), start: start,
                                       attendees: ["pub-1": "carol"]))
        var camera = try Camera(width: 320, height: 180)
        var requests = 0
        for _ in 0..<15 {
            for packet in try camera.next() {
                let outputs = core.receive(packet, from: publisher, now: start.monotonic)
                requests += Self.pictureLossRequests(outputs)
                files.take(outputs)
            }
        }
        files.take(core.stopRecording())
        #expect(requests == 0)
        #expect(await files.names("video").isEmpty)
    }

    // MARK: Events and messages

    /// Through the meeting core: an attendee joining, muting and leaving, and a data message, become one JSON line each
    /// in `meeting-events/` and `data-channel/`, stamped on the recording's clock.
    @Test func eventsAndDataMessagesAreWrittenAsJSONLines() throws {
        let core = MeetingCore(meetingId: "m", configuration: .init(),
                               media: .init(certificate: certificate, candidateAddress: candidate),
                               logger: Logger(label: "test"), now: start.monotonic)
        let alice = AttendeeIdentity(attendeeId: "a-1", externalUserId: "alice")
        let bob = AttendeeIdentity(attendeeId: "b-2", externalUserId: "bob")
        let (c1, c2) = (SignalingConnectionID(1), SignalingConnectionID(2))
        func frame(_ type: SdkSignalFrame.TypeEnum, _ build: (inout SdkSignalFrame) -> Void = { _ in }) -> SdkSignalFrame {
            SdkSignalFrame.with { $0.type = type; build(&$0) }
        }
        let join = frame(.join) { $0.join.audioSessionID = 7; $0.join.protocolVersion = 2 }
        _ = core.accept(c1, identity: alice, now: start)
        _ = core.receive(join, from: c1, now: start)
        var operations: [RecordingFileOperation] = []
        func take(_ effects: [MeetingCoreEffect]) {
            for case .recording(_, let batch) in effects { operations += batch }
        }
        take(core.startRecording(setup(), now: start))
        let later = start.advanced(by: .milliseconds(1_250))
        take(core.accept(c2, identity: bob, now: later))
        take(core.receive(join, from: c2, now: later))
        take(core.receive(frame(.audioControl) { $0.audioControl.muted = true }, from: c2, now: later))
        take(core.receive(frame(.dataMessage) {
            var payload = SdkDataMessagePayload()
            payload.topic = "chat"
            payload.data = Data("hello".utf8)
            $0.dataMessage.messages = [payload]
        }, from: c1, now: later))
        take(core.receive(frame(.leave), from: c2, now: later.advanced(by: .seconds(6))))
        let ended = core.endMeeting(now: later.advanced(by: .seconds(7)))
        take(ended)
        #expect(ended.contains { if case .recordingEnded("p-1", stopped: true) = $0 { true } else { false } })

        func lines(_ folder: String) throws -> [[String: Any]] {
            var contents: [String: [UInt8]] = [:]
            for operation in operations {
                switch operation {
                case .create(let path, let bytes) where path.hasPrefix(folder + "/"): contents[path] = bytes
                case .append(let path, let bytes) where path.hasPrefix(folder + "/"): contents[path, default: []] += bytes
                default: break
                }
            }
            return try contents.keys.sorted().flatMap { path in
                try String(decoding: contents[path]!, as: UTF8.self).split(separator: "\n").map {
                    try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
            }
        }
        let events = try lines("meeting-events")
        #expect(events.map { $0["EventType"] as? String } == ["AttendeeJoined", "AttendeeAudioMuted", "AttendeeLeft"])
        #expect(events.map { ($0["EventParameters"] as? [String: String])?["ExternalUserId"] } == ["bob", "bob", "bob"])
        #expect(events.map { $0["Timestamp"] as? String }
            == ["2025-11-29T07:06:41.250Z", "2025-11-29T07:06:41.250Z", "2025-11-29T07:06:47.250Z"])
        // The leave came after the 5 s chunk length: it is in a second file.
        let eventFiles = operations.compactMap { if case .create(let path, _) = $0, path.hasPrefix("meeting-events/") { path } else { nil } }
        #expect(eventFiles == ["meeting-events/2025-11-29-07-06-41-250.jsonl", "meeting-events/2025-11-29-07-06-47-250.jsonl"])
        let messages = try lines("data-channel")
        #expect(messages.count == 1)
        #expect(messages.first?["Topic"] as? String == "chat")
        #expect(messages.first?["Data"] as? String == Data("hello".utf8).base64EncodedString())
        #expect(messages.first?["SenderExternalUserId"] as? String == "alice")
        // Every file opened was finished.
        let created = Set(operations.compactMap { if case .create(let path, _) = $0 { path } else { nil } })
        let finished = Set(operations.compactMap { if case .finish(let path, _) = $0 { path } else { nil } })
        #expect(created == finished)
    }
}
