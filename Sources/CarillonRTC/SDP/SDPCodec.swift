/// One payload type of an RTP media section: its `a=rtpmap`, `a=fmtp` parameters and `a=rtcp-fb` feedback.
public struct SDPCodec: Sendable, Equatable, Hashable {
    /// One `key=value` (or bare `key`) item of an `a=fmtp` line, in line order.
    public struct Parameter: Sendable, Equatable, Hashable {
        /// The key, or the whole item when it has no `=` (RED's `111/111`, telephone-event's `0-15`).
        public var key: String
        /// The text after `=`, nil when the item has none.
        public var value: String?

        /// Creates a parameter.
        public init(key: String, value: String? = nil) {
            self.key = key
            self.value = value
        }

        /// `key=value` or `key`.
        public var sdpText: String {
            if let value { "\(key)=\(value)" } else { key }
        }
    }

    /// Payload type, 0-127.
    public var payloadType: UInt8
    /// Encoding name as written (`opus`, `VP8`, `H264`, `rtx`, `red`, `ulpfec`, …).
    public var name: String
    /// RTP clock rate in Hz.
    public var clockRate: UInt32
    /// Channel count from the rtpmap (audio), nil when absent.
    public var channels: UInt8?
    /// `a=fmtp` parameters in order.
    public var parameters: [Parameter]
    /// `a=rtcp-fb` values (`nack`, `nack pli`, `ccm fir`, `goog-remb`, `transport-cc`, …) in order, without duplicates.
    public var feedback: [String]

    /// Creates a codec.
    public init(payloadType: UInt8, name: String, clockRate: UInt32, channels: UInt8? = nil, parameters: [Parameter] = [],
                feedback: [String] = []) {
        self.payloadType = payloadType
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.parameters = parameters
        self.feedback = feedback
    }

    /// Creates a codec whose parameters are parsed from `a=fmtp` text such as `minptime=10;useinbandfec=1`.
    public init(payloadType: UInt8, name: String, clockRate: UInt32, channels: UInt8? = nil, fmtp: String,
                feedback: [String] = []) {
        self.init(payloadType: payloadType, name: name, clockRate: clockRate, channels: channels,
                  parameters: Self.parameters(parsing: fmtp), feedback: feedback)
    }

    /// Splits `a=fmtp` text at `;`, then each item at its first `=`; whitespace around items is dropped, empty items skipped.
    public static func parameters(parsing fmtp: String) -> [Parameter] {
        parameters(parsing: Substring(fmtp))
    }

    static func parameters(parsing fmtp: Substring) -> [Parameter] {
        SDPText.split(fmtp, at: ";", omittingEmpty: true).compactMap { item in
            let item = SDPText.trimmed(item)
            guard !item.isEmpty else { return nil }
            guard let (key, value) = SDPText.cut(item, at: "=") else { return Parameter(key: String(item)) }
            return Parameter(key: String(SDPText.trimmed(key)), value: String(SDPText.trimmed(value)))
        }
    }

    /// The `a=fmtp` text for these parameters, nil when there are none.
    public var fmtpText: String? {
        parameters.isEmpty ? nil : parameters.map(\.sdpText).joined(separator: ";")
    }

    /// The rtpmap value: `<pt> <name>/<clock>[/<channels>]`.
    public var rtpmapValue: String {
        "\(payloadType) \(name)/\(clockRate)" + (channels.map { "/\($0)" } ?? "")
    }

    /// The value of the first parameter whose key matches (ASCII case-insensitively); nil when absent or bare.
    public func parameter(_ key: String) -> String? {
        let key = key.lowercased()
        return parameters.first { $0.key.lowercased() == key }?.value
    }

    /// Replaces the first parameter with this key (ASCII case-insensitively) or appends one.
    public mutating func setParameter(_ key: String, to value: String?) {
        let lowered = key.lowercased()
        if let index = parameters.firstIndex(where: { $0.key.lowercased() == lowered }) {
            parameters[index].value = value
        } else {
            parameters.append(Parameter(key: key, value: value))
        }
    }

    /// Removes every parameter with this key (ASCII case-insensitively).
    public mutating func removeParameter(_ key: String) {
        let lowered = key.lowercased()
        parameters.removeAll { $0.key.lowercased() == lowered }
    }

    /// Whether this is a retransmission payload type (`rtx`, RFC 4588).
    public var isRetransmission: Bool { name.lowercased() == "rtx" }

    /// For `rtx`: the payload type it retransmits (`apt=`), nil when absent or not a payload type.
    public var apt: UInt8? {
        guard let text = parameter("apt"), let value = SDPText.decimal(Substring(text), as: UInt8.self), value <= 127 else {
            return nil
        }
        return value
    }

    /// Whether the name is `red`, `ulpfec`, `flexfec-03` or `rtx`: payload types that wrap others rather than encode media.
    public var isResilience: Bool {
        ["red", "ulpfec", "flexfec-03", "rtx"].contains(name.lowercased())
    }

    /// Static payload types of RFC 3551 that may appear in an m-line without an rtpmap.
    static func staticCodec(_ payloadType: UInt8) -> SDPCodec? {
        switch payloadType {
        case 0: SDPCodec(payloadType: 0, name: "PCMU", clockRate: 8000)
        case 3: SDPCodec(payloadType: 3, name: "GSM", clockRate: 8000)
        case 4: SDPCodec(payloadType: 4, name: "G723", clockRate: 8000)
        case 8: SDPCodec(payloadType: 8, name: "PCMA", clockRate: 8000)
        case 9: SDPCodec(payloadType: 9, name: "G722", clockRate: 8000)
        case 13: SDPCodec(payloadType: 13, name: "CN", clockRate: 8000)
        case 18: SDPCodec(payloadType: 18, name: "G729", clockRate: 8000)
        case 26: SDPCodec(payloadType: 26, name: "JPEG", clockRate: 90000)
        case 31: SDPCodec(payloadType: 31, name: "H261", clockRate: 90000)
        case 34: SDPCodec(payloadType: 34, name: "H263", clockRate: 90000)
        default: nil
        }
    }
}
