import Foundation

/// Where and how the server records media capture pipelines (`carillon serve --recordings-dir`).
public struct RecordingConfiguration: Sendable, Equatable {
    /// Chime's chunk length: a new file every 5 s.
    public static let defaultChunkSeconds = 5

    /// The root of every pipeline's files: `<directory>/<bucket>/<prefix>/<MediaPipelineId>/`.
    public var directory: URL
    /// How long each file runs before the next starts, seconds; nil keeps each stream in one file.
    public var chunkSeconds: Int?
    /// The most pipelines active at once (Chime's default quota in us-east-1).
    public var activePipelineLimit: Int

    /// Creates a configuration.
    public init(directory: URL, chunkSeconds: Int? = Self.defaultChunkSeconds, activePipelineLimit: Int = 100) {
        self.directory = directory
        self.chunkSeconds = chunkSeconds
        self.activePipelineLimit = activePipelineLimit
    }
}
