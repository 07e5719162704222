/// An `a=msid:<stream id> [<track id>]` attribute (RFC 8830): the MediaStream (and track) a media section feeds.
public struct SDPMediaStreamID: Sendable, Equatable, Hashable {
    /// The MediaStream id (`-` means no stream).
    public var streamId: String
    /// The track id, nil when absent.
    public var trackId: String?

    /// Creates an msid.
    public init(streamId: String, trackId: String? = nil) {
        self.streamId = streamId
        self.trackId = trackId
    }

    /// The attribute value without `a=msid:`.
    public var sdpValue: String {
        if let trackId { "\(streamId) \(trackId)" } else { streamId }
    }

    static func parse(_ value: Substring, line: SDPSourceLine) throws(SDPError) -> SDPMediaStreamID {
        let (stream, track) = SDPText.firstField(value)
        guard !stream.isEmpty else { throw line.malformed("msid needs a stream id") }
        return SDPMediaStreamID(streamId: String(stream), trackId: track.isEmpty ? nil : String(track))
    }
}
