/// A media section's (or header extension's) direction attribute (RFC 8866 §6.7), seen from the side that wrote it.
public enum SDPDirection: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Sends and receives (the default when a media section has no direction attribute).
    case sendrecv
    /// Sends only.
    case sendonly
    /// Receives only.
    case recvonly
    /// Neither sends nor receives.
    case inactive

    /// The direction as the other side sees it: `sendonly` ↔ `recvonly`; the others are unchanged.
    public var reversed: SDPDirection {
        switch self {
        case .sendonly: .recvonly
        case .recvonly: .sendonly
        case .sendrecv, .inactive: self
        }
    }

    /// Whether the writer sends media.
    public var sends: Bool { self == .sendrecv || self == .sendonly }

    /// Whether the writer receives media.
    public var receives: Bool { self == .sendrecv || self == .recvonly }
}
