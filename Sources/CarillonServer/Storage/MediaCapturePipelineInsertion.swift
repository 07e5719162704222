/// The outcome of storing a new media capture pipeline.
public enum MediaCapturePipelineInsertion: Sendable, Equatable {
    /// It was stored.
    case created(MediaCapturePipelineRecord)
    /// An earlier request with the same ClientRequestToken and parameters created this one.
    case repeated(MediaCapturePipelineRecord)
    /// The ClientRequestToken was used before with other parameters.
    case tokenReused
    /// The meeting already has an active pipeline (Chime allows one per meeting).
    case meetingAlreadyCaptured(pipelineId: String)
    /// As many pipelines as the server allows are active.
    case limitExceeded(limit: Int)
}
