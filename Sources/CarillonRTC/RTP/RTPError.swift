/// Why bytes are not an acceptable RTP packet.
public enum RTPError: Error, Equatable, CustomStringConvertible {
    /// Shorter than its header, CSRC list or extension block say.
    case truncated
    /// The version is not 2.
    case badVersion
    /// The padding count is zero or longer than the payload.
    case badPadding
    /// A header extension runs past its block.
    case badExtension

    public var description: String {
        switch self {
        case .truncated: "RTP packet truncated"
        case .badVersion: "not RTP version 2"
        case .badPadding: "bad RTP padding"
        case .badExtension: "malformed RTP header extension"
        }
    }
}
