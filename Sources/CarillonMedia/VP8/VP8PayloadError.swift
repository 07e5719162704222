/// Why a VP8 RTP payload cannot be used.
public enum VP8PayloadError: Error, Equatable, CustomStringConvertible {
    /// The payload ends inside its descriptor, or carries no VP8 data after it.
    case truncated
    /// The descriptor has TL0PICIDX without a temporal layer index, which RFC 7741 forbids.
    case tl0WithoutTemporalLayer

    public var description: String {
        switch self {
        case .truncated: "VP8 payload truncated"
        case .tl0WithoutTemporalLayer: "VP8 descriptor has TL0PICIDX without TID"
        }
    }
}
