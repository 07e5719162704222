/// What the control API's media capture pipeline operations need of the server: the limit on active pipelines, and
/// starting and stopping a stored pipeline's recording. The server has one only when it records
/// (`carillon serve --recordings-dir`); without it CreateMediaCapturePipeline is refused.
public protocol MediaCaptureControl: Sendable {
    /// The most pipelines active (Initializing or InProgress) at once; CreateMediaCapturePipeline beyond it gets
    /// ResourceLimitExceededException.
    var activePipelineLimit: Int { get }
    /// Starts recording a pipeline just stored as Initializing; its status then follows in the store (InProgress,
    /// and Stopped or Failed when it ends).
    func start(_ pipeline: MediaCapturePipelineRecord)
    /// Stops a pipeline just stored as Stopping; it becomes Stopped once its files are finished.
    func stop(_ pipeline: MediaCapturePipelineRecord)
}
