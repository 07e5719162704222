extension ControlAPI {
    /// The JSON body of every error response.
    public struct ErrorBody: Codable, Sendable, Equatable {
        /// Short legacy code, e.g. `NotFound`.
        public var code: String?
        /// What went wrong.
        public var message: String?
        /// Id of the failed request.
        public var requestId: String?

        enum CodingKeys: String, CodingKey {
            case code = "Code"
            case message = "Message"
            case requestId = "RequestId"
        }

        /// Creates a value; every member is optional.
        public init(code: String? = nil, message: String? = nil, requestId: String? = nil) {
            self.code = code
            self.message = message
            self.requestId = requestId
        }
    }
}
