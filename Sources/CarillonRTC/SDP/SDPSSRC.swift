/// The `a=ssrc:<ssrc> <attribute>[:<value>]` lines (RFC 5576) of one SSRC, gathered in order.
public struct SDPSSRC: Sendable, Equatable, Hashable {
    /// The synchronisation source.
    public var ssrc: UInt32
    /// Its source attributes (`cname`, `msid`, `mslabel`, `label`, …) in order.
    public var attributes: [SDPAttribute]

    /// Creates an SSRC entry.
    public init(ssrc: UInt32, attributes: [SDPAttribute] = []) {
        self.ssrc = ssrc
        self.attributes = attributes
    }

    /// Creates an SSRC entry with a `cname` and optionally an `msid` attribute.
    public init(ssrc: UInt32, cname: String, msid: SDPMediaStreamID? = nil) {
        self.ssrc = ssrc
        attributes = [SDPAttribute(name: "cname", value: cname)]
        if let msid { attributes.append(SDPAttribute(name: "msid", value: msid.sdpValue)) }
    }

    /// The value of the first attribute with this name.
    public func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }

    /// The canonical name (`cname`).
    public var cname: String? { attribute("cname") }

    /// The lines' values without `a=ssrc:`; one `<ssrc>` line when there are no attributes.
    public var sdpValues: [String] {
        attributes.isEmpty ? ["\(ssrc)"] : attributes.map { "\(ssrc) \($0.sdpValue)" }
    }
}
