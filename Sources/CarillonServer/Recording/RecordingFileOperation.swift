import CarillonMedia

/// One thing a recording asks of its files, in order; paths are relative to the pipeline's directory
/// (`audio/…`, `video/…`, `content/…`, `meeting-events/…`, `data-channel/…`).
package enum RecordingFileOperation: Sendable, Equatable {
    /// Create the file (and its folder) with these first bytes.
    case create(path: String, bytes: [UInt8])
    /// Append these bytes.
    case append(path: String, bytes: [UInt8])
    /// Append `ending.appended`, apply `ending.patches` (a WebM file's last cluster, cues and header patches; nil for
    /// a JSON lines file) and close the file: it is complete.
    case finish(path: String, ending: WebMWriter.Ending?)
}
