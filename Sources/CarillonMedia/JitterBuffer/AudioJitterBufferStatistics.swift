/// Counters of one ``AudioJitterBuffer``, for metrics and for tests.
///
/// Two identities hold at any time: every ``AudioJitterBuffer/nextFrame(now:)`` call is counted once in
/// `packetsPlayed + framesRecovered + framesConcealed + framesSilent`, and every sequence slot the playout has moved
/// past is counted once in `packetsPlayed + packetsLost + framesDropped`. A plain value: read it on the owner's thread.
public struct AudioJitterBufferStatistics: Sendable, Equatable {
    /// Packets accepted into the buffer (not late, not duplicates).
    public var packetsInserted = 0
    /// Packets handed out as ``AudioJitterBuffer/Playout/packet(_:timestamp:)``.
    public var packetsPlayed = 0
    /// Packets that arrived after their slot had been played out, concealed or recovered (or too far behind the
    /// newest to be stored); dropped.
    public var packetsLate = 0
    /// Copies of packets already buffered or already played; dropped.
    public var packetsDuplicate = 0
    /// Buffered packets thrown away by a reset or an overflow of the capacity.
    public var packetsDiscarded = 0
    /// Sequence slots played out without their packet (recovered with FEC, concealed, or skipped after a stall).
    public var packetsLost = 0
    /// Ticks answered with ``AudioJitterBuffer/Playout/recoverFromNext(_:)``.
    public var framesRecovered = 0
    /// Ticks answered with ``AudioJitterBuffer/Playout/conceal``.
    public var framesConcealed = 0
    /// Ticks answered with ``AudioJitterBuffer/Playout/silence``.
    public var framesSilent = 0
    /// Packets skipped to bring the delay down to the target.
    public var framesDropped = 0
    /// Times a backlog beyond the maximum delay was dropped at once (its packets are in `framesDropped`).
    public var backlogFlushes = 0
    /// Frames of delay added while playing: deliberate build-up, and underrun stalls after which the stream went on
    /// where it was (stalls whose missing packets never came are counted in `packetsLost` instead).
    public var framesInserted = 0
    /// Times playout restarted on a new packet after a long gap or an overflow.
    public var resynchronizations = 0
    /// Times the stream was reset because its timestamps or sequence numbers jumped (sender restart).
    public var resets = 0
    /// The current estimate of network delay variation in milliseconds (the configured percentile of relative
    /// transit delay over the jitter window).
    public var jitterMilliseconds = 0.0

    /// All zero.
    public init() {}
}
