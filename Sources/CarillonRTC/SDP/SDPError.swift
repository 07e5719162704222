/// Why text is not an acceptable session description (RFC 8866) or ICE candidate (RFC 8839).
///
/// Line numbers count physical lines from 1, blank ones included. Quoted lines are cut to 200 characters.
public enum SDPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is longer than the parser's limit (UTF-8 bytes).
    case tooLarge(bytes: Int, limit: Int)
    /// A line is longer than the parser's limit (UTF-8 bytes).
    case lineTooLong(number: Int, length: Int, limit: Int)
    /// There are more `m=` sections than the parser's limit.
    case tooManyMediaSections(limit: Int)
    /// The first line is not `v=`.
    case missingVersion
    /// `v=` carries something other than `0`.
    case unsupportedVersion(String)
    /// The session section has no `o=` line.
    case missingOrigin
    /// A line does not follow the grammar of its type.
    case malformedLine(number: Int, line: String, reason: String)
    /// A payload type is numeric but outside 0-127.
    case payloadTypeOutOfRange(number: Int, value: String)
    /// Two `a=rtpmap` lines in one media section describe the same payload type.
    case duplicatePayloadType(number: Int, payloadType: UInt8)
    /// An `a=extmap` id is numeric but outside 1-255.
    case extensionIdOutOfRange(number: Int, value: String)
    /// An ICE candidate is malformed; `number` is the SDP line, or nil when the candidate was parsed on its own.
    case invalidCandidate(number: Int?, reason: String)

    public var description: String {
        switch self {
        case .tooLarge(let bytes, let limit): "SDP is \(bytes) bytes, more than the \(limit)-byte limit"
        case .lineTooLong(let number, let length, let limit): "SDP line \(number) is \(length) bytes, more than the \(limit)-byte limit"
        case .tooManyMediaSections(let limit): "SDP has more than \(limit) media sections"
        case .missingVersion: "SDP does not start with v="
        case .unsupportedVersion(let value): "unsupported SDP version \"\(value)\""
        case .missingOrigin: "SDP has no o= line"
        case .malformedLine(let number, let line, let reason): "SDP line \(number) \"\(line)\": \(reason)"
        case .payloadTypeOutOfRange(let number, let value): "SDP line \(number): payload type \(value) is not 0-127"
        case .duplicatePayloadType(let number, let payloadType): "SDP line \(number): second a=rtpmap for payload type \(payloadType)"
        case .extensionIdOutOfRange(let number, let value): "SDP line \(number): extmap id \(value) is not 1-255"
        case .invalidCandidate(let number, let reason):
            if let number { "SDP line \(number): invalid ICE candidate: \(reason)" } else { "invalid ICE candidate: \(reason)" }
        }
    }
}
