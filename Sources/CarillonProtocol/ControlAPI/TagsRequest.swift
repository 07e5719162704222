extension ControlAPI {
    /// Body of TagResource and UntagResource.
    public struct TagsRequest: Codable, Sendable, Equatable {
        /// ARN of the meeting.
        public var resourceARN: String?
        /// Tags to add (TagResource).
        public var tags: [Tag]?
        /// Keys to remove (UntagResource).
        public var tagKeys: [String]?

        enum CodingKeys: String, CodingKey {
            case resourceARN = "ResourceARN"
            case tags = "Tags"
            case tagKeys = "TagKeys"
        }

        /// Creates a value; every member is optional.
        public init(resourceARN: String? = nil, tags: [Tag]? = nil, tagKeys: [String]? = nil) {
            self.resourceARN = resourceARN
            self.tags = tags
            self.tagKeys = tagKeys
        }
    }
}
