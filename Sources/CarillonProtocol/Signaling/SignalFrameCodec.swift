import SwiftProtobuf

/// Encodes and decodes signaling WebSocket messages: one frame-type byte (0x05) followed by one `SdkSignalFrame`.
public enum SignalFrameCodec {
    /// The type byte every Carillon endpoint sends ("RTC").
    public static let frameType: UInt8 = 0x05
    /// The older type byte Chime clients also accept on receipt.
    public static let legacyFrameType: UInt8 = 0x02

    /// Serializes a frame with its type byte; throws if a required field is missing.
    public static func encode(_ frame: SdkSignalFrame) throws -> [UInt8] {
        let body: [UInt8] = try frame.serializedBytes()
        var message = [UInt8]()
        message.reserveCapacity(body.count + 1)
        message.append(frameType)
        message.append(contentsOf: body)
        return message
    }

    /// Parses one WebSocket message into a frame.
    public static func decode(_ bytes: some Collection<UInt8>) throws(SignalFrameError) -> SdkSignalFrame {
        guard let first = bytes.first else { throw .empty }
        guard first == frameType || first == legacyFrameType else { throw .unknownFrameType(first) }
        do {
            return try SdkSignalFrame(serializedBytes: Array(bytes.dropFirst()))
        } catch {
            throw .undecodable(String(describing: error))
        }
    }
}
