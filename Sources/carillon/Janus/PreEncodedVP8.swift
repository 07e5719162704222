import CarillonCodecs

/// A few seconds of 640x360 VP8 encoded once before a benchmark, so its publisher bots send real video without
/// encoding per frame.
///
/// The loop starts with a key frame and every other frame refers only to the ones before it, so sending it again
/// from the start (with timestamps and PictureIDs that keep increasing) is a valid stream with a key frame every
/// loop. Why: ten publishers encoding live would measure the load generator, not the server. Cost: `frames` encodes
/// at creation (about 10 ms each); afterwards the frames are shared read-only. Threading: a value, safe anywhere.
struct PreEncodedVP8: Sendable {
    /// The encoded frames in order; the first is a key frame.
    let frames: [[UInt8]]
    /// The frame rate the loop was encoded for.
    let frameRate: Int
    /// The picture size.
    let width: Int
    let height: Int

    /// Encodes `frames` pictures of a moving ``VideoTestPattern`` at `bitrate` bit/s (rate control may drop some;
    /// those are left out, so the loop can be a little shorter).
    init(width: Int = 640, height: Int = 360, frameRate: Int = 15, frames count: Int = 60, bitrate: Int = 600_000,
         color: VideoTestPattern.Color = .green) throws {
        let pattern = try VideoTestPattern(width: width, height: height, color: color)
        let encoder = try VP8Encoder(configuration: .init(width: width, height: height, bitrate: bitrate,
                                                          maxFrameRate: frameRate))
        var frames: [[UInt8]] = []
        for index in 0..<count {
            let timestamp = UInt32(index * 90_000 / frameRate)
            guard let frame = try encoder.encode(pattern.image(frame: index), timestamp: timestamp,
                                                 forceKeyframe: index == 0) else { continue }
            // Only the first frame may be a key frame: a later one would still be valid, but the loop's shape (one
            // key frame per loop) is what the bench reports.
            if frames.isEmpty, !frame.isKeyframe { continue }
            frames.append(frame.bytes)
        }
        self.frames = frames
        self.frameRate = frameRate
        self.width = width
        self.height = height
    }

    /// The loop's mean bitrate, bit/s.
    var bitrate: Int { frames.reduce(0) { $0 + $1.count } * 8 * frameRate / max(1, frames.count) }
}
