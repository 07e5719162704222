extension ControlAPI {
    /// ListTagsForResource's response.
    public struct TagsResponse: Codable, Sendable, Equatable {
        /// The tags.
        public var tags: [Tag]?

        enum CodingKeys: String, CodingKey {
            case tags = "Tags"
        }

        /// Creates a value; every member is optional.
        public init(tags: [Tag]? = nil) {
            self.tags = tags
        }
    }
}
