/// An `a=ssrc-group:<semantics> <ssrc>…` attribute (RFC 5576 §4.2), e.g. `FID` pairing a media SSRC with its RTX SSRC.
public struct SDPSSRCGroup: Sendable, Equatable, Hashable {
    /// `FID`, `SIM`, `FEC-FR`, …
    public var semantics: String
    /// The SSRCs in order.
    public var ssrcs: [UInt32]

    /// Creates a group.
    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    /// The attribute value without `a=ssrc-group:`.
    public var sdpValue: String { ([semantics] + ssrcs.map(String.init)).joined(separator: " ") }

    static func parse(_ value: Substring, line: SDPSourceLine) throws(SDPError) -> SDPSSRCGroup {
        let fields = SDPText.fields(value)
        guard let semantics = fields.first else { throw line.malformed("ssrc-group needs semantics") }
        var ssrcs: [UInt32] = []
        for field in fields.dropFirst() {
            guard let ssrc = SDPText.decimal(field, as: UInt32.self) else { throw line.malformed("ssrc-group member is not a 32-bit number") }
            ssrcs.append(ssrc)
        }
        return SDPSSRCGroup(semantics: String(semantics), ssrcs: ssrcs)
    }
}
