import NIOCore

/// The fixed grid a real-time media producer runs on (the client's 20 ms audio frames, the server mixer's ticks, the
/// capture sources' pictures), sans-IO: it is told `now` and says whether a frame is due and how many the stream must
/// skip first.
///
/// A producer must keep real time on average, or its receivers drift: a mixer that makes fewer frames than the clock
/// demands lets its uplinks' jitter buffers fill (and flush speech) while its listeners' buffers run dry. So a late
/// tick is caught up frame by frame, on the grid, as long as it is at most ``maximumCatchUp`` behind: a loaded
/// machine's event loops run 50–200 ms late routinely, and receivers' jitter buffers absorb the burst. A stall longer
/// than that (a suspended process) is not replayed: its frames are skipped, the grid keeps its phase, and
/// ``takeFrame(now:)`` returns how many frames were skipped so the stream's RTP timestamp can jump over them (a
/// receiver then sees the gap in media time, as after a lost burst, rather than audio that plays late for ever).
///
/// Cost: O(1) per call. Threading: a value owned by its producer's event loop.
public struct MediaFrameClock: Sendable, Equatable {
    /// The frame length and tick period.
    public let period: TimeAmount
    /// How far behind the grid a tick may be and still be caught up frame by frame.
    public let maximumCatchUp: TimeAmount
    /// When the next frame is due; nil before ``start(at:)``.
    public private(set) var nextFrame: NIODeadline?

    /// The catch-up bound producers use unless they have a reason not to: longer than any scheduling lag of a busy
    /// machine, short enough that a receiver's jitter buffer absorbs the burst.
    public static let defaultMaximumCatchUp = TimeAmount.milliseconds(500)

    /// A stopped clock with frames of `period`.
    public init(period: TimeAmount, maximumCatchUp: TimeAmount = MediaFrameClock.defaultMaximumCatchUp) {
        precondition(period > .zero, "a frame clock needs a positive period")
        self.period = period
        self.maximumCatchUp = max(maximumCatchUp, .zero)
    }

    /// Starts (or restarts) the grid: the first frame is due at `start`.
    public mutating func start(at start: NIODeadline) {
        nextFrame = start
    }

    /// Stops the clock: no frame is due until it is started again.
    public mutating func stop() {
        nextFrame = nil
    }

    /// Takes the frame due at `now`, if any: nil when the clock is stopped or the next frame is not due yet;
    /// otherwise the number of frames skipped before it (0 unless the tick came more than ``maximumCatchUp`` late).
    /// After it, ``nextFrame`` is the following grid point, which is still in the past while catching up.
    public mutating func takeFrame(now: NIODeadline) -> Int? {
        guard let due = nextFrame, due <= now else { return nil }
        let lag = now - due
        var skipped = 0
        if lag > maximumCatchUp {
            // Skip every frame whose whole period has passed; the frame taken now is the one `now` falls in.
            skipped = Int(lag.nanoseconds / period.nanoseconds)
        }
        nextFrame = due + .nanoseconds(period.nanoseconds * Int64(skipped + 1))
        return skipped
    }
}
