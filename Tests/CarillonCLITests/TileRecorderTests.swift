import Carillon
import CarillonCodecs
import Foundation
import CarillonMedia
import Testing
@testable import carillon

/// `carillon join --video-out`: files numbered per name for the whole process, never truncated, frames adding up;
/// and `videoStats` rates that are never negative.
struct TileRecorderTests {
    func directory() throws -> String {
        let path = NSTemporaryDirectory() + "carillon-tiles-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    func frame(width: Int, height: Int) throws -> VideoFrame {
        VideoFrame(timestampNs: 0, rotation: .rotation0,
                   buffer: VideoFrameI420Buffer(image: try I420Image(width: width, height: height, y: 80, u: 128, v: 128)))
    }

    /// Frames per file, by file name.
    func frames(in directory: String) throws -> [String: Int] {
        var result: [String: Int] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasSuffix(".y4m") {
            let reader = try Y4MReader(contentsOf: (directory as NSString).appendingPathComponent(file))
            var count = 0
            while try reader.nextFrame() != nil { count += 1 }
            result[file] = count
        }
        return result
    }

    @Test func aSizeChangeAndATileAddedAgainContinueInNumberedFiles() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = RecordingFiles(directory: directory)
        let first = TileRecorder.TileSink(tileId: 1, name: "alice", files: files)
        for _ in 0..<4 { first.onVideoFrameReceived(frame: try frame(width: 64, height: 48)) }
        for _ in 0..<3 { first.onVideoFrameReceived(frame: try frame(width: 32, height: 24)) }
        first.close()
        // A frame still in flight for the removed tile is neither written nor counted.
        first.onVideoFrameReceived(frame: try frame(width: 32, height: 24))
        // The tile comes back under the same id with a new sink: a new file, the first two untouched.
        let again = TileRecorder.TileSink(tileId: 1, name: "alice", files: files)
        for _ in 0..<5 { again.onVideoFrameReceived(frame: try frame(width: 64, height: 48)) }
        // Another attendee keeps its own numbering.
        let bob = TileRecorder.TileSink(tileId: 2, name: "bob", files: files)
        for _ in 0..<2 { bob.onVideoFrameReceived(frame: try frame(width: 16, height: 16)) }
        again.close()
        bob.close()
        #expect(try frames(in: directory) == ["alice.y4m": 4, "alice-2.y4m": 3, "alice-3.y4m": 5, "bob.y4m": 2])
        #expect(first.counts.withLock { $0.frames } + again.counts.withLock { $0.frames } == 12)
    }

    /// ExternalUserIds are other attendees' input: a name with `..` and `/` (valid for Chime) stays a file inside the
    /// directory.
    @Test func namesFromOtherAttendeesStayInsideTheDirectory() throws {
        #expect(SafeFileName.make("../../esc-3e9c45") == "_._.._esc-3e9c45")
        #expect(SafeFileName.make(".hidden") == "_hidden")
        #expect(SafeFileName.make("..") == "_.")
        #expect(SafeFileName.make("") == "_")
        #expect(SafeFileName.make("carol#content") == "carol#content")
        #expect(SafeFileName.make("a b\u{0}c/é") == "a_b_c__")
        #expect(SafeFileName.make(String(repeating: "x", count: 300)).utf8.count == SafeFileName.maximumLength)
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = TileRecorder.TileSink(tileId: 1, name: "../../esc", files: RecordingFiles(directory: directory))
        sink.onVideoFrameReceived(frame: try frame(width: 32, height: 32))
        sink.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["_._.._esc.y4m"])
    }

    @Test func anExistingFileIsSkippedNotTruncated() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let earlier = (directory as NSString).appendingPathComponent("carol#content.y4m")
        try Data("left by an earlier run".utf8).write(to: URL(fileURLWithPath: earlier))
        let sink = TileRecorder.TileSink(tileId: 3, name: "carol#content", files: RecordingFiles(directory: directory))
        sink.onVideoFrameReceived(frame: try frame(width: 32, height: 32))
        sink.close()
        #expect(try String(contentsOfFile: earlier, encoding: .utf8) == "left by an earlier run")
        let written = (directory as NSString).appendingPathComponent("carol#content-2.y4m")
        let reader = try Y4MReader(contentsOf: written)
        #expect(try reader.nextFrame() != nil)
        #expect(try reader.nextFrame() == nil)
    }

    @Test func ratesAreNeverNegativeAndACounterThatStartsAgainCountsFromZero() {
        #expect(TileRecorder.perSecond(current: 30, previous: 15, seconds: 1) == 15)
        #expect(TileRecorder.perSecond(current: 30, previous: nil, seconds: 2) == 15)
        // A reused tile id whose new counter is below the old one's last reading.
        #expect(TileRecorder.perSecond(current: 4, previous: 206, seconds: 1) == 4)
        #expect(TileRecorder.perSecond(current: 0, previous: 206, seconds: 1) == 0)
        #expect(TileRecorder.perSecond(current: 10, previous: 5, seconds: 0) == 0)
    }
}
