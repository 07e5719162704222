import CarillonCodecs

extension AudioMode {
    /// The PCM format a session in this mode captures and plays: what its input sources produce, what its output
    /// sinks get and what ``AudioReceivePipeline`` returns.
    var format: AudioFormat {
        switch self {
        case .mono16K: .mono16k
        case .mono48K: .mono48k
        case .stereo48K: .stereo48k
        }
    }
}
