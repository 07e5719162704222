/// One track of a WebM file: VP8 video of a size, or Opus audio.
///
/// A value; no threading concerns.
public struct WebMTrack: Sendable, Equatable {
    /// What the track carries.
    public enum Media: Sendable, Equatable {
        /// VP8 frames as received (RFC 7741 payloads reassembled), `width`x`height` from the first key frame.
        case vp8(width: Int, height: Int)
        /// Opus packets of 48 kHz audio with `channels` channels (1 or 2); `preSkip` samples at 48 kHz are the
        /// encoder's delay (RFC 7845 §4.2), which a player drops from the start.
        case opus(channels: Int, preSkip: Int)
    }

    /// The track number blocks name (1-127).
    public var number: Int
    /// What it carries.
    public var media: Media
    /// A name shown by players (an attendee's name, "mix").
    public var name: String?

    /// A track; `number` must be 1-127 (``WebMWriter`` refuses others).
    public init(number: Int, media: Media, name: String? = nil) {
        self.number = number
        self.media = media
        self.name = name
    }

    /// Whether the track is video (its key frames start clusters and are indexed).
    public var isVideo: Bool {
        if case .vp8 = media { return true }
        return false
    }

    /// The Matroska codec id.
    var codecId: String {
        switch media {
        case .vp8: "V_VP8"
        case .opus: "A_OPUS"
        }
    }

    /// The Opus identification header (RFC 7845 §5.1) the track's CodecPrivate carries; nil for video.
    var codecPrivate: [UInt8]? {
        guard case .opus(let channels, let preSkip) = media else { return nil }
        var header = Array("OpusHead".utf8)
        header.append(1)
        header.append(UInt8(truncatingIfNeeded: channels))
        header += [UInt8(truncatingIfNeeded: preSkip), UInt8(truncatingIfNeeded: preSkip >> 8)]
        let rate: UInt32 = 48_000
        header += (0..<4).map { UInt8(truncatingIfNeeded: rate >> (8 * UInt32($0))) }
        header += [0, 0, 0]  // output gain 0, channel mapping family 0
        return header
    }
}
