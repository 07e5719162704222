extension ControlAPI {
    /// Targets for meeting event notifications (stored, not yet delivered).
    public struct NotificationsConfiguration: Codable, Sendable, Equatable {
        /// Lambda target.
        public var lambdaFunctionArn: String?
        /// SNS target.
        public var snsTopicArn: String?
        /// SQS target.
        public var sqsQueueArn: String?

        enum CodingKeys: String, CodingKey {
            case lambdaFunctionArn = "LambdaFunctionArn"
            case snsTopicArn = "SnsTopicArn"
            case sqsQueueArn = "SqsQueueArn"
        }

        /// Creates a value; every member is optional.
        public init(lambdaFunctionArn: String? = nil, snsTopicArn: String? = nil, sqsQueueArn: String? = nil) {
            self.lambdaFunctionArn = lambdaFunctionArn
            self.snsTopicArn = snsTopicArn
            self.sqsQueueArn = sqsQueueArn
        }
    }
}
