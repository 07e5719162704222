extension ControlAPI {
    /// A media capture pipeline as the Chime SDK Media Pipelines API returns it (`MediaCapturePipeline`).
    public struct MediaCapturePipeline: Codable, Sendable, Equatable {
        /// Lowercase UUID.
        public var mediaPipelineId: String?
        /// `arn:aws:chime:<region>:<account>:media-pipeline/<id>`.
        public var mediaPipelineArn: String?
        /// `ChimeSdkMeeting`.
        public var sourceType: String?
        /// The recorded meeting's ARN.
        public var sourceArn: String?
        /// `Initializing`, `InProgress`, `Stopping`, `Stopped` or `Failed`.
        public var status: String?
        /// `S3Bucket`.
        public var sinkType: String?
        /// Where the files go: `arn:aws:s3:::BUCKET[/PREFIX]`.
        public var sinkArn: String?
        /// ISO 8601 creation time.
        public var createdTimestamp: String?
        /// ISO 8601 time of the last status change.
        public var updatedTimestamp: String?
        /// What is recorded.
        public var chimeSdkMeetingConfiguration: ChimeSdkMeetingConfiguration?

        enum CodingKeys: String, CodingKey {
            case mediaPipelineId = "MediaPipelineId"
            case mediaPipelineArn = "MediaPipelineArn"
            case sourceType = "SourceType"
            case sourceArn = "SourceArn"
            case status = "Status"
            case sinkType = "SinkType"
            case sinkArn = "SinkArn"
            case createdTimestamp = "CreatedTimestamp"
            case updatedTimestamp = "UpdatedTimestamp"
            case chimeSdkMeetingConfiguration = "ChimeSdkMeetingConfiguration"
        }

        /// Creates a value; every member is optional.
        public init(mediaPipelineId: String? = nil, mediaPipelineArn: String? = nil, sourceType: String? = nil,
                    sourceArn: String? = nil, status: String? = nil, sinkType: String? = nil, sinkArn: String? = nil,
                    createdTimestamp: String? = nil, updatedTimestamp: String? = nil,
                    chimeSdkMeetingConfiguration: ChimeSdkMeetingConfiguration? = nil) {
            self.mediaPipelineId = mediaPipelineId
            self.mediaPipelineArn = mediaPipelineArn
            self.sourceType = sourceType
            self.sourceArn = sourceArn
            self.status = status
            self.sinkType = sinkType
            self.sinkArn = sinkArn
            self.createdTimestamp = createdTimestamp
            self.updatedTimestamp = updatedTimestamp
            self.chimeSdkMeetingConfiguration = chimeSdkMeetingConfiguration
        }
    }
}
