/// An RTP header extension mapping, `a=extmap:<id>[/<direction>] <uri> [<attributes>]` (RFC 8285 §8).
public struct SDPExtension: Sendable, Equatable, Hashable {
    /// Local identifier, 1-255 (1-14 fit the one-byte form).
    public var id: UInt8
    /// Direction restriction, nil when absent.
    public var direction: SDPDirection?
    /// The extension URI.
    public var uri: String
    /// Extension attributes after the URI, as text; nil when absent.
    public var attributes: String?

    /// Creates a mapping.
    public init(id: UInt8, uri: String, direction: SDPDirection? = nil, attributes: String? = nil) {
        self.id = id
        self.uri = uri
        self.direction = direction
        self.attributes = attributes
    }

    /// The attribute value without `a=extmap:`.
    public var sdpValue: String {
        var text = "\(id)"
        if let direction { text += "/\(direction.rawValue)" }
        text += " \(uri)"
        if let attributes { text += " \(attributes)" }
        return text
    }

    /// `urn:ietf:params:rtp-hdrext:ssrc-audio-level` (RFC 6464).
    public static let audioLevelURI = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
    /// Transport-wide sequence numbers for congestion control.
    public static let transportWideCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// Absolute send time.
    public static let absoluteSendTimeURI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    /// `urn:ietf:params:rtp-hdrext:sdes:mid` (RFC 9143).
    public static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// `urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id` (RFC 8852).
    public static let ridURI = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    /// `urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id` (RFC 8852).
    public static let repairedRidURI = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"
    /// `urn:ietf:params:rtp-hdrext:toffset` (RFC 5450).
    public static let transmissionOffsetURI = "urn:ietf:params:rtp-hdrext:toffset"
    /// `urn:3gpp:video-orientation`.
    public static let videoOrientationURI = "urn:3gpp:video-orientation"
    /// Video layers allocation.
    public static let videoLayersAllocationURI = "http://www.webrtc.org/experiments/rtp-hdrext/video-layers-allocation00"
    /// The AV1 dependency descriptor.
    public static let dependencyDescriptorURI =
        "https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension"

    static func parse(_ value: Substring, line: SDPSourceLine) throws(SDPError) -> SDPExtension {
        let (head, rest) = SDPText.firstField(value)
        let (uri, attributes) = SDPText.firstField(rest)
        guard !uri.isEmpty else { throw line.malformed("extmap needs an id and a URI") }
        var idText = head
        var direction: SDPDirection?
        if let (before, directionText) = SDPText.cut(head, at: "/") {
            idText = before
            guard let parsed = SDPDirection(rawValue: String(directionText)) else {
                throw line.malformed("unknown extmap direction \"\(SDPText.quoted(directionText))\"")
            }
            direction = parsed
        }
        guard SDPText.isDigits(idText) else { throw line.malformed("extmap id is not a number") }
        guard let id = SDPText.decimal(idText, as: UInt8.self), id >= 1 else {
            throw .extensionIdOutOfRange(number: line.number, value: SDPText.quoted(idText))
        }
        return SDPExtension(id: id, uri: String(uri), direction: direction,
                            attributes: attributes.isEmpty ? nil : String(attributes))
    }
}
