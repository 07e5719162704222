/// Bounds that keep the SDP parser's work and memory small whatever it is fed.
public struct SDPParsingLimits: Sendable, Equatable, Hashable {
    /// Largest accepted text, in UTF-8 bytes.
    ///
    /// The default, 256 KiB, fits well over a hundred Chromium video sections (about 2-3.5 KiB each with every codec):
    /// a meeting offer grows by one recvonly video section per subscribed stream.
    public var maximumBytes: Int
    /// Longest accepted line, in UTF-8 bytes, counting a CR before the LF but not the LF.
    public var maximumLineLength: Int
    /// Most accepted `m=` sections.
    public var maximumMediaSections: Int
    /// Most distinct `a=rtcp-fb` values for one payload type; bounds what `a=rtcp-fb:*` lines multiply into.
    public var maximumFeedbackPerCodec: Int

    /// Creates limits.
    public init(maximumBytes: Int = 256 * 1024, maximumLineLength: Int = 8 * 1024, maximumMediaSections: Int = 256,
                maximumFeedbackPerCodec: Int = 64) {
        self.maximumBytes = maximumBytes
        self.maximumLineLength = maximumLineLength
        self.maximumMediaSections = maximumMediaSections
        self.maximumFeedbackPerCodec = maximumFeedbackPerCodec
    }
}
