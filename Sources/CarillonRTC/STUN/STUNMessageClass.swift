/// The class of a STUN message (RFC 8489 §5): the two class bits of the message type.
public enum STUNMessageClass: UInt16, Sendable {
    /// A request, answered by a success or error response.
    case request = 0b00
    /// An indication, never answered.
    case indication = 0b01
    /// A success response.
    case successResponse = 0b10
    /// An error response.
    case errorResponse = 0b11
}
