/// Why bytes are not an acceptable STUN message.
public enum STUNError: Error, Equatable, CustomStringConvertible {
    /// Shorter than a header, or an attribute runs past the end.
    case truncated
    /// The first two bits are not zero, or the magic cookie is wrong.
    case notSTUN
    /// The header's length disagrees with the datagram or is not a multiple of 4.
    case badLength
    /// An attribute's value is malformed; the type is given.
    case malformedAttribute(UInt16)
    /// Attributes follow FINGERPRINT, or something other than FINGERPRINT follows MESSAGE-INTEGRITY.
    case misplacedAttribute(UInt16)

    public var description: String {
        switch self {
        case .truncated: "STUN message truncated"
        case .notSTUN: "not a STUN message"
        case .badLength: "STUN length field does not match"
        case .malformedAttribute(let type): "malformed STUN attribute 0x\(String(type, radix: 16))"
        case .misplacedAttribute(let type): "STUN attribute 0x\(String(type, radix: 16)) after MESSAGE-INTEGRITY or FINGERPRINT"
        }
    }
}
