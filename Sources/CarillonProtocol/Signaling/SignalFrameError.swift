/// Why a signaling WebSocket message could not be decoded.
public enum SignalFrameError: Error, Equatable, CustomStringConvertible {
    /// The message had no bytes at all.
    case empty
    /// The first byte is not a known frame type.
    case unknownFrameType(UInt8)
    /// The protobuf body is malformed or lacks a required field.
    case undecodable(String)

    public var description: String {
        switch self {
        case .empty: "empty message"
        case .unknownFrameType(let byte): "unknown frame type byte 0x\(String(byte, radix: 16))"
        case .undecodable(let reason): "undecodable SdkSignalFrame: \(reason)"
        }
    }
}
