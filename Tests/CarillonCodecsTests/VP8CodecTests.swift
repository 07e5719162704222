import CarillonCodecs
import Testing

/// libvpx VP8 through the Swift wrappers: the synthetic camera survives coding frame by frame, keyframes come when
/// they should and carry the right header, rate control holds its target, bad data is a typed error the decoder
/// recovers from, and size changes reach the decoder.
@Suite struct VP8CodecTests {
    /// The 90 kHz timestamp step at 15 frames per second.
    static let step = 90_000 / 15

    /// Encodes frames `range` of `pattern`, forcing keyframes at `forced`; nil entries are frames rate control dropped.
    static func encode(_ encoder: VP8Encoder, _ pattern: VideoTestPattern, _ range: Range<Int>, forced: Set<Int> = []) throws -> [EncodedVideoFrame?] {
        try range.map { frame in
            try encoder.encode(pattern.image(frame: frame), timestamp: UInt32(frame * step), forceKeyframe: forced.contains(frame))
        }
    }

    /// Checks the RFC 6386 frame header by hand: the keyframe bit, the start code and the 14-bit sizes.
    static func expectHeader(_ frame: EncodedVideoFrame, width: Int, height: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = frame.bytes
        #expect(bytes.count > 10, sourceLocation: sourceLocation)
        guard bytes.count > 10 else { return }
        #expect((bytes[0] & 1 == 0) == frame.isKeyframe, "frame tag bit 0 must be 0 exactly for keyframes", sourceLocation: sourceLocation)
        #expect(bytes[0] & 0x10 != 0, "show_frame", sourceLocation: sourceLocation)
        if frame.isKeyframe {
            #expect(Array(bytes[3..<6]) == [0x9D, 0x01, 0x2A], sourceLocation: sourceLocation)
            #expect(Int(bytes[6]) | Int(bytes[7] & 0x3F) << 8 == width, sourceLocation: sourceLocation)
            #expect(Int(bytes[8]) | Int(bytes[9] & 0x3F) << 8 == height, sourceLocation: sourceLocation)
            #expect(bytes[7] >> 6 == 0 && bytes[9] >> 6 == 0, "no upscaling asked", sourceLocation: sourceLocation)
        }
        let header = VP8FrameHeader(bytes)
        #expect(header?.isKeyframe == frame.isKeyframe, sourceLocation: sourceLocation)
        #expect(header?.width == (frame.isKeyframe ? width : nil), sourceLocation: sourceLocation)
        #expect(header?.height == (frame.isKeyframe ? height : nil), sourceLocation: sourceLocation)
        #expect(header.map { $0.firstPartitionSize > 0 && $0.firstPartitionSize < bytes.count } == true, sourceLocation: sourceLocation)
    }

    @Test(arguments: [(320, 180, 300_000), (640, 360, 600_000), (333, 187, 300_000)])
    func patternSurvivesEveryFrame(width: Int, height: Int, bitrate: Int) throws {
        let pattern = try VideoTestPattern(width: width, height: height, color: .orange)
        let encoder = try VP8Encoder(configuration: .init(width: width, height: height, bitrate: bitrate, maxFrameRate: 15))
        let decoder = try VP8Decoder()
        let frames = try Self.encode(encoder, pattern, 0..<60, forced: [30])
        // Rate control may drop a frame, but not at these generous rates, and never the first.
        #expect(frames.compactMap { $0 }.count >= 58)
        #expect(frames[0]?.isKeyframe == true)
        var keyframeDue = false
        for (index, frame) in frames.enumerated() {
            if index == 30 { keyframeDue = true }
            guard let frame else { continue }
            // Only the first frame and the one forced (or the next kept after it, had it been dropped) are keyframes.
            #expect(frame.isKeyframe == (index == 0 || keyframeDue), "frame \(index)")
            if frame.isKeyframe { keyframeDue = false }
            #expect(frame.timestamp == UInt32(index * Self.step))
            #expect(frame.width == width && frame.height == height)
            Self.expectHeader(frame, width: width, height: height)
            let image = try #require(try decoder.decode(frame.bytes), "frame \(index)")
            #expect(image.width == width && image.height == height)
            let reading = VideoPatternReading(image)
            #expect(reading.counter == index, "frame \(index)")
            #expect(reading.nearestColor() == .orange, "frame \(index): Y \(reading.meanY) U \(reading.meanU) V \(reading.meanV)")
        }
        #expect(decoder.width == width && decoder.height == height)
    }

    @Test func requestKeyframeAndPeriodicKeyframes() throws {
        let pattern = try VideoTestPattern(width: 320, height: 180, color: .blue)
        let camera = try VP8Encoder(configuration: .init(width: 320, height: 180, bitrate: 300_000, maxFrameRate: 15))
        _ = try Self.encode(camera, pattern, 0..<5)
        camera.requestKeyframe()
        let afterRequest = try Self.encode(camera, pattern, 5..<40).compactMap { $0 }
        #expect(afterRequest.map(\.isKeyframe) == [true] + Array(repeating: false, count: afterRequest.count - 1))

        // Screen content with a keyframe every 15 frames: frames 0, 15, 30 are keyframes and no other.
        let screen = try VP8Encoder(configuration: .init(width: 320, height: 180, bitrate: 300_000, maxFrameRate: 15,
                                                         content: .screen, keyframeInterval: 15))
        let frames = try Self.encode(screen, pattern, 0..<45)
        let keyframes = frames.enumerated().filter { $0.element?.isKeyframe == true }.map(\.offset)
        #expect(keyframes == [0, 15, 30], "keyframes at \(keyframes)")
        let decoder = try VP8Decoder()
        for (index, frame) in frames.enumerated() {
            guard let frame else { continue }
            let image = try #require(try decoder.decode(frame.bytes))
            #expect(VideoPatternReading(image).counter == index)
        }
    }

    /// A check that the rate-control settings are applied (CBR with the buffer model above), not a performance
    /// figure: 10 s of the moving pattern at 15 fps must cost 50-130 % of the target, and after a run-time bitrate
    /// change the next 10 s must follow the new target.
    @Test func rateControlFollowsTheTarget() throws {
        let pattern = try VideoTestPattern(width: 320, height: 180, color: .green)
        let encoder = try VP8Encoder(configuration: .init(width: 320, height: 180, bitrate: 300_000, maxFrameRate: 15))
        let first = try Self.encode(encoder, pattern, 0..<150).compactMap { $0 }.reduce(0) { $0 + $1.bytes.count }
        let target = 300_000 * 10 / 8
        #expect(first >= target / 2 && first <= target * 13 / 10, "\(first) bytes for a target of \(target)")

        try encoder.setBitrate(120_000)
        #expect(encoder.configuration.bitrate == 120_000)
        let frames = try Self.encode(encoder, pattern, 150..<300)
        #expect(frames.allSatisfy { $0?.isKeyframe != true }, "a bitrate change must not restart the stream")
        let second = frames.compactMap { $0 }.reduce(0) { $0 + $1.bytes.count }
        let lower = 120_000 * 10 / 8
        #expect(second >= lower / 2 && second <= lower * 13 / 10, "\(second) bytes for a target of \(lower)")

        // Halving the frame rate at the same bitrate doubles the bits each frame gets.
        try encoder.setMaxFrameRate(7)
        let perFrameBefore = Double(second) / Double(frames.compactMap { $0 }.count)
        let slower = try (300..<330).compactMap { frame in
            try encoder.encode(pattern.image(frame: frame), timestamp: UInt32(300 * Self.step + (frame - 300) * 90_000 / 7))
        }
        let perFrameAfter = Double(slower.dropFirst(10).reduce(0) { $0 + $1.bytes.count }) / Double(slower.count - 10)
        #expect(perFrameAfter > 1.4 * perFrameBefore, "\(perFrameBefore) then \(perFrameAfter) bytes a frame")
    }

    @Test func decoderRejectsBadDataAndRecoversOnTheNextKeyframe() throws {
        let pattern = try VideoTestPattern(width: 320, height: 180, color: .cyan)
        let encoder = try VP8Encoder(configuration: .init(width: 320, height: 180, bitrate: 300_000, maxFrameRate: 15))
        let frames = try Self.encode(encoder, pattern, 0..<20, forced: [10]).map { try #require($0) }
        var random = SeededGenerator(seed: 7)
        let garbage = (0..<400).map { _ in UInt8.random(in: 0...255, using: &random) }

        // A fresh decoder: an empty frame, garbage looking like an inter frame, garbage looking like a keyframe.
        let decoder = try VP8Decoder()
        #expect(throws: VideoCodecError.emptyFrame) { try decoder.decode([]) }
        #expect(throws: VideoCodecError.keyframeRequired) { try decoder.decode([garbage[0] | 1] + garbage.dropFirst()) }
        let fakeKeyframe = [garbage[0] & 0xFE] + garbage.dropFirst()
        let error = try #require(throws: VideoCodecError.self) { try decoder.decode(fakeKeyframe) }
        #expect(error.isCorruptData)
        guard case .library(let code, _, _) = error else { Issue.record("expected a libvpx error, got \(error)"); return }
        #expect(code != 0)
        // A truncated keyframe at the start of a stream.
        let cut = try #require(throws: VideoCodecError.self) { try decoder.decode(Array(frames[0].bytes.prefix(frames[0].bytes.count / 2))) }
        #expect(cut.isCorruptData)
        #expect(decoder.needsKeyframe)
        // The whole keyframe then decodes, and so does what follows.
        for index in 0..<5 {
            let image = try #require(try decoder.decode(frames[index].bytes))
            #expect(VideoPatternReading(image).counter == index)
        }

        // Mid-stream: garbage and a truncated keyframe are errors, inter frames are refused until a keyframe.
        #expect(throws: VideoCodecError.self) { try decoder.decode([garbage[0] | 1] + garbage.dropFirst()) }
        #expect(decoder.needsKeyframe)
        #expect(throws: VideoCodecError.keyframeRequired) { try decoder.decode(frames[5].bytes) }
        let truncated = Array(frames[10].bytes.prefix(frames[10].bytes.count / 2))
        let midCut = try #require(throws: VideoCodecError.self) { try decoder.decode(truncated) }
        #expect(midCut.isCorruptData, "\(midCut)")
        #expect(throws: VideoCodecError.keyframeRequired) { try decoder.decode(frames[11].bytes) }
        for index in 10..<20 {
            let image = try #require(try decoder.decode(frames[index].bytes))
            #expect(VideoPatternReading(image).counter == index)
        }
        #expect(!decoder.needsKeyframe)
    }

    @Test func resolutionChangesReachTheDecoder() throws {
        let large = try VideoTestPattern(width: 640, height: 360, color: .magenta)
        let small = try VideoTestPattern(width: 320, height: 180, color: .magenta)
        let encoder = try VP8Encoder(configuration: .init(width: 640, height: 360, bitrate: 600_000, maxFrameRate: 15))
        let decoder = try VP8Decoder()
        var frame = 0
        func run(_ pattern: VideoTestPattern, count: Int) throws {
            for _ in 0..<count {
                defer { frame += 1 }
                guard let encoded = try encoder.encode(pattern.image(frame: frame), timestamp: UInt32(frame * Self.step)) else { continue }
                #expect(encoded.width == pattern.width && encoded.height == pattern.height)
                Self.expectHeader(encoded, width: pattern.width, height: pattern.height)
                let image = try #require(try decoder.decode(encoded.bytes))
                #expect(image.width == pattern.width && image.height == pattern.height)
                #expect(decoder.width == pattern.width && decoder.height == pattern.height)
                #expect(VideoPatternReading(image).counter == frame)
            }
        }
        try run(large, count: 10)
        #expect(throws: VideoCodecError.sizeMismatch(expectedWidth: 640, expectedHeight: 360, width: 320, height: 180)) {
            try encoder.encode(small.image(frame: 0), timestamp: 0)
        }
        // Shrinking reconfigures in place; the first frame at the new size is a keyframe.
        try encoder.setResolution(width: 320, height: 180)
        let first = try #require(try encoder.encode(small.image(frame: frame), timestamp: UInt32(frame * Self.step)))
        #expect(first.isKeyframe && first.width == 320)
        #expect(VideoPatternReading(try #require(try decoder.decode(first.bytes))).counter == frame)
        frame += 1
        try run(small, count: 10)
        // Growing past the first size recreates the encoder.
        try encoder.setResolution(width: 640, height: 360)
        try run(large, count: 10)
        #expect(decoder.width == 640)
    }

    @Test func rejectsBadSettings() throws {
        #expect(throws: VideoCodecError.self) { try VP8Encoder(configuration: .init(width: 0, height: 180, bitrate: 300_000)) }
        #expect(throws: VideoCodecError.self) { try VP8Encoder(configuration: .init(width: 16_384, height: 180, bitrate: 300_000)) }
        #expect(throws: VideoCodecError.self) { try VP8Encoder(configuration: .init(width: 320, height: 180, bitrate: 10)) }
        #expect(throws: VideoCodecError.self) { try VP8Encoder(configuration: .init(width: 320, height: 180, bitrate: 300_000, maxFrameRate: 0)) }
        #expect(throws: VideoCodecError.self) {
            try VP8Encoder(configuration: .init(width: 320, height: 180, bitrate: 300_000, keyframeInterval: 0))
        }
        #expect(throws: VideoCodecError.self) { try VP8Decoder(threads: 0) }
        let encoder = try VP8Encoder(configuration: .init(width: 320, height: 180, bitrate: 300_000))
        #expect(throws: VideoCodecError.self) { try encoder.setBitrate(0) }
        #expect(throws: VideoCodecError.self) { try encoder.setMaxFrameRate(1000) }
        #expect(throws: VideoCodecError.self) { try encoder.setResolution(width: 320, height: 0) }
        #expect(encoder.configuration == .init(width: 320, height: 180, bitrate: 300_000))
    }

    @Test func frameHeaderParsing() {
        #expect(VP8FrameHeader([0x00, 0x01]) == nil)
        // A keyframe tag without the start code.
        #expect(VP8FrameHeader([0x10, 0x02, 0x00, 0x9D, 0x01, 0x2B, 0x40, 0x01, 0xB4, 0x00]) == nil)
        // Keyframe, version 0, shown, first partition 16 bytes, 320x180, horizontal scale 1.
        let keyframe = VP8FrameHeader([0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x41, 0xB4, 0x00])
        #expect(keyframe?.isKeyframe == true && keyframe?.isShown == true && keyframe?.version == 0)
        #expect(keyframe?.firstPartitionSize == 16)
        #expect(keyframe?.width == 320 && keyframe?.height == 180)
        #expect(keyframe?.horizontalScale == 1 && keyframe?.verticalScale == 0)
        // Inter frame, version 1, not shown, first partition 0x7FFFF bytes.
        let inter = VP8FrameHeader([0x03 | 0xE0, 0xFF, 0xFF][...])
        #expect(inter?.isKeyframe == false && inter?.isShown == false && inter?.version == 1)
        #expect(inter?.firstPartitionSize == 0x7FFFF && inter?.width == nil)
    }
}
