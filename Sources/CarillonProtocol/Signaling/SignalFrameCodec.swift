import SwiftProtobuf

/// The signaling WebSocket framing: one type byte, then one serialized `SdkSignalFrame` (signaling.md 1.3, 1.4).
///
/// Stateless and safe to call from any thread.
public enum SignalFrameCodec {
    /// Type byte of every frame we send, and of every frame the reference client sends ("RTC").
    public static let rtcFrameType: UInt8 = 0x05
    /// Second type byte the reference client accepts from servers; we accept it on receive as well.
    public static let legacyFrameType: UInt8 = 0x02

    /// Serializes `frame` behind the 0x05 type byte, ready to send as one binary WebSocket message.
    ///
    /// Throws `.unencodable` when a required field (`timestampMs`, `type`, or one inside a payload) is unset.
    public static func encode(_ frame: SdkSignalFrame) throws(SignalFrameError) -> [UInt8] {
        var message: [UInt8] = [rtcFrameType]
        do {
            let body: [UInt8] = try frame.serializedBytes()
            message.append(contentsOf: body)
        } catch {
            throw .unencodable(String(describing: error))
        }
        return message
    }

    /// Parses one binary WebSocket message (type byte 0x05 or 0x02, then the protobuf).
    ///
    /// Never traps on malformed input: every failure is a `SignalFrameError`. Unknown fields are kept.
    public static func decode(_ bytes: some Collection<UInt8>) throws(SignalFrameError) -> SdkSignalFrame {
        guard let typeByte = bytes.first else { throw .emptyMessage }
        guard typeByte == rtcFrameType || typeByte == legacyFrameType else { throw .unknownFrameType(typeByte) }
        let body = [UInt8](bytes.dropFirst())
        let frame: SdkSignalFrame
        do {
            // Parse partially first so a missing required field can be named in the error.
            frame = try SdkSignalFrame(serializedBytes: body, partial: true)
        } catch {
            throw .undecodable(String(describing: error))
        }
        guard frame.isInitialized else {
            let missing = missingRequiredFieldNames(frame)
            throw .missingRequiredFields(missing.isEmpty ? "unknown field" : missing.joined(separator: ", "))
        }
        return frame
    }

    /// Names (proto paths) of the schema's required fields that `frame` lacks.
    private static func missingRequiredFieldNames(_ frame: SdkSignalFrame) -> [String] {
        var missing: [String] = []
        if !frame.hasTimestampMs { missing.append("timestamp_ms") }
        if !frame.hasType { missing.append("type") }
        if frame.hasPingPong {
            if !frame.pingPong.hasType { missing.append("ping_pong.type") }
            if !frame.pingPong.hasPingID { missing.append("ping_pong.ping_id") }
        }
        for (index, configuration) in frame.sub.videoSubscriptionConfiguration.enumerated() where !configuration.hasMid {
            missing.append("sub.video_subscription_configuration[\(index)].mid")
        }
        for (index, configuration) in frame.remoteVideoUpdate.addedOrUpdatedVideoSubscriptions.enumerated()
        where !configuration.hasMid {
            missing.append("remote_video_update.added_or_updated_video_subscriptions[\(index)].mid")
        }
        return missing
    }
}
