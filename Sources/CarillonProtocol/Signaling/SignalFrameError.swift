/// Why a WebSocket message could not be turned into an `SdkSignalFrame`, or a frame into a message.
public enum SignalFrameError: Error, Equatable, CustomStringConvertible {
    /// The WebSocket message had no bytes at all.
    case emptyMessage
    /// The first byte was neither 0x05 (RTC) nor 0x02; carries the byte seen.
    case unknownFrameType(UInt8)
    /// The protobuf after the type byte is malformed; carries the decoder's description.
    case undecodable(String)
    /// The protobuf parsed but lacks a required field (e.g. `timestamp_ms`, `type`, `ping_pong.ping_id`).
    case missingRequiredFields(String)
    /// The frame cannot be serialized (it lacks a required field); carries the encoder's description.
    case unencodable(String)

    /// Human-readable reason, suitable for logs.
    public var description: String {
        switch self {
        case .emptyMessage:
            "empty signaling message"
        case .unknownFrameType(let byte):
            "unknown signaling frame type byte 0x\(String(byte, radix: 16, uppercase: false))"
        case .undecodable(let reason):
            "undecodable SdkSignalFrame: \(reason)"
        case .missingRequiredFields(let reason):
            "SdkSignalFrame is missing required fields: \(reason)"
        case .unencodable(let reason):
            "cannot encode SdkSignalFrame: \(reason)"
        }
    }
}
