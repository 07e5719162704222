/// Why `realtimeSendDataMessage(topic:data:lifetimeMs:)` refused a message.
public enum SendDataMessageError: Int, Error, CustomStringConvertible, Sendable {
    /// The payload is larger than 2048 bytes.
    case invalidDataLength = 0
    /// The topic does not match `^[a-zA-Z0-9_-]{1,36}$`.
    case invalidTopic = 1
    /// The lifetime is negative.
    case negativeLifetimeParameter = 2
    /// The data is not a String, bytes, Data or a JSON array or dictionary.
    case invalidData = 3

    /// The case name.
    public var description: String {
        switch self {
        case .invalidDataLength: "invalidDataLength"
        case .invalidTopic: "invalidTopic"
        case .negativeLifetimeParameter: "negativeLifetimeParameter"
        case .invalidData: "invalidData"
        }
    }
}
