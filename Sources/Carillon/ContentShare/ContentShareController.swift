/// Shares content (a screen, a file, generated slides) as a second video stream of the attendee, which others see as
/// the attendee `<attendeeId>#content` with ``VideoTileState/isContent`` tiles (Chime's `ContentShareController`).
///
/// The share is a session of its own: its own signaling socket (join token `<joinToken>#content`), its own peer
/// connection, sending video only and receiving none. Each attendee shares one stream at a time and a meeting carries
/// two; a third is refused by the server and reported through ``ContentShareObserver/contentShareDidStop(status:)``
/// with ``ContentShareStatusCode/videoServiceFailed``.
///
/// Threading: every method may be called from any thread; observers are called on the session's callback queue.
public protocol ContentShareController: AnyObject {
    /// Starts sharing `source`'s video with the default configuration; a running share switches to `source`.
    /// A source without a ``ContentShareSource/videoSource`` does nothing.
    func startContentShare(source: ContentShareSource)
    /// Starts sharing with `config` (its ``LocalVideoConfiguration/maxBitRateKbps``; simulcast is ignored).
    func startContentShare(source: ContentShareSource, config: LocalVideoConfiguration)
    /// Stops the share: the share's session leaves the meeting and observers hear
    /// ``ContentShareObserver/contentShareDidStop(status:)`` with ``ContentShareStatusCode/ok``.
    func stopContentShare()
    /// Adds an observer, kept strongly until removed.
    func addContentShareObserver(observer: any ContentShareObserver)
    /// Removes an observer.
    func removeContentShareObserver(observer: any ContentShareObserver)
}
