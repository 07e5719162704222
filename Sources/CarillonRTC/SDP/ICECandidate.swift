/// An ICE candidate attribute (RFC 8839 §5.1):
/// `candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> [raddr <a>] [rport <p>] *(<name> <value>)`.
public struct ICECandidate: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Foundation, 1-32 ICE characters (letters, digits, `+`, `/`).
    public var foundation: String
    /// Component id: 1 for RTP (the only one with rtcp-mux), 2 for RTCP.
    public var component: UInt16
    /// Transport, lowercased: `udp` or `tcp`.
    public var transport: String
    /// Priority.
    public var priority: UInt32
    /// Connection address: IPv4, IPv6 or a host name (mDNS `….local` for hidden host candidates).
    public var address: String
    /// Port (9 for active TCP candidates).
    public var port: UInt16
    /// Candidate type, lowercased: `host`, `srflx`, `prflx` or `relay`.
    public var type: String
    /// `raddr`, nil when absent.
    public var relatedAddress: String?
    /// `rport`, nil when absent.
    public var relatedPort: UInt16?
    /// The remaining name/value pairs in order (`tcptype`, `generation`, `ufrag`, `network-id`, `network-cost`, …).
    public var extensions: [(name: String, value: String)]

    /// Creates a candidate.
    public init(foundation: String, component: UInt16 = 1, transport: String = "udp", priority: UInt32, address: String,
                port: UInt16, type: String = "host", relatedAddress: String? = nil, relatedPort: UInt16? = nil,
                extensions: [(name: String, value: String)] = []) {
        self.foundation = foundation
        self.component = component
        self.transport = transport.lowercased()
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type.lowercased()
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    /// Parses a candidate, with or without an `a=candidate:` or `candidate:` prefix (as in
    /// `RTCIceCandidate.candidate`, or an SDP line).
    public init(parsing text: String) throws(SDPError) {
        var body = SDPText.trimmed(Substring(text))
        if let rest = SDPText.removingPrefix("a=", from: body) { body = rest }
        let name = Substring(body.unicodeScalars.prefix(10))
        if name.lowercased() == "candidate:" { body = Substring(body.unicodeScalars.dropFirst(10)) }
        try self.init(fields: SDPText.fields(body), lineNumber: nil)
    }

    init(fields: [Substring], lineNumber: Int?) throws(SDPError) {
        func invalid(_ reason: String) -> SDPError { .invalidCandidate(number: lineNumber, reason: reason) }
        guard fields.count >= 8 else { throw invalid("needs at least 8 fields") }
        let foundation = fields[0]
        guard foundation.count <= 32, foundation.utf8.allSatisfy(Self.isICECharacter) else {
            throw invalid("foundation must be 1-32 letters, digits, + or /")
        }
        guard let component = SDPText.decimal(fields[1], as: UInt16.self), component >= 1 else {
            throw invalid("component is not a number from 1")
        }
        guard let priority = SDPText.decimal(fields[3], as: UInt32.self) else { throw invalid("priority is not a 32-bit number") }
        guard let port = SDPText.decimal(fields[5], as: UInt16.self) else { throw invalid("port is not 0-65535") }
        guard fields[6] == "typ" else { throw invalid("expected \"typ\" after the port") }
        guard fields.count % 2 == 0 else { throw invalid("an extension name has no value") }
        self.init(foundation: String(foundation), component: component, transport: String(fields[2]), priority: priority,
                  address: String(fields[4]), port: port, type: String(fields[7]))
        for index in stride(from: 8, to: fields.count, by: 2) {
            let name = fields[index], value = fields[index + 1]
            if name == "raddr", relatedAddress == nil {
                relatedAddress = String(value)
            } else if name == "rport", relatedPort == nil {
                guard let related = SDPText.decimal(value, as: UInt16.self) else { throw invalid("rport is not 0-65535") }
                relatedPort = related
            } else {
                extensions.append((String(name), String(value)))
            }
        }
    }

    private static func isICECharacter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
    }

    /// The attribute without `a=`: `candidate:…`.
    public var sdpValue: String {
        var text = "candidate:\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(type)"
        if let relatedAddress { text += " raddr \(relatedAddress)" }
        if let relatedPort { text += " rport \(relatedPort)" }
        for (name, value) in extensions { text += " \(name) \(value)" }
        return text
    }

    public var description: String { sdpValue }

    /// The value of the first extension with this name.
    public func extensionValue(_ name: String) -> String? { extensions.first { $0.name == name }?.value }

    /// `generation`, nil when absent or not a number.
    public var generation: Int? { extensionValue("generation").flatMap { Int($0) } }
    /// `ufrag`: the ICE username fragment the candidate belongs to.
    public var usernameFragment: String? { extensionValue("ufrag") }
    /// `tcptype` (`active`, `passive`, `so`) for TCP candidates.
    public var tcpType: String? { extensionValue("tcptype") }

    public static func == (lhs: ICECandidate, rhs: ICECandidate) -> Bool {
        lhs.foundation == rhs.foundation && lhs.component == rhs.component && lhs.transport == rhs.transport
            && lhs.priority == rhs.priority && lhs.address == rhs.address && lhs.port == rhs.port && lhs.type == rhs.type
            && lhs.relatedAddress == rhs.relatedAddress && lhs.relatedPort == rhs.relatedPort
            && lhs.extensions.elementsEqual(rhs.extensions) { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(foundation)
        hasher.combine(component)
        hasher.combine(transport)
        hasher.combine(priority)
        hasher.combine(address)
        hasher.combine(port)
        hasher.combine(type)
        hasher.combine(relatedAddress)
        hasher.combine(relatedPort)
        hasher.combine(extensions.count)
        for (name, value) in extensions {
            hasher.combine(name)
            hasher.combine(value)
        }
    }
}
