import CarillonCrypto

/// A STUN message (RFC 8489): class, method, transaction id and attributes, with strict parsing and
/// MESSAGE-INTEGRITY / FINGERPRINT handling as ICE uses them.
public struct STUNMessage: Sendable, Equatable {
    /// The fixed value in every STUN header.
    public static let magicCookie: UInt32 = 0x2112_A442
    /// The Binding method, the only one ICE uses.
    public static let bindingMethod: UInt16 = 0x001
    private static let fingerprintXOR: UInt32 = 0x5354_554E

    /// Request, indication, success or error response.
    public var messageClass: STUNMessageClass
    /// The 12-bit method.
    public var method: UInt16
    /// The 12-byte transaction id.
    public var transactionID: [UInt8]
    /// Attributes in wire order (MESSAGE-INTEGRITY and FINGERPRINT included when parsed).
    public var attributes: [STUNAttribute]

    /// Creates a message; `transactionID` must be 12 bytes.
    public init(messageClass: STUNMessageClass, method: UInt16 = STUNMessage.bindingMethod, transactionID: [UInt8],
                attributes: [STUNAttribute] = []) {
        precondition(transactionID.count == 12, "a STUN transaction id is 12 bytes")
        self.messageClass = messageClass
        self.method = method & 0x0FFF
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// Cheap first test used to demultiplex a datagram (RFC 7983: first byte 0-3) before parsing it.
    public static func looksLikeSTUN(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count >= 20, let first = bytes.first, first < 4 else { return false }
        let cookie = bytes.dropFirst(4).prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return cookie == magicCookie
    }

    // MARK: Parsing

    /// Parses a whole datagram.
    public init(parsing bytes: [UInt8]) throws(STUNError) {
        guard bytes.count >= 20 else { throw .truncated }
        guard bytes[0] & 0xC0 == 0, NetworkBytes.readUInt32(bytes, 4) == Self.magicCookie else { throw .notSTUN }
        let length = Int(NetworkBytes.readUInt16(bytes, 2))
        guard length % 4 == 0, bytes.count == 20 + length else { throw .badLength }
        let type = NetworkBytes.readUInt16(bytes, 0)
        messageClass = STUNMessageClass(rawValue: (type >> 4 & 0x1) | (type >> 7 & 0x2))!
        method = (type & 0x000F) | (type >> 1 & 0x0070) | (type >> 2 & 0x0F80)
        transactionID = Array(bytes[8..<20])
        attributes = []
        var offset = 20
        var sawIntegrity = false, sawFingerprint = false
        while offset < bytes.count {
            guard offset + 4 <= bytes.count else { throw .truncated }
            let attributeType = NetworkBytes.readUInt16(bytes, offset)
            let valueLength = Int(NetworkBytes.readUInt16(bytes, offset + 2))
            let start = offset + 4
            guard start + valueLength <= bytes.count else { throw .truncated }
            if sawFingerprint || (sawIntegrity && attributeType != 0x8028) { throw .misplacedAttribute(attributeType) }
            let value = Array(bytes[start..<(start + valueLength)])
            let attribute = try Self.attribute(type: attributeType, value: value, transactionID: transactionID)
            if case .messageIntegrity = attribute { sawIntegrity = true }
            if case .fingerprint = attribute { sawFingerprint = true }
            attributes.append(attribute)
            offset = start + (valueLength + 3) / 4 * 4
        }
        guard offset == bytes.count else { throw .truncated }
    }

    private static func attribute(type: UInt16, value: [UInt8], transactionID: [UInt8]) throws(STUNError) -> STUNAttribute {
        func fixed(_ count: Int) throws(STUNError) {
            guard value.count == count else { throw .malformedAttribute(type) }
        }
        switch type {
        case 0x0001:
            return .mappedAddress(try address(value, xor: nil, type: type))
        case 0x0020:
            return .xorMappedAddress(try address(value, xor: transactionID, type: type))
        case 0x0006:
            guard value.count <= 763, let text = String(validating: value, as: UTF8.self) else { throw .malformedAttribute(type) }
            return .username(text)
        case 0x8022:
            guard value.count <= 763, let text = String(validating: value, as: UTF8.self) else { throw .malformedAttribute(type) }
            return .software(text)
        case 0x0008:
            try fixed(20)
            return .messageIntegrity(value)
        case 0x0009:
            guard value.count >= 4, let reason = String(validating: value[4...], as: UTF8.self) else { throw .malformedAttribute(type) }
            let code = Int(value[2] & 0x07) * 100 + Int(value[3])
            guard (300...699).contains(code), value[3] < 100 else { throw .malformedAttribute(type) }
            return .errorCode(code: code, reason: reason)
        case 0x0024:
            try fixed(4)
            return .priority(NetworkBytes.readUInt32(value, 0))
        case 0x0025:
            try fixed(0)
            return .useCandidate
        case 0x8028:
            try fixed(4)
            return .fingerprint(NetworkBytes.readUInt32(value, 0))
        case 0x8029:
            try fixed(8)
            return .iceControlled(UInt64(NetworkBytes.readUInt32(value, 0)) << 32 | UInt64(NetworkBytes.readUInt32(value, 4)))
        case 0x802A:
            try fixed(8)
            return .iceControlling(UInt64(NetworkBytes.readUInt32(value, 0)) << 32 | UInt64(NetworkBytes.readUInt32(value, 4)))
        default:
            return .unknown(type: type, value: value)
        }
    }

    private static func address(_ value: [UInt8], xor transactionID: [UInt8]?, type: UInt16) throws(STUNError) -> STUNAddress {
        guard value.count >= 4 else { throw .malformedAttribute(type) }
        let family = value[1]
        let length = family == 0x01 ? 4 : family == 0x02 ? 16 : 0
        guard length > 0, value.count == 4 + length else { throw .malformedAttribute(type) }
        var port = NetworkBytes.readUInt16(value, 2)
        var bytes = Array(value[4...])
        if let transactionID {
            port ^= UInt16(magicCookie >> 16)
            let mask = cookieBytes + transactionID
            for index in bytes.indices { bytes[index] ^= mask[index] }
        }
        return STUNAddress(address: bytes, port: port)!
    }

    // MARK: Serialising

    /// The wire bytes of the message's attributes, followed by MESSAGE-INTEGRITY (when `integrityKey` is given) and
    /// FINGERPRINT (when `fingerprint` is true). Any such attributes already in ``attributes`` are recomputed.
    public func encoded(integrityKey: [UInt8]? = nil, fingerprint: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        let type = (method & 0x000F) | (method & 0x0070) << 1 | (method & 0x0F80) << 2
            | (messageClass.rawValue & 0x1) << 4 | (messageClass.rawValue & 0x2) << 7
        NetworkBytes.append(UInt16(type), to: &bytes)
        NetworkBytes.append(UInt16(0), to: &bytes)
        NetworkBytes.append(Self.magicCookie, to: &bytes)
        bytes += transactionID
        for attribute in attributes {
            switch attribute {
            case .messageIntegrity, .fingerprint: continue
            default: Self.append(attribute, transactionID: transactionID, to: &bytes)
            }
        }
        if let integrityKey {
            Self.setLength(bytes.count - 20 + 24, in: &bytes)
            let tag = HMACSHA1.authenticate(bytes, key: integrityKey)
            Self.append(.messageIntegrity(tag), transactionID: transactionID, to: &bytes)
        }
        if fingerprint {
            Self.setLength(bytes.count - 20 + 8, in: &bytes)
            let crc = CRC32.checksum(bytes) ^ Self.fingerprintXOR
            Self.append(.fingerprint(crc), transactionID: transactionID, to: &bytes)
        }
        Self.setLength(bytes.count - 20, in: &bytes)
        return bytes
    }

    /// Whether a datagram's MESSAGE-INTEGRITY verifies with `key` (the ICE password's bytes for short-term
    /// credentials). False when the attribute is missing.
    public static func verifyIntegrity(_ bytes: [UInt8], key: [UInt8]) -> Bool {
        guard let offset = attributeOffset(of: 0x0008, in: bytes), offset + 24 <= bytes.count else { return false }
        var covered = Array(bytes[..<offset])
        setLength(offset - 20 + 24, in: &covered)
        return ConstantTime.equals(HMACSHA1.authenticate(covered, key: key), bytes[(offset + 4)..<(offset + 24)])
    }

    /// Whether a datagram ends with a correct FINGERPRINT. False when it has none.
    public static func verifyFingerprint(_ bytes: [UInt8]) -> Bool {
        guard let offset = attributeOffset(of: 0x8028, in: bytes), offset + 8 == bytes.count else { return false }
        return CRC32.checksum(bytes[..<offset]) ^ fingerprintXOR == NetworkBytes.readUInt32(bytes, offset + 4)
    }

    /// The USERNAME attribute, if any.
    public var username: String? {
        for attribute in attributes { if case .username(let name) = attribute { return name } }
        return nil
    }

    // MARK: Wire helpers

    private static var cookieBytes: [UInt8] { [0x21, 0x12, 0xA4, 0x42] }

    private static func attributeOffset(of wanted: UInt16, in bytes: [UInt8]) -> Int? {
        var offset = 20
        while offset + 4 <= bytes.count {
            if NetworkBytes.readUInt16(bytes, offset) == wanted { return offset }
            offset += 4 + (Int(NetworkBytes.readUInt16(bytes, offset + 2)) + 3) / 4 * 4
        }
        return nil
    }

    private static func append(_ attribute: STUNAttribute, transactionID: [UInt8], to bytes: inout [UInt8]) {
        var value: [UInt8] = []
        switch attribute {
        case .mappedAddress(let address): value = encode(address, xor: nil)
        case .xorMappedAddress(let address): value = encode(address, xor: transactionID)
        case .username(let text), .software(let text): value = Array(text.utf8)
        case .messageIntegrity(let tag): value = tag
        case .errorCode(let code, let reason):
            value = [0, 0, UInt8(code / 100 & 0x07), UInt8(code % 100)] + Array(reason.utf8)
        case .priority(let priority): NetworkBytes.append(priority, to: &value)
        case .useCandidate: break
        case .fingerprint(let crc): NetworkBytes.append(crc, to: &value)
        case .iceControlled(let tieBreaker), .iceControlling(let tieBreaker):
            NetworkBytes.append(UInt32(tieBreaker >> 32), to: &value)
            NetworkBytes.append(UInt32(tieBreaker & 0xFFFF_FFFF), to: &value)
        case .unknown(_, let raw): value = raw
        }
        NetworkBytes.append(attribute.type, to: &bytes)
        NetworkBytes.append(UInt16(value.count), to: &bytes)
        bytes += value
        bytes += repeatElement(0, count: (4 - value.count % 4) % 4)
    }

    private static func encode(_ address: STUNAddress, xor transactionID: [UInt8]?) -> [UInt8] {
        var port = address.port
        var raw = address.address
        if let transactionID {
            port ^= UInt16(magicCookie >> 16)
            let mask = cookieBytes + transactionID
            for index in raw.indices { raw[index] ^= mask[index] }
        }
        var value: [UInt8] = [0, address.isIPv6 ? 0x02 : 0x01]
        NetworkBytes.append(port, to: &value)
        return value + raw
    }

    private static func setLength(_ length: Int, in bytes: inout [UInt8]) {
        bytes[2] = UInt8(length >> 8 & 0xFF)
        bytes[3] = UInt8(length & 0xFF)
    }
}
