/// Why ``WebMWriter`` refused a track or a frame; the file written so far stays valid.
public enum WebMWriterError: Error, Equatable, CustomStringConvertible {
    /// Track numbers must be 1-127 and distinct, and a file needs at least one track.
    case invalidTracks(String)
    /// A frame named a track the file does not have.
    case unknownTrack(Int)
    /// A frame came before the file's origin, or before the previous frame of its track.
    case timestampWentBack(track: Int, milliseconds: Int64)
    /// A frame after ``WebMWriter/finish()``.
    case finished

    public var description: String {
        switch self {
        case .invalidTracks(let reason): "WebM tracks: \(reason)"
        case .unknownTrack(let number): "WebM: no track \(number)"
        case .timestampWentBack(let track, let milliseconds): "WebM: track \(track) went back to \(milliseconds) ms"
        case .finished: "WebM: the file is finished"
        }
    }
}
