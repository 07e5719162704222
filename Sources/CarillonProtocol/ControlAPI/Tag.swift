extension ControlAPI {
    /// A key-value tag on a meeting.
    public struct Tag: Codable, Sendable, Equatable {
        /// Tag key (1-128).
        public var key: String?
        /// Tag value (0-256).
        public var value: String?

        enum CodingKeys: String, CodingKey {
            case key = "Key"
            case value = "Value"
        }

        /// Creates a value; every member is optional.
        public init(key: String? = nil, value: String? = nil) {
            self.key = key
            self.value = value
        }
    }
}
