/// EBML encoding (RFC 8794) as the WebM writer uses it: element ids as written (their marker bits included), data
/// sizes as variable-length integers, and the element kinds WebM needs. Internal to the writer.
///
/// Pure functions over byte arrays; no threading concerns.
enum EBML {
    /// The 8-byte data size meaning "unknown" (a Segment or Cluster still being written, RFC 8794 §6.2).
    static let unknownSize: [UInt8] = [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]

    /// `id` as its bytes (1-4, as the id's value already carries the length marker).
    static func id(_ id: UInt32) -> [UInt8] {
        let length = id > 0xFF_FFFF ? 4 : id > 0xFFFF ? 3 : id > 0xFF ? 2 : 1
        return (0..<length).reversed().map { UInt8(truncatingIfNeeded: id >> (8 * UInt32($0))) }
    }

    /// `size` as the shortest variable-length integer (1-8 bytes), or in exactly `width` bytes (for a size patched in
    /// later). The all-ones value of each width is reserved for "unknown", so it takes the next width.
    static func size(_ size: Int, width: Int? = nil) -> [UInt8] {
        precondition(size >= 0)
        var length = width ?? 1
        if width == nil {
            while length < 8, UInt64(size) >= (UInt64(1) << (7 * UInt64(length))) - 1 { length += 1 }
        }
        let marker = UInt64(1) << (7 * UInt64(length))
        let value = marker | UInt64(size)
        return (0..<length).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// An element with `data` as its body.
    static func element(_ id: UInt32, _ data: [UInt8]) -> [UInt8] {
        Self.id(id) + size(data.count) + data
    }

    /// An unsigned-integer element in the fewest bytes (at least one).
    static func unsigned(_ id: UInt32, _ value: UInt64) -> [UInt8] {
        element(id, unsignedBytes(value, width: nil))
    }

    /// `value` big-endian in `width` bytes, or in the fewest (at least one).
    static func unsignedBytes(_ value: UInt64, width: Int?) -> [UInt8] {
        var length = width ?? 1
        if width == nil { while length < 8, value >> (8 * UInt64(length)) != 0 { length += 1 } }
        return (0..<length).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// A float element, 8 bytes (IEEE 754 double, big-endian).
    static func float(_ id: UInt32, _ value: Double) -> [UInt8] {
        element(id, unsignedBytes(value.bitPattern, width: 8))
    }

    /// A UTF-8 string element.
    static func string(_ id: UInt32, _ value: String) -> [UInt8] {
        element(id, Array(value.utf8))
    }
}
