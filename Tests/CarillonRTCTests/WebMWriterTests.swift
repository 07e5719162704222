import CarillonCodecs
import Foundation
import Testing

@testable import CarillonMedia

/// The WebM writer: EBML's encoding exactly, and whole files checked by an independent decoder (Debian's ffprobe and
/// ffmpeg, installed by `make test` as test tools): a finished file, and one whose writer was killed before finishing.
struct WebMWriterTests {
    /// Variable-length sizes take the fewest bytes, never the all-ones value of a width (it means "unknown").
    @Test func sizesAndIdsAreEncodedExactly() {
        #expect(EBML.size(0) == [0x80])
        #expect(EBML.size(126) == [0xFE])
        #expect(EBML.size(127) == [0x40, 0x7F])
        #expect(EBML.size(16_382) == [0x7F, 0xFE])
        #expect(EBML.size(16_383) == [0x20, 0x3F, 0xFF])
        #expect(EBML.size(5, width: 8) == [0x01, 0, 0, 0, 0, 0, 0, 5])
        #expect(EBML.id(0x1A45_DFA3) == [0x1A, 0x45, 0xDF, 0xA3])
        #expect(EBML.id(0xA3) == [0xA3])
        #expect(EBML.unsigned(0xD7, 0) == [0xD7, 0x81, 0x00])
        #expect(EBML.unsigned(0xE7, 300) == [0xE7, 0x82, 0x01, 0x2C])
    }

    /// Bad tracks and frames are refused with a typed error and leave the writer usable.
    @Test func badTracksAndFramesAreRefused() throws {
        #expect(throws: WebMWriterError.invalidTracks("a file needs a track")) { try WebMWriter(tracks: []) }
        #expect(throws: WebMWriterError.invalidTracks("numbers must differ")) {
            try WebMWriter(tracks: [.init(number: 1, media: .opus(channels: 1, preSkip: 312)),
                                    .init(number: 1, media: .vp8(width: 2, height: 2))])
        }
        var writer = try WebMWriter(tracks: [.init(number: 1, media: .opus(channels: 1, preSkip: 312))])
        _ = try writer.append([1, 2, 3], track: 1, milliseconds: 40, keyFrame: true)
        #expect(throws: WebMWriterError.unknownTrack(2)) { try writer.append([1], track: 2, milliseconds: 60, keyFrame: true) }
        #expect(throws: WebMWriterError.timestampWentBack(track: 1, milliseconds: 20)) {
            try writer.append([1], track: 1, milliseconds: 20, keyFrame: true)
        }
        _ = try writer.append([4, 5], track: 1, milliseconds: 60, keyFrame: true)
        _ = writer.finish()
        #expect(throws: WebMWriterError.finished) { try writer.append([1], track: 1, milliseconds: 80, keyFrame: true) }
    }

    /// 3 s of 320x180 VP8 at 15 fps (a key frame a second) and Opus in 20 ms packets: ffprobe finds both tracks with
    /// every frame and the duration, the cues are where the SeekHead says, and ffmpeg decodes it without an error.
    @Test func aFinishedFileDecodesWholeWithItsDurationAndCues() throws {
        let file = try Self.file(try Self.media(seconds: 3), finish: true)
        let path = try Self.write(file, name: "finished")
        defer { try? FileManager.default.removeItem(atPath: path) }

        let probe = try Self.probe(path)
        #expect(probe.format == "matroska,webm")
        #expect(abs(probe.duration - 3.0) < 0.05, "duration \(probe.duration)")
        #expect(probe.streams == [Self.Stream(codec: "vp8", width: 320, height: 180, channels: nil, frames: 45),
                                  Self.Stream(codec: "opus", width: nil, height: nil, channels: 1, frames: 150)])
        #expect(try Self.decodeErrors(path).isEmpty)
        // The SeekHead's entry for the Cues (id 1C 53 BB 6B) points at them.
        let entry: [UInt8] = [0x53, 0xAB, 0x84, 0x1C, 0x53, 0xBB, 0x6B, 0x53, 0xAC, 0x88]
        let found = try #require((0..<200).first { Array(file[$0..<$0 + entry.count]) == entry })
        let position = file[(found + entry.count)..<(found + entry.count + 8)].reduce(0) { $0 << 8 | Int($1) }
        let segmentDataStart = try #require((0..<100).first { Array(file[$0..<$0 + 4]) == [0x18, 0x53, 0x80, 0x67] }) + 12
        #expect(Array(file[(segmentDataStart + position)..<(segmentDataStart + position + 4)]) == [0x1C, 0x53, 0xBB, 0x6B])
        // One cue point a second, each at a cluster that starts with that key frame.
        let cues = Self.cuePoints(in: file, at: segmentDataStart + position)
        #expect(cues.map(\.milliseconds) == [0, 1_000, 2_000])
        for cue in cues {
            let cluster = segmentDataStart + cue.clusterPosition
            #expect(Array(file[cluster..<cluster + 4]) == [0x1F, 0x43, 0xB6, 0x75], "cue at \(cue.milliseconds) ms")
        }
    }

    /// The (time, cluster position) of every CuePoint of the Cues element at `offset` (a reader of just that much
    /// EBML, written for the test).
    private static func cuePoints(in file: [UInt8], at offset: Int) -> [(milliseconds: Int, clusterPosition: Int)] {
        func vint(_ at: Int, keepMarker: Bool) -> (value: Int, length: Int) {
            let length = file[at].leadingZeroBitCount + 1
            var value = keepMarker ? Int(file[at]) : Int(file[at] & (0xFF >> length))
            for index in 1..<length { value = value << 8 | Int(file[at + index]) }
            return (value, length)
        }
        func children(_ start: Int, _ end: Int) -> [(id: Int, body: Range<Int>)] {
            var result: [(id: Int, body: Range<Int>)] = []
            var at = start
            while at < end {
                let id = vint(at, keepMarker: true)
                let size = vint(at + id.length, keepMarker: false)
                let body = at + id.length + size.length
                result.append((id.value, body..<body + size.value))
                at = body + size.value
            }
            return result
        }
        func unsigned(_ range: Range<Int>) -> Int { file[range].reduce(0) { $0 << 8 | Int($1) } }
        guard let cues = children(offset, file.count).first, cues.id == 0x1C53_BB6B else { return [] }
        return children(cues.body.lowerBound, cues.body.upperBound).filter { $0.id == 0xBB }.map { point in
            let fields = children(point.body.lowerBound, point.body.upperBound)
            let time = fields.first { $0.id == 0xB3 }.map { unsigned($0.body) } ?? -1
            let positions = fields.first { $0.id == 0xB7 }.map { children($0.body.lowerBound, $0.body.upperBound) } ?? []
            let cluster = positions.first { $0.id == 0xF1 }.map { unsigned($0.body) } ?? -1
            return (time, cluster)
        }
    }

    /// A writer killed before ``WebMWriter/finish()``: what it had handed out (the header and every closed cluster)
    /// plays, exactly the frames before the last key frame (which opened the cluster never written).
    @Test func aFileWhoseWriterNeverFinishedStillPlays() throws {
        let path = try Self.write(try Self.file(try Self.media(seconds: 3), finish: false), name: "killed")
        defer { try? FileManager.default.removeItem(atPath: path) }

        let probe = try Self.probe(path)
        #expect(probe.streams == [Self.Stream(codec: "vp8", width: 320, height: 180, channels: nil, frames: 30),
                                  Self.Stream(codec: "opus", width: nil, height: nil, channels: 1, frames: 100)])
        #expect(try Self.decodeErrors(path).isEmpty)
    }

    // MARK: Media and the oracle

    /// The file a writer makes of `media`: what it handed out, and with `finish` its ending applied.
    private static func file(_ media: [Frame], finish: Bool) throws -> [UInt8] {
        var writer = try WebMWriter(tracks: tracks)
        var file = writer.header
        for frame in media {
            file += try writer.append(frame.bytes, track: frame.track, milliseconds: frame.milliseconds,
                                      keyFrame: frame.keyFrame, durationMilliseconds: frame.duration)
        }
        guard finish else { return file }
        let ending = writer.finish()
        file += ending.appended
        for patch in ending.patches { file.replaceSubrange(patch.offset..<patch.offset + patch.bytes.count, with: patch.bytes) }
        return file
    }

    static let tracks = [WebMTrack(number: 1, media: .vp8(width: 320, height: 180), name: "camera"),
                                 WebMTrack(number: 2, media: .opus(channels: 1, preSkip: 312), name: "mix")]

    struct Frame {
        var bytes: [UInt8]
        var track: Int
        var milliseconds: Int64
        var keyFrame: Bool
        var duration: Int64
    }

    /// Video (track 1) and audio (track 2) interleaved by time, video first at equal times.
    static func media(seconds: Int, keyFrameEvery: Int = 15, video withVideo: Bool = true) throws -> [Frame] {
        let pattern = try VideoTestPattern(width: 320, height: 180, color: .green)
        let video = try VP8Encoder(configuration: .init(width: 320, height: 180, bitrate: 300_000, maxFrameRate: 15))
        let opus = try OpusEncoder(format: .mono48k, application: .voip, dtx: false)
        var tone = ToneGenerator(frequency: 440, format: .mono48k)
        var frames: [Frame] = []
        for index in 0..<(withVideo ? seconds * 15 : 0) {
            let milliseconds = Int64(index) * 1_000 / 15
            let encoded = try #require(try video.encode(pattern.image(frame: index), timestamp: UInt32(index * 6_000),
                                                       forceKeyframe: index % keyFrameEvery == 0))
            frames.append(Frame(bytes: encoded.bytes, track: 1, milliseconds: milliseconds, keyFrame: encoded.isKeyframe,
                                duration: 67))
        }
        for index in 0..<(seconds * 50) {
            frames.append(Frame(bytes: try opus.encode(tone.next()), track: 2, milliseconds: Int64(index) * 20,
                                keyFrame: true, duration: 20))
        }
        return frames.enumerated().sorted { ($0.element.milliseconds, $0.offset) < ($1.element.milliseconds, $1.offset) }
            .map(\.element)
    }

    struct Stream: Equatable {
        var codec: String
        var width: Int?
        var height: Int?
        var channels: Int?
        var frames: Int
    }

    static func write(_ bytes: [UInt8], name: String) throws -> String {
        let path = NSTemporaryDirectory() + "carillon-webm-\(name)-\(UUID().uuidString).webm"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func probe(_ path: String) throws -> (format: String, duration: Double, streams: [Stream]) {
        let output = try run("ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                                         "format=format_name,duration:stream=codec_name,width,height,channels,nb_read_frames",
                                         "-of", "json", path]).output
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let format = try #require(json["format"] as? [String: Any])
        let streams = try #require(json["streams"] as? [[String: Any]]).map { stream in
            Stream(codec: stream["codec_name"] as? String ?? "", width: stream["width"] as? Int,
                   height: stream["height"] as? Int, channels: stream["channels"] as? Int,
                   frames: Int(stream["nb_read_frames"] as? String ?? "") ?? -1)
        }
        return (format["format_name"] as? String ?? "", Double(format["duration"] as? String ?? "") ?? -1, streams)
    }

    /// What ffmpeg says while decoding the whole file (nothing when it decodes cleanly).
    static func decodeErrors(_ path: String) throws -> String {
        try run("ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"]).errors
    }

    private static func run(_ tool: String, _ arguments: [String]) throws -> (output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(tool) failed: \(String(decoding: err, as: UTF8.self))")
        return (String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
