/// An `a=rid:<id> <send|recv> [<restrictions>]` attribute (RFC 8851): one RTP stream of a simulcast media section.
public struct SDPRid: Sendable, Equatable, Hashable {
    /// Direction of a rid.
    public enum Direction: String, Sendable, Equatable, Hashable {
        /// The writer sends this stream.
        case send
        /// The writer receives this stream.
        case recv

        /// The other side's view.
        public var reversed: Direction { self == .send ? .recv : .send }
    }

    /// The RTP stream id (`low`, `mid`, `hi`, …).
    public var id: String
    /// Send or receive.
    public var direction: Direction
    /// Restrictions such as `pt=96,97;max-width=1280`, as text; nil when absent.
    public var restrictions: String?

    /// Creates a rid.
    public init(id: String, direction: Direction, restrictions: String? = nil) {
        self.id = id
        self.direction = direction
        self.restrictions = restrictions
    }

    /// The attribute value without `a=rid:`.
    public var sdpValue: String {
        "\(id) \(direction.rawValue)" + (restrictions.map { " \($0)" } ?? "")
    }

    /// The payload types listed by a `pt=` restriction; empty when there is none.
    public var payloadTypes: [UInt8] {
        guard let list = restriction("pt") else { return [] }
        return SDPText.split(Substring(list), at: ",", omittingEmpty: true).compactMap { SDPText.decimal(SDPText.trimmed($0), as: UInt8.self) }
    }

    /// The value of restriction `key` (e.g. `max-width`), nil when absent.
    public func restriction(_ key: String) -> String? {
        guard let restrictions else { return nil }
        return SDPCodec.parameters(parsing: restrictions).first { $0.key == key }?.value
    }

    /// RFC 8851 §10 `rid-id`: one or more ASCII letters, digits, `-` or `_`.
    static func isValidIdentifier(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    static func parse(_ value: Substring, line: SDPSourceLine) throws(SDPError) -> SDPRid {
        let (id, rest) = SDPText.firstField(value)
        let (directionText, restrictions) = SDPText.firstField(rest)
        guard isValidIdentifier(id) else { throw line.malformed("rid id must be letters, digits, - or _") }
        guard let direction = Direction(rawValue: String(directionText)) else {
            throw line.malformed("rid direction must be send or recv")
        }
        return SDPRid(id: String(id), direction: direction, restrictions: restrictions.isEmpty ? nil : String(restrictions))
    }
}
