extension ControlAPI {
    /// What the join page posts to `/join/<invite>`: `{"Name": "..."}`, the name the guest chose.
    public struct GuestJoinRequest: Codable, Sendable, Equatable {
        /// The guest's display name.
        public var name: String?

        enum CodingKeys: String, CodingKey {
            case name = "Name"
        }

        /// Creates a value.
        public init(name: String? = nil) {
            self.name = name
        }
    }
}
