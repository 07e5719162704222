import Foundation
import Testing

@testable import CarillonMedia

/// A recording cut into WebM chunks: where the cuts fall, and every chunk checked by ffprobe/ffmpeg (the oracle of
/// ``WebMWriterTests``), including one whose recording was killed before it finished.
struct WebMChunkedRecordingTests {
    /// The effects applied to files in memory, as a shell applies them on disk.
    private struct Files {
        var bytes: [Int: [UInt8]] = [:]
        var starts: [Int: Int64] = [:]
        var finished: Set<Int> = []

        mutating func apply(_ effects: [WebMChunkedRecording.Effect]) {
            for effect in effects {
                switch effect {
                case .create(let index, let start, let header):
                    bytes[index] = header
                    starts[index] = start
                case .append(let index, let appended):
                    bytes[index, default: []] += appended
                case .finish(let index, let ending):
                    bytes[index, default: []] += ending.appended
                    for patch in ending.patches {
                        bytes[index]?.replaceSubrange(patch.offset..<patch.offset + patch.bytes.count, with: patch.bytes)
                    }
                    finished.insert(index)
                }
            }
        }
    }

    private static func record(_ media: [WebMWriterTests.Frame], tracks: [WebMTrack] = WebMWriterTests.tracks,
                               chunk: Int64?, finish: Bool) throws -> (files: Files, keyFrameWanted: [Int64]) {
        var recording = try WebMChunkedRecording(tracks: tracks, chunkMilliseconds: chunk)
        var files = Files()
        var wanted: [Int64] = []
        for frame in media {
            files.apply(try recording.append(frame.bytes, track: frame.track, milliseconds: frame.milliseconds,
                                             keyFrame: frame.keyFrame, durationMilliseconds: frame.duration))
            if frame.track == 1, recording.wantsKeyFrame(at: frame.milliseconds) { wanted.append(frame.milliseconds) }
        }
        if finish { files.apply(recording.finish()) }
        return (files, wanted)
    }

    private static func probe(_ bytes: [UInt8]) throws -> (duration: Double, streams: [WebMWriterTests.Stream], errors: String) {
        let path = try WebMWriterTests.write(bytes, name: "chunk")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let probe = try WebMWriterTests.probe(path)
        return (probe.duration, probe.streams, try WebMWriterTests.decodeErrors(path))
    }

    private static func streams(video: Int, audio: Int) -> [WebMWriterTests.Stream] {
        [.init(codec: "vp8", width: 320, height: 180, channels: nil, frames: video),
         .init(codec: "opus", width: nil, height: nil, channels: 1, frames: audio)]
    }

    /// 12 s with a key frame a second, 5 s chunks, killed before the end: chunks at 0, 5 and 10 s; the first two
    /// finished, 5 s each with every frame; the third plays its closed cluster (10-11 s).
    @Test func chunksStartAtKeyFramesAndAKilledChunkStillPlays() throws {
        let (files, wanted) = try Self.record(try WebMWriterTests.media(seconds: 12), chunk: 5_000, finish: false)
        #expect(files.starts == [0: 0, 1: 5_000, 2: 10_000])
        #expect(files.finished == [0, 1])
        #expect(wanted.isEmpty)
        for index in [0, 1] {
            let chunk = try Self.probe(try #require(files.bytes[index]))
            #expect(abs(chunk.duration - 5.0) < 0.05, "chunk \(index): \(chunk.duration) s")
            #expect(chunk.streams == Self.streams(video: 75, audio: 250), "chunk \(index)")
            #expect(chunk.errors.isEmpty)
        }
        let killed = try Self.probe(try #require(files.bytes[2]))
        #expect(killed.streams == Self.streams(video: 15, audio: 50))
        #expect(killed.errors.isEmpty)
    }

    /// Key frames only every 7 s: the second chunk waits for one (a key frame is wanted from 5 s until it comes at
    /// 7 s), so the first chunk is 7 s long.
    @Test func aDueChunkWaitsForAKeyFrameAndAsksForIt() throws {
        let (files, wanted) = try Self.record(try WebMWriterTests.media(seconds: 10, keyFrameEvery: 105), chunk: 5_000,
                                              finish: true)
        #expect(files.starts == [0: 0, 1: 7_000])
        #expect(files.finished == [0, 1])
        #expect(wanted.first == 5_000 && wanted.last == 6_933 && wanted.count == 30)
        let first = try Self.probe(try #require(files.bytes[0]))
        #expect(abs(first.duration - 7.0) < 0.05)
        #expect(first.streams == Self.streams(video: 105, audio: 350))
    }

    /// Audio only, 12 s, 5 s chunks: cut exactly at 5 and 10 s. Without a chunk length: one file.
    @Test func audioOnlyCutsOnTimeAndWholeIsOneFile() throws {
        let tracks = [WebMTrack(number: 2, media: .opus(channels: 1, preSkip: 312))]
        let media = try WebMWriterTests.media(seconds: 12, video: false)
        let (chunked, _) = try Self.record(media, tracks: tracks, chunk: 5_000, finish: true)
        #expect(chunked.starts == [0: 0, 1: 5_000, 2: 10_000])
        let last = try Self.probe(try #require(chunked.bytes[2]))
        #expect(abs(last.duration - 2.0) < 0.05)
        #expect(last.streams == [.init(codec: "opus", width: nil, height: nil, channels: 1, frames: 100)])
        let (whole, _) = try Self.record(media, tracks: tracks, chunk: nil, finish: true)
        #expect(whole.starts == [0: 0] && whole.finished == [0])
        let file = try Self.probe(try #require(whole.bytes[0]))
        #expect(abs(file.duration - 12.0) < 0.05 && file.errors.isEmpty)
        // Audio frames come marked as key frames (each decodes on its own), yet a cluster spans 5 s, not a frame.
        let bytes = try #require(whole.bytes[0])
        let clusters = (0..<bytes.count - 4).filter { Array(bytes[$0..<$0 + 4]) == [0x1F, 0x43, 0xB6, 0x75] }
        #expect(clusters.count == 3)
    }
}
