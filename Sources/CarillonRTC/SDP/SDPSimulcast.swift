/// An `a=simulcast` attribute (RFC 8853): the rids sent and received, each stream a list of alternatives.
public struct SDPSimulcast: Sendable, Equatable, Hashable {
    /// One alternative of a simulcast stream: a rid, possibly paused (`~low`).
    public struct Alternative: Sendable, Equatable, Hashable {
        /// The rid.
        public var rid: String
        /// Whether the stream starts paused (`~`).
        public var paused: Bool

        /// Creates an alternative.
        public init(rid: String, paused: Bool = false) {
            self.rid = rid
            self.paused = paused
        }

        var sdpText: String { paused ? "~\(rid)" : rid }
    }

    /// Streams the writer sends (separated by `;`), each a list of alternatives (separated by `,`).
    public var send: [[Alternative]]
    /// Streams the writer receives.
    public var receive: [[Alternative]]

    /// Creates a simulcast description.
    public init(send: [[Alternative]] = [], receive: [[Alternative]] = []) {
        self.send = send
        self.receive = receive
    }

    /// Creates a simulcast description with one unpaused alternative per stream.
    public init(sendRids: [String], receiveRids: [String] = []) {
        send = sendRids.map { [Alternative(rid: $0)] }
        receive = receiveRids.map { [Alternative(rid: $0)] }
    }

    /// The first alternative's rid of each sent stream.
    public var sendRids: [String] { send.compactMap { $0.first?.rid } }
    /// The first alternative's rid of each received stream.
    public var receiveRids: [String] { receive.compactMap { $0.first?.rid } }

    /// The attribute value without `a=simulcast:`, e.g. `send low;mid;hi`.
    public var sdpValue: String {
        func list(_ streams: [[Alternative]]) -> String {
            streams.map { $0.map(\.sdpText).joined(separator: ",") }.joined(separator: ";")
        }
        var parts: [String] = []
        if !send.isEmpty { parts.append("send \(list(send))") }
        if !receive.isEmpty { parts.append("recv \(list(receive))") }
        return parts.joined(separator: " ")
    }

    static func parse(_ value: Substring, line: SDPSourceLine) throws(SDPError) -> SDPSimulcast {
        let fields = SDPText.fields(value)
        guard !fields.isEmpty, fields.count % 2 == 0 else { throw line.malformed("simulcast needs direction and stream list pairs") }
        var result = SDPSimulcast()
        for pair in stride(from: 0, to: fields.count, by: 2) {
            // `rid=` before the list is the draft-ietf-mmusic-sdp-simulcast-13 form (old Firefox).
            let list = SDPText.removingPrefix("rid=", from: fields[pair + 1]) ?? fields[pair + 1]
            var streams: [[Alternative]] = []
            for stream in SDPText.split(list, at: ";", omittingEmpty: false) {
                var alternatives: [Alternative] = []
                for alternative in SDPText.split(stream, at: ",", omittingEmpty: false) {
                    let unpaused = SDPText.removingPrefix("~", from: alternative)
                    let paused = unpaused != nil
                    let rid = unpaused ?? alternative
                    guard SDPRid.isValidIdentifier(rid) else { throw line.malformed("bad rid in simulcast list") }
                    alternatives.append(Alternative(rid: String(rid), paused: paused))
                }
                streams.append(alternatives)
            }
            switch fields[pair] {
            case "send": result.send += streams
            case "recv": result.receive += streams
            default: throw line.malformed("simulcast direction must be send or recv")
            }
        }
        return result
    }
}
