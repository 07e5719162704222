/// One STUN attribute (RFC 8489 §14, ICE attributes of RFC 8445 §16.1).
public enum STUNAttribute: Sendable, Equatable {
    /// MAPPED-ADDRESS (0x0001).
    case mappedAddress(STUNAddress)
    /// USERNAME (0x0006).
    case username(String)
    /// MESSAGE-INTEGRITY (0x0008): HMAC-SHA1, 20 bytes.
    case messageIntegrity([UInt8])
    /// ERROR-CODE (0x0009).
    case errorCode(code: Int, reason: String)
    /// XOR-MAPPED-ADDRESS (0x0020).
    case xorMappedAddress(STUNAddress)
    /// PRIORITY (0x0024).
    case priority(UInt32)
    /// USE-CANDIDATE (0x0025).
    case useCandidate
    /// SOFTWARE (0x8022).
    case software(String)
    /// FINGERPRINT (0x8028): CRC-32 of the message XOR 0x5354554e.
    case fingerprint(UInt32)
    /// ICE-CONTROLLED (0x8029) with its tie-breaker.
    case iceControlled(UInt64)
    /// ICE-CONTROLLING (0x802A) with its tie-breaker.
    case iceControlling(UInt64)
    /// Any other attribute, kept as it came.
    case unknown(type: UInt16, value: [UInt8])

    /// The attribute type number.
    public var type: UInt16 {
        switch self {
        case .mappedAddress: 0x0001
        case .username: 0x0006
        case .messageIntegrity: 0x0008
        case .errorCode: 0x0009
        case .xorMappedAddress: 0x0020
        case .priority: 0x0024
        case .useCandidate: 0x0025
        case .software: 0x8022
        case .fingerprint: 0x8028
        case .iceControlled: 0x8029
        case .iceControlling: 0x802A
        case .unknown(let type, _): type
        }
    }
}
