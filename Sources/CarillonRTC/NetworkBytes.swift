/// Big-endian integer reading and writing on byte arrays, shared by the wire codecs.
enum NetworkBytes {
    static func readUInt16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    static func readUInt32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(readUInt16(bytes, offset)) << 16 | UInt32(readUInt16(bytes, offset + 2))
    }

    static func append(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        append(UInt16(value >> 16), to: &bytes)
        append(UInt16(value & 0xFFFF), to: &bytes)
    }
}
