/// The rule for data-message topics shared by the SDK and the server: `^[a-zA-Z0-9_-]{1,36}$`.
public enum DataMessageTopic {
    /// Longest valid topic, in characters.
    public static let maximumLength = 36

    /// Whether `topic` may be used by a client.
    public static func isValid(_ topic: String) -> Bool {
        let bytes = topic.utf8
        guard (1...maximumLength).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): true
            default: false
            }
        }
    }
}
