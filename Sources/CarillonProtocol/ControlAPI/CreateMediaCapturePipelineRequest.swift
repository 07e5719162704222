extension ControlAPI {
    /// CreateMediaCapturePipeline's body.
    public struct CreateMediaCapturePipelineRequest: Codable, Sendable, Equatable {
        /// `ChimeSdkMeeting` (required).
        public var sourceType: String?
        /// `arn:aws:chime::<account>:meeting:<MeetingId>` (required).
        public var sourceArn: String?
        /// `S3Bucket` (required).
        public var sinkType: String?
        /// `arn:aws:s3:::BUCKET[/PREFIX]` (required).
        public var sinkArn: String?
        /// Makes the request idempotent (2-64 of `[-_a-zA-Z0-9]`).
        public var clientRequestToken: String?
        /// What to record.
        public var chimeSdkMeetingConfiguration: ChimeSdkMeetingConfiguration?
        /// Server-side encryption with KMS, which this server cannot do; present only to be refused.
        public var sseAwsKeyManagementParams: ChimeSdkMeetingConfiguration.Opaque?
        /// Tags (accepted and validated; not stored).
        public var tags: [Tag]?

        enum CodingKeys: String, CodingKey {
            case sourceType = "SourceType"
            case sourceArn = "SourceArn"
            case sinkType = "SinkType"
            case sinkArn = "SinkArn"
            case clientRequestToken = "ClientRequestToken"
            case chimeSdkMeetingConfiguration = "ChimeSdkMeetingConfiguration"
            case sseAwsKeyManagementParams = "SseAwsKeyManagementParams"
            case tags = "Tags"
        }

        /// Creates a value; every member is optional.
        public init(sourceType: String? = nil, sourceArn: String? = nil, sinkType: String? = nil, sinkArn: String? = nil,
                    clientRequestToken: String? = nil, chimeSdkMeetingConfiguration: ChimeSdkMeetingConfiguration? = nil,
                    tags: [Tag]? = nil) {
            self.sourceType = sourceType
            self.sourceArn = sourceArn
            self.sinkType = sinkType
            self.sinkArn = sinkArn
            self.clientRequestToken = clientRequestToken
            self.chimeSdkMeetingConfiguration = chimeSdkMeetingConfiguration
            self.tags = tags
        }
    }
}
