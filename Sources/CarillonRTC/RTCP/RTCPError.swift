/// Why bytes are not an acceptable RTCP compound packet.
public enum RTCPError: Error, Equatable, CustomStringConvertible {
    /// A packet runs past the datagram, or the datagram is empty.
    case truncated
    /// The version is not 2.
    case badVersion
    /// A packet's length or padding does not fit its contents.
    case badLength
    /// A field holds a value the format forbids (a reserved symbol, an empty list, text that is not UTF-8, ...).
    case badField

    public var description: String {
        switch self {
        case .truncated: "RTCP packet truncated"
        case .badVersion: "not RTCP version 2"
        case .badLength: "RTCP packet length does not fit its contents"
        case .badField: "RTCP packet field holds a forbidden value"
        }
    }
}
