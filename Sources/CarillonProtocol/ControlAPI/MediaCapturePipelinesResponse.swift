extension ControlAPI {
    /// ListMediaCapturePipelines' response: `{"MediaCapturePipelines": [{MediaPipelineId, MediaPipelineArn}],
    /// "NextToken"}`.
    public struct MediaCapturePipelinesResponse: Codable, Sendable, Equatable {
        /// One page of pipelines, oldest first.
        public var mediaCapturePipelines: [Summary]?
        /// Where the next page starts (`next-token`); absent on the last page.
        public var nextToken: String?

        enum CodingKeys: String, CodingKey {
            case mediaCapturePipelines = "MediaCapturePipelines"
            case nextToken = "NextToken"
        }

        /// Creates a value.
        public init(mediaCapturePipelines: [Summary]? = nil, nextToken: String? = nil) {
            self.mediaCapturePipelines = mediaCapturePipelines
            self.nextToken = nextToken
        }

        /// `MediaCapturePipelineSummary`.
        public struct Summary: Codable, Sendable, Equatable {
            /// The pipeline's id.
            public var mediaPipelineId: String?
            /// The pipeline's ARN.
            public var mediaPipelineArn: String?

            enum CodingKeys: String, CodingKey {
                case mediaPipelineId = "MediaPipelineId"
                case mediaPipelineArn = "MediaPipelineArn"
            }

            /// Creates a value.
            public init(mediaPipelineId: String? = nil, mediaPipelineArn: String? = nil) {
                self.mediaPipelineId = mediaPipelineId
                self.mediaPipelineArn = mediaPipelineArn
            }
        }
    }
}
