import CarillonProtocol
import Foundation

/// The checks of `realtimeSendDataMessage`, in the Chime SDK's order: lifetime, topic, data type, size.
enum DataMessagePayload {
    static let maximumBytes = 2048

    static func bytes(topic: String, data: Any, lifetimeMs: Int32) throws -> [UInt8] {
        guard lifetimeMs >= 0 else { throw SendDataMessageError.negativeLifetimeParameter }
        guard DataMessageTopic.isValid(topic) else { throw SendDataMessageError.invalidTopic }
        let bytes: [UInt8]
        switch data {
        case let text as String: bytes = Array(text.utf8)
        case let raw as [UInt8]: bytes = raw
        case let raw as Data: bytes = Array(raw)
        case let object where object is [Any] || object is [String: Any]:
            guard JSONSerialization.isValidJSONObject(object) else { throw SendDataMessageError.invalidData }
            bytes = Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        default:
            throw SendDataMessageError.invalidData
        }
        guard bytes.count <= maximumBytes else { throw SendDataMessageError.invalidDataLength }
        return bytes
    }
}
