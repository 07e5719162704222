import CarillonCodecs
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// YUV4MPEG2 files: header fields and frames survive a write and a read (from a file and from bytes), odd sizes
/// included; other colour spaces and damaged streams are typed errors.
@Suite struct Y4MTests {
    /// A fresh path under /tmp for this process.
    static func temporaryPath(_ name: String) -> String { "/tmp/carillon-y4m-\(getpid())-\(name)" }

    /// The whole file at `path`.
    static func contents(_ path: String) throws -> [UInt8] {
        let file = try #require(fopen(path, "rb"))
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }

    @Test(arguments: [(320, 180), (33, 17)])
    func writeThenReadBack(width: Int, height: Int) throws {
        let pattern = try VideoTestPattern(width: width, height: height, color: .yellow)
        let frames = (0..<5).map { pattern.image(frame: $0) }
        let header = Y4MHeader(width: width, height: height, frameRate: .init(30_000, 1001), extensions: ["COLORRANGE=LIMITED"])
        let path = Self.temporaryPath("round-trip-\(width)x\(height).y4m")
        defer { unlink(path) }
        let writer = try Y4MWriter(path: path, header: header)
        for frame in frames { try writer.append(frame) }
        #expect(writer.frameCount == 5)
        #expect(throws: Y4MError.sizeMismatch(expectedWidth: width, expectedHeight: height, width: 8, height: 8)) {
            try writer.append(try I420Image(width: 8, height: 8))
        }
        try writer.close()
        #expect(throws: Y4MError.closed) { try writer.close() }

        let bytes = try Self.contents(path)
        let line = "YUV4MPEG2 W\(width) H\(height) F30000:1001 Ip A1:1 C420 XCOLORRANGE=LIMITED\n"
        #expect(bytes.starts(with: Array(line.utf8)))
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        #expect(bytes.count == line.utf8.count + 5 * (6 + width * height + 2 * chroma))
        #expect(try Y4MWriter.encode(header: header, frames: frames) == bytes)

        for reader in [try Y4MReader(contentsOf: path), try Y4MReader(bytes: bytes)] {
            #expect(reader.header == header)
            var read: [I420Image] = []
            while let frame = try reader.nextFrame() { read.append(frame) }
            #expect(read == frames)
            #expect(reader.framesRead == 5)
            #expect(read.last.map { VideoPatternReading($0).counter } == 4)
            // Looping is a rewind.
            reader.rewind()
            #expect(try reader.nextFrame() == frames[0])
        }
    }

    @Test func paddedImagesAreWrittenWithoutPadding() throws {
        var image = try I420Image(width: 3, height: 2, strideY: 8, strideUV: 4)
        image.fill(y: 7, u: 8, v: 9)
        let bytes = try Y4MWriter.encode(header: Y4MHeader(width: 3, height: 2, colorSpace: nil), frames: [image])
        #expect(bytes == Array("YUV4MPEG2 W3 H2 F30:1 Ip A1:1\nFRAME\n".utf8) + [7, 7, 7, 7, 7, 7, 8, 8, 9, 9])
    }

    @Test func readsWhatOtherToolsWrite() throws {
        // ffmpeg's header order and tags, frame parameters, and a header without F, I, A or C.
        let pixels: [UInt8] = [1, 2, 3, 4, 5, 6]
        let ffmpeg = Array("YUV4MPEG2 W2 H2 F25:1 Ip A0:0 C420jpeg XYSCSS=420JPEG\nFRAME Ixyz\n".utf8) + pixels
        let reader = try Y4MReader(bytes: ffmpeg)
        #expect(reader.header.colorSpace == "420jpeg" && reader.header.pixelAspectRatio == .init(0, 0))
        #expect(reader.header.extensions == ["YSCSS=420JPEG"] && reader.header.frameRate == .init(25, 1))
        #expect(try reader.nextFrame()?.storage == pixels)
        #expect(try reader.nextFrame() == nil)

        let bare = try Y4MReader(bytes: Array("YUV4MPEG2 H2 W2\nFRAME\n".utf8) + pixels)
        #expect(bare.header.colorSpace == nil && bare.header.interlacing == nil && bare.header.frameRate == .init(30, 1))
        #expect(try bare.nextFrame()?.storage == pixels)
        for space in ["420", "420paligned", "420mpeg2"] {
            #expect(try Y4MReader(bytes: Array("YUV4MPEG2 W2 H2 C\(space)\n".utf8)).header.colorSpace == space)
        }
    }

    @Test func rejectsWhatItCannotRead() throws {
        for space in ["422", "444", "mono", "420p10", "444alpha"] {
            #expect(throws: Y4MError.unsupportedColorSpace(space)) { try Y4MReader(bytes: Array("YUV4MPEG2 W2 H2 F30:1 C\(space)\n".utf8)) }
        }
        #expect(throws: Y4MError.unsupportedColorSpace("422")) {
            try Y4MWriter.encode(header: Y4MHeader(width: 2, height: 2, colorSpace: "422"), frames: [])
        }
        #expect(throws: Y4MError.notY4M) { try Y4MReader(bytes: Array("RIFF....WAVE".utf8)) }
        #expect(throws: Y4MError.notY4M) { try Y4MReader(bytes: []) }
        #expect(throws: Y4MError.self) { try Y4MReader(bytes: Array("YUV4MPEG2 W2 H2".utf8)) }
        #expect(throws: Y4MError.self) { try Y4MReader(bytes: Array("YUV4MPEG2 W2\n".utf8)) }
        #expect(throws: Y4MError.self) { try Y4MReader(bytes: Array("YUV4MPEG2 W0 H2\n".utf8)) }
        #expect(throws: Y4MError.self) { try Y4MReader(bytes: Array("YUV4MPEG2 W2 H2 F30\n".utf8)) }
        #expect(throws: Y4MError.self) { try Y4MReader(bytes: Array("YUV4MPEG2 W2 H2 F30:0\n".utf8)) }

        let truncated = try Y4MReader(bytes: Array("YUV4MPEG2 W2 H2\nFRAME\n".utf8) + [1, 2, 3, 4, 5, 6, 0xFF] + Array("FRAME\n".utf8) + [1, 2])
        #expect(throws: Y4MError.invalidFrameMarker(frame: 1)) {
            _ = try truncated.nextFrame()
            _ = try truncated.nextFrame()
        }
        let short = try Y4MReader(bytes: Array("YUV4MPEG2 W2 H2\nFRAME\n".utf8) + [1, 2, 3, 4, 5, 6] + Array("FRAME\n".utf8) + [1, 2])
        #expect(try short.nextFrame() != nil)
        #expect(throws: Y4MError.truncatedFrame(frame: 1)) { try short.nextFrame() }
        #expect(throws: Y4MError.invalidFrameMarker(frame: 0)) { try Y4MReader(bytes: Array("YUV4MPEG2 W2 H2\nFRAMES\n".utf8)).nextFrame() }

        let missing = Self.temporaryPath("missing.y4m")
        #expect(throws: Y4MError.io(operation: "open", path: missing, errno: ENOENT)) { try Y4MReader(contentsOf: missing) }
    }
}
