import CarillonCodecs

/// Where a session plays the audio it receives: a speaker, a recording, or nowhere.
///
/// The session opens a sink in its own format (the ``AudioMode``'s) and writes one frame every 20 ms. Threading: a
/// sink is owned by the session's media event loop once opened; it need not be thread-safe.
public protocol AudioOutputSink {
    /// The format the session writes in, given when it was opened.
    var format: AudioFormat { get }

    /// Plays or stores one frame. Sinks do not throw: a failing sink (a full disk) records the failure and drops
    /// audio, which must never stop the session.
    func write(_ frame: AudioFrame)

    /// Finishes the sink when the session stops using it (closes files). The default does nothing.
    func close()
}

extension AudioOutputSink {
    /// Does nothing.
    public func close() {}
}
