/// Where a media capture pipeline stands, named as Chime names it.
///
/// `Initializing` (created, the meeting's recorder not yet running) → `InProgress` (files being written) →
/// `Stopping` (DeleteMediaCapturePipeline or the meeting's end: the open files are being finished) → `Stopped` (every
/// file complete). `Failed`: files could not be written; what was written stays.
public enum MediaCapturePipelineStatus: String, Sendable, Codable, CaseIterable {
    /// Created; recording starts.
    case initializing = "Initializing"
    /// Recording.
    case inProgress = "InProgress"
    /// Finishing its files.
    case stopping = "Stopping"
    /// Done; every file is complete.
    case stopped = "Stopped"
    /// Could not write its files.
    case failed = "Failed"

    /// Whether it still records (or is about to) and counts against the limits.
    public var isActive: Bool { self == .initializing || self == .inProgress }
}
