extension ControlAPI {
    /// CreateMediaCapturePipeline's and GetMediaCapturePipeline's response: `{"MediaCapturePipeline": {...}}`.
    public struct MediaCapturePipelineResponse: Codable, Sendable, Equatable {
        /// The pipeline.
        public var mediaCapturePipeline: MediaCapturePipeline?

        enum CodingKeys: String, CodingKey {
            case mediaCapturePipeline = "MediaCapturePipeline"
        }

        /// Creates a value.
        public init(mediaCapturePipeline: MediaCapturePipeline? = nil) {
            self.mediaCapturePipeline = mediaCapturePipeline
        }
    }
}
