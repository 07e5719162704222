extension ControlAPI {
    /// Why one attendee of a batch was not created.
    public struct CreateAttendeeError: Codable, Sendable, Equatable {
        /// The item's ExternalUserId.
        public var externalUserId: String?
        /// Short code, e.g. `BadRequest`.
        public var errorCode: String?
        /// What was wrong.
        public var errorMessage: String?

        enum CodingKeys: String, CodingKey {
            case externalUserId = "ExternalUserId"
            case errorCode = "ErrorCode"
            case errorMessage = "ErrorMessage"
        }

        /// Creates a value; every member is optional.
        public init(externalUserId: String? = nil, errorCode: String? = nil, errorMessage: String? = nil) {
            self.externalUserId = externalUserId
            self.errorCode = errorCode
            self.errorMessage = errorMessage
        }
    }
}
