import CarillonRTC
import NIOCore

/// An adaptive jitter buffer for one audio stream (Opus), sans-IO: fed packets with their arrival times, it tells the
/// decoder, once per frame of output, what to produce.
///
/// It never decodes; it hands out payloads and instructions (``Playout``). Its target delay covers a percentile of the
/// recent delay variation plus one frame, within the configured bounds; it rises at once and falls slowly. The buffer
/// follows the target by dropping a packet or inserting a concealed frame, at most once per adaptation interval, and
/// stalls on an underrun; this also absorbs clock drift between the sender and the output device. A backlog beyond the
/// maximum delay (a burst after a stall) is dropped at once down to the target, so latency never stays high. After a
/// long gap it resynchronises on the next packet; a sender restart (a jump in transit delay) resets it.
///
/// Call ``nextFrame(now:)`` whenever the decoder needs the next frame: every playout tick when frames are as long
/// as the tick (20 ms, the downlink norm); with other frame lengths (see ``frameDuration``), each time the audio of
/// the previous frame is used up. A value type with no locks: keep it on one thread (the session's event loop).
public struct AudioJitterBuffer: Sendable {
    private struct Slot: Sendable {
        var sequence: Int64
        var timestamp: UInt32
        var payload: ArraySlice<UInt8>
    }

    private enum Phase: Sendable {
        /// Buffering before the first frame is played, or after a long gap.
        case waiting
        case playing
    }

    /// The configuration in effect (out-of-range values brought into range).
    public let configuration: Configuration
    /// Counters since creation.
    public private(set) var statistics = AudioJitterBufferStatistics()

    // Slots are indexed by extended sequence number modulo the capacity; every buffered packet lies within
    // `capacity` slots of `cursor`, so two never share an index.
    private var slots: [Slot?]
    private var bufferedCount = 0
    private var phase = Phase.waiting
    /// Playing: the next slot to hand out. Waiting with packets buffered: the lowest buffered slot.
    private var cursor: Int64 = 0
    /// The highest slot already handed out; anything at or below it is late or a duplicate.
    private var consumedThrough: Int64?
    private var newest: (sequence: Int64, timestamp: Int64, transit: Int64)?
    private var origin: (arrival: NIODeadline, timestamp: Int64)?
    private var sequenceUnwrapper = SequenceUnwrapper()
    private var timestampUnwrapper = TimestampUnwrapper()
    private var frameUnits: Int64
    private var candidateFrameUnits: Int64?
    private var delayVariation: DelayVariationEstimator
    private var target: Int64
    private var lastTargetUpdate: NIODeadline?
    private var filteredLevel = 0.0
    private var lastAdaptation: NIODeadline?
    private var lastArrival: NIODeadline?
    private var waitingSince: NIODeadline?
    private var concealmentRun = 0
    /// Underrun stalls since the last slot was handed out: slots found missing afterwards had their time covered
    /// by those stalls and are skipped rather than concealed a second time. Stalls left over once the stream goes
    /// on did add delay, and only then are they counted as inserted frames.
    private var stallCredit = 0
    private var consecutiveLate = 0
    private var recentlyPlayed: [Int64]

    /// Weight of the newest level in the filtered buffer level: about 0.7 s of memory at 20 ms frames, so the
    /// frame-sized swings of a jittery arrival pattern do not trigger drops and insertions in turn.
    private static let levelSmoothing = 0.03
    /// How fast the target may fall, in nanoseconds per second: slow, so periodic bursts of jitter stay covered.
    private static let targetDecayPerSecond: Int64 = 10_000_000
    /// Late packets in a row that mean the sequence numbers moved backwards (a sender restart) rather than lateness.
    private static let lateRunLimit = 8
    private static let playedHistory = 64
    /// Longest timestamp step per sequence number taken as a frame duration, in seconds (Opus packs at most 120 ms).
    private static let longestFrame = 0.120

    /// Creates an empty buffer.
    public init(configuration: Configuration = .init()) {
        let configuration = configuration.sanitized
        self.configuration = configuration
        slots = Array(repeating: nil, count: configuration.capacity)
        frameUnits = max(1, configuration.frameDuration.nanoseconds * Int64(configuration.clockRate) / 1_000_000_000)
        delayVariation = DelayVariationEstimator(windowNanoseconds: configuration.jitterWindow.nanoseconds,
                                                 percentile: configuration.jitterPercentile)
        target = configuration.initialTargetDelay.nanoseconds
        recentlyPlayed = Array(repeating: .min, count: Self.playedHistory)
    }

    // MARK: State

    /// The current adaptive target delay.
    public var targetDelay: TimeAmount { .nanoseconds(target) }

    /// Audio buffered ahead of playout: the slots from the next one to hand out through the newest packet received.
    public var currentDelay: TimeAmount { .nanoseconds(level) }

    /// The frame duration detected from timestamp steps (the configured one until two equal steps are seen); a
    /// `.conceal` or `.silence` stands for one frame of it.
    public var frameDuration: TimeAmount { .nanoseconds(frameNanoseconds) }

    /// Packets held.
    public var bufferedPackets: Int { bufferedCount }

    private var frameNanoseconds: Int64 { frameUnits * 1_000_000_000 / Int64(configuration.clockRate) }

    private var level: Int64 {
        guard bufferedCount > 0 || phase == .playing, let newest, newest.sequence >= cursor else { return 0 }
        return (newest.sequence - cursor + 1) * frameNanoseconds
    }

    // MARK: Input

    /// Adds a received packet; its payload stays a slice of the datagram (no copy).
    public mutating func insert(_ packet: RTPPacket, arrival: NIODeadline) {
        insert(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, payload: packet.payload,
               arrival: arrival)
    }

    /// Adds a received packet. Late packets (their slot already handed out) and duplicates are counted and dropped.
    public mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, payload: ArraySlice<UInt8>, arrival: NIODeadline) {
        var sequence = sequenceUnwrapper.unwrap(sequenceNumber)
        var extendedTimestamp = timestampUnwrapper.unwrap(timestamp)
        var transit = self.transit(arrival: arrival, timestamp: extendedTimestamp)
        if isDiscontinuity(sequence: sequence, transit: transit) {
            reset()
            sequence = sequenceUnwrapper.unwrap(sequenceNumber)
            extendedTimestamp = timestampUnwrapper.unwrap(timestamp)
            transit = self.transit(arrival: arrival, timestamp: extendedTimestamp)
        }

        if let consumedThrough, sequence <= consumedThrough {
            if recentlyPlayed[index(sequence, modulo: Self.playedHistory)] == sequence {
                statistics.packetsDuplicate += 1
                return
            }
            statistics.packetsLate += 1
            // A late packet still tells how late packets are: without it the target would never cover them.
            recordDelay(arrival: arrival, transit: transit)
            consecutiveLate += 1
            guard consecutiveLate >= Self.lateRunLimit else { return }
            // Many late packets in a row: the sender restarted with lower sequence numbers.
            reset()
            sequence = sequenceUnwrapper.unwrap(sequenceNumber)
            extendedTimestamp = timestampUnwrapper.unwrap(timestamp)
            transit = self.transit(arrival: arrival, timestamp: extendedTimestamp)
        }
        consecutiveLate = 0
        if bufferedCount > 0, slots[index(sequence)]?.sequence == sequence {
            statistics.packetsDuplicate += 1
            return
        }
        recordDelay(arrival: arrival, transit: transit)
        lastArrival = arrival

        if phase == .waiting {
            if bufferedCount == 0 {
                cursor = sequence
                waitingSince = arrival
            } else if sequence < cursor {
                // Reordered ahead of the first packet buffered: start from it if the span still fits, else it is
                // too old to be of use.
                guard let newest, newest.sequence - sequence < Int64(configuration.capacity) else {
                    statistics.packetsLate += 1
                    return
                }
                cursor = sequence
            }
        }
        if sequence - cursor >= Int64(configuration.capacity) {
            // Too far ahead to store: everything buffered is stale; start again from this packet.
            flush()
            phase = .waiting
            cursor = sequence
            waitingSince = arrival
            statistics.resynchronizations += 1
        }

        slots[index(sequence)] = Slot(sequence: sequence, timestamp: timestamp, payload: payload)
        bufferedCount += 1
        statistics.packetsInserted += 1
        learnFrameDuration(sequence: sequence, timestamp: extendedTimestamp)
        if newest.map({ sequence > $0.sequence }) ?? true {
            newest = (sequence, extendedTimestamp, transit)
        }
    }

    // MARK: Output

    /// What the decoder should produce for the next frame of output at `now`.
    public mutating func nextFrame(now: NIODeadline) -> Playout {
        updateTarget(now: now)
        if phase == .waiting {
            guard bufferedCount > 0, level + frameNanoseconds / 2 >= target
                    || now - (waitingSince ?? now) >= .nanoseconds(target + frameNanoseconds) else {
                statistics.framesSilent += 1
                return .silence
            }
            phase = .playing
            consumedThrough = cursor - 1
            filteredLevel = Double(level)
            concealmentRun = 0
            stallCredit = 0
        }

        let level = self.level
        let frame = frameNanoseconds
        filteredLevel += (Double(level) - filteredLevel) * Self.levelSmoothing

        if bufferedCount == 0 {
            if let lastArrival, now - lastArrival >= configuration.resynchronizationGap {
                // The stream stopped: wait for it and resynchronise on its next packet instead of concealing on.
                phase = .waiting
                statistics.resynchronizations += 1
                statistics.framesSilent += 1
                return .silence
            }
            // Underrun: stall one frame.
            stallCredit += 1
            return concealOrSilence()
        }

        var next = firstBuffered()
        let skippable = next - cursor
        if skippable > 0, stallCredit > 0 || skippable * frame > configuration.maximumDelay.nanoseconds {
            // Slots lost during an underrun already had their time filled by the stall; a gap longer than the
            // maximum delay cannot be waited through. Either way, move on to the packet that is here.
            let skipped = stallCredit > 0 ? min(skippable, Int64(stallCredit)) : skippable
            statistics.packetsLost += Int(skipped)
            stallCredit -= min(stallCredit, Int(skipped))
            advance(by: skipped)
        }
        statistics.framesInserted += stallCredit
        stallCredit = 0

        if level > configuration.maximumDelay.nanoseconds {
            // A burst after a stall (the sender's machine, the network, the reading loop) holds more than any target
            // allows: played through, the stream would stay that late for as long as the one-at-a-time drops take
            // (seconds of backlog, minutes). The oldest packets go at once, down to the target.
            var dropped = 0
            while self.level > target, bufferedCount > 1 {
                if slots[index(cursor)]?.sequence == cursor {
                    slots[index(cursor)] = nil
                    bufferedCount -= 1
                    dropped += 1
                } else {
                    statistics.packetsLost += 1
                }
                advance(by: 1)
            }
            statistics.framesDropped += dropped
            statistics.backlogFlushes += 1
            filteredLevel = Double(self.level)
            lastAdaptation = now
            next = firstBuffered()
        }

        let mayAdapt = lastAdaptation.map { now - $0 >= configuration.adaptationInterval } ?? true
        if mayAdapt, next == cursor, filteredLevel >= Double(target + frame * 9 / 10),
           level >= target + frame / 2 {
            // Clearly above target for a while: drop the oldest packet.
            slots[index(cursor)] = nil
            bufferedCount -= 1
            advance(by: 1)
            statistics.framesDropped += 1
            filteredLevel -= Double(frame)
            lastAdaptation = now
            if bufferedCount == 0 {
                // Cannot happen with the level test above; kept so playout never reads an empty buffer.
                stallCredit += 1
                return concealOrSilence()
            }
            next = firstBuffered()
        } else if mayAdapt, filteredLevel < Double(target - frame / 2) {
            // Below target: insert a frame to build delay up before an underrun forces it.
            filteredLevel += Double(frame)
            lastAdaptation = now
            statistics.framesInserted += 1
            return concealOrSilence()
        }

        if next == cursor, let slot = slots[index(cursor)] {
            slots[index(cursor)] = nil
            bufferedCount -= 1
            recentlyPlayed[index(cursor, modulo: Self.playedHistory)] = cursor
            advance(by: 1)
            concealmentRun = 0
            statistics.packetsPlayed += 1
            return .packet(slot.payload, timestamp: slot.timestamp)
        }
        statistics.packetsLost += 1
        if next == cursor + 1, let following = slots[index(next)] {
            advance(by: 1)
            concealmentRun = 0
            statistics.framesRecovered += 1
            return .recoverFromNext(following.payload)
        }
        advance(by: 1)
        return concealOrSilence()
    }

    // MARK: Internals

    private func index(_ sequence: Int64) -> Int { index(sequence, modulo: configuration.capacity) }

    private func index(_ sequence: Int64, modulo: Int) -> Int {
        let remainder = Int(sequence % Int64(modulo))
        return remainder < 0 ? remainder + modulo : remainder
    }

    /// The lowest buffered slot at or after the cursor; only called with packets buffered.
    private func firstBuffered() -> Int64 {
        var sequence = cursor
        while slots[index(sequence)]?.sequence != sequence { sequence += 1 }
        return sequence
    }

    private mutating func advance(by slots: Int64) {
        cursor += slots
        consumedThrough = cursor - 1
    }

    private mutating func concealOrSilence() -> Playout {
        concealmentRun += 1
        if concealmentRun > configuration.maximumConcealments {
            // Concealment beyond about 100 ms only drones; fall back to silence.
            statistics.framesSilent += 1
            return .silence
        }
        statistics.framesConcealed += 1
        return .conceal
    }

    /// Nanoseconds from the RTP timestamp's media time to the arrival, both relative to the stream's first packet.
    private mutating func transit(arrival: NIODeadline, timestamp: Int64) -> Int64 {
        guard let origin else {
            origin = (arrival, timestamp)
            return 0
        }
        let media = Double(timestamp - origin.timestamp) * 1e9 / Double(configuration.clockRate)
        return (arrival - origin.arrival).nanoseconds - Int64(media.rounded())
    }

    private func isDiscontinuity(sequence: Int64, transit: Int64) -> Bool {
        guard let newest, abs(transit - newest.transit) > configuration.discontinuityThreshold.nanoseconds else {
            return false
        }
        // A late packet is expected to have a large transit; only a new one, or one absurdly far back, is a jump.
        return sequence > newest.sequence || newest.sequence - sequence >= Int64(configuration.capacity)
    }

    private mutating func recordDelay(arrival: NIODeadline, transit: Int64) {
        delayVariation.record(arrival: Int64(truncatingIfNeeded: arrival.uptimeNanoseconds), transit: transit)
        if let estimate = delayVariation.estimate {
            statistics.jitterMilliseconds = Double(estimate) / 1e6
        }
    }

    private mutating func learnFrameDuration(sequence: Int64, timestamp: Int64) {
        guard let newest, sequence == newest.sequence + 1 else { return }
        let step = timestamp - newest.timestamp
        // Steps longer than a packet can be are pauses (DTX), not frames; a new length must be seen twice.
        guard step > 0, Double(step) <= Self.longestFrame * Double(configuration.clockRate) else { return }
        if step == frameUnits {
            candidateFrameUnits = nil
        } else if step == candidateFrameUnits {
            frameUnits = step
            candidateFrameUnits = nil
        } else {
            candidateFrameUnits = step
        }
    }

    private mutating func updateTarget(now: NIODeadline) {
        defer { lastTargetUpdate = now }
        guard let estimate = delayVariation.estimate else { return }
        let desired = min(max(estimate + frameNanoseconds, configuration.minimumDelay.nanoseconds),
                          configuration.maximumDelay.nanoseconds)
        if desired >= target {
            target = desired
        } else {
            let elapsed = max(0, (now - (lastTargetUpdate ?? now)).nanoseconds)
            let decay = elapsed * Self.targetDecayPerSecond / 1_000_000_000
            target = max(desired, target - decay)
        }
    }

    private mutating func flush() {
        statistics.packetsDiscarded += bufferedCount
        if bufferedCount > 0 {
            for position in slots.indices { slots[position] = nil }
        }
        bufferedCount = 0
    }

    /// Forgets the stream (a new sender); keeps the target and the learnt frame duration.
    private mutating func reset() {
        flush()
        statistics.resets += 1
        phase = .waiting
        consumedThrough = nil
        newest = nil
        origin = nil
        sequenceUnwrapper = SequenceUnwrapper()
        timestampUnwrapper = TimestampUnwrapper()
        candidateFrameUnits = nil
        delayVariation.reset()
        lastArrival = nil
        waitingSince = nil
        concealmentRun = 0
        stallCredit = 0
        consecutiveLate = 0
        for position in recentlyPlayed.indices { recentlyPlayed[position] = .min }
    }
}
