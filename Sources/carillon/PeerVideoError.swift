import CarillonCodecs

/// Why `carillon peer --video` could not set up or finish its video.
enum PeerVideoError: Error, CustomStringConvertible {
    /// The pattern refused the picture size.
    case pattern(I420ImageError)
    /// The negotiation left no usable video m-line.
    case notNegotiated
    /// The captured packets could not be written.
    case capture(path: String, reason: String)

    var description: String {
        switch self {
        case .pattern(let error): "video pattern: \(error)"
        case .notNegotiated: "the answer has no VP8 video m-line"
        case .capture(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}
