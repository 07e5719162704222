import CarillonRTC
import NIOCore

/// Reassembles VP8 frames from RTP packets (RFC 7741) and hands them out in decodable order, sans-IO.
///
/// A frame is the packets from one that starts it (S = 1, PID = 0) up to the one with the marker bit, all with the
/// same timestamp and consecutive sequence numbers. Frames leave in sequence order and only while the chain of
/// references is unbroken: the first frame must be a key frame, and after a frame that never completed the assembler
/// waits (for NACK retransmissions to fill the gap) until a later key frame completes, then skips to it. While it
/// waits longer than ``Configuration/keyFrameRequestDelay`` it asks for a key frame (``keyFrameRequestDue(now:)``),
/// at most once per ``Configuration/keyFrameRequestInterval``.
///
/// Packets are kept as slices of the datagrams they came in (no copy) until their frame leaves; one array per frame
/// is allocated for the assembled data. Memory is bounded by ``Configuration/maximumBufferedPackets``. Not
/// thread-safe: owned by one session.
public struct VP8FrameAssembler: Sendable {
    /// Limits and timings.
    public struct Configuration: Sendable, Equatable {
        /// Packets kept waiting for their frame to complete; the oldest are dropped beyond it.
        public var maximumBufferedPackets: Int
        /// How long the assembler may wait for a missing packet before asking for a key frame: longer than a NACK
        /// round trip, so retransmission gets its chance first.
        public var keyFrameRequestDelay: TimeAmount
        /// The least time between two key-frame requests.
        public var keyFrameRequestInterval: TimeAmount

        /// Creates a configuration; the defaults fit round trips up to about 150 ms.
        public init(maximumBufferedPackets: Int = 2_048, keyFrameRequestDelay: TimeAmount = .milliseconds(300),
                    keyFrameRequestInterval: TimeAmount = .milliseconds(500)) {
            self.maximumBufferedPackets = maximumBufferedPackets
            self.keyFrameRequestDelay = keyFrameRequestDelay
            self.keyFrameRequestInterval = keyFrameRequestInterval
        }
    }

    /// One complete VP8 frame.
    public struct Frame: Sendable, Equatable {
        /// The encoded frame (descriptors removed), ready for the decoder.
        public var data: [UInt8]
        /// The RTP timestamp shared by its packets (90 kHz).
        public var timestamp: UInt32
        /// Its PictureID, when the sender sends one.
        public var pictureID: UInt16?
        /// Its temporal layer, when the sender sends one.
        public var temporalLayer: UInt8?
        /// Whether it is a key frame.
        public var isKeyFrame: Bool
        /// The size a key frame announces; nil for delta frames.
        public var keyFrameSize: (width: Int, height: Int)?
        /// How many RTP packets carried it.
        public var packetCount: Int
        /// When its first packet arrived.
        public var firstArrival: NIODeadline

        public static func == (lhs: Frame, rhs: Frame) -> Bool {
            lhs.data == rhs.data && lhs.timestamp == rhs.timestamp && lhs.pictureID == rhs.pictureID
                && lhs.temporalLayer == rhs.temporalLayer && lhs.isKeyFrame == rhs.isKeyFrame
                && lhs.keyFrameSize?.width == rhs.keyFrameSize?.width
                && lhs.keyFrameSize?.height == rhs.keyFrameSize?.height && lhs.packetCount == rhs.packetCount
                && lhs.firstArrival == rhs.firstArrival
        }
    }

    /// Counters for metrics and tests.
    public struct Statistics: Sendable, Equatable {
        /// Frames handed out.
        public var framesAssembled = 0
        /// Key frames among them.
        public var keyFramesAssembled = 0
        /// Frames seen in part and skipped to resynchronise on a key frame.
        public var framesSkipped = 0
        /// Packets ignored: malformed, duplicated, or older than the last frame handed out.
        public var packetsDiscarded = 0
        /// Packets dropped because the buffer was full.
        public var packetsEvicted = 0
        /// Key-frame requests made.
        public var keyFrameRequests = 0
    }

    private struct Stored: Sendable {
        var timestamp: UInt32
        var marker: Bool
        var descriptor: VP8PayloadDescriptor
        var isKeyFrameStart: Bool
        var payload: ArraySlice<UInt8>
        var arrival: NIODeadline
    }

    /// The configuration in use.
    public let configuration: Configuration
    /// Counters so far.
    public private(set) var statistics = Statistics()

    private var unwrapper = SequenceUnwrapper()
    private var packets: [Int64: Stored] = [:]
    private var keyFrameStarts: Set<Int64> = []
    private var lastHandedOut: Int64?
    private var waitingSince: NIODeadline?
    private var lastKeyFrameRequest: NIODeadline?

    /// Creates an assembler that waits for a key frame first.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Packets held for frames not yet complete.
    public var bufferedPackets: Int { packets.count }

    /// Whether the assembler is waiting: packets are buffered that cannot leave yet.
    public var isWaiting: Bool { waitingSince != nil }

    /// When ``keyFrameRequestDue(now:)`` may next answer true; nil while nothing is waited for.
    public var nextDeadline: NIODeadline? {
        guard let waitingSince else { return nil }
        let afterDelay = waitingSince + configuration.keyFrameRequestDelay
        guard let lastKeyFrameRequest else { return afterDelay }
        return max(afterDelay, lastKeyFrameRequest + configuration.keyFrameRequestInterval)
    }

    /// Adds one received packet (after SRTP and RTX unwrapping) and returns the frames it made decodable, in order.
    public mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, payload: ArraySlice<UInt8>,
                                now: NIODeadline) -> [Frame] {
        guard let descriptor = try? VP8PayloadDescriptor(parsing: payload) else {
            statistics.packetsDiscarded += 1
            return []
        }
        let extended = unwrapper.unwrap(sequenceNumber)
        if let lastHandedOut, extended <= lastHandedOut {
            statistics.packetsDiscarded += 1
            return []
        }
        guard packets[extended] == nil else {
            statistics.packetsDiscarded += 1
            return []
        }
        let keyStart = descriptor.isStartOfFrame
            && VP8PayloadDescriptor.isKeyFrame(payload: payload, descriptorLength: descriptor.length)
        packets[extended] = Stored(timestamp: timestamp, marker: marker, descriptor: descriptor,
                                   isKeyFrameStart: keyStart, payload: payload, arrival: now)
        if keyStart { keyFrameStarts.insert(extended) }
        if packets.count > configuration.maximumBufferedPackets, let oldest = packets.keys.min() {
            packets[oldest] = nil
            keyFrameStarts.remove(oldest)
            statistics.packetsEvicted += 1
        }
        let frames = drain()
        waitingSince = packets.isEmpty ? nil : (waitingSince ?? now)
        return frames
    }

    /// Whether to ask the sender for a key frame now (PLI or FIR); true at most once per request interval, and only
    /// after the assembler has waited ``Configuration/keyFrameRequestDelay``. A true answer is counted as a request.
    public mutating func keyFrameRequestDue(now: NIODeadline) -> Bool {
        guard let deadline = nextDeadline, now >= deadline else { return false }
        lastKeyFrameRequest = now
        statistics.keyFrameRequests += 1
        return true
    }

    /// Forgets every buffered packet and waits for a key frame again (the stream was switched or restarted).
    public mutating func reset() {
        packets.removeAll(keepingCapacity: true)
        keyFrameStarts.removeAll(keepingCapacity: true)
        lastHandedOut = nil
        unwrapper = SequenceUnwrapper()
        waitingSince = nil
    }

    // MARK: Assembly

    private mutating func drain() -> [Frame] {
        var frames: [Frame] = []
        while true {
            if let last = lastHandedOut, let range = completeFrame(startingAt: last + 1) {
                frames.append(handOut(range))
                continue
            }
            // The chain is broken or not started: skip to the earliest complete key frame, if any.
            let candidates = keyFrameStarts.filter { start in lastHandedOut.map { start > $0 } ?? true }.sorted()
            var found: ClosedRange<Int64>?
            for candidate in candidates {
                found = completeFrame(startingAt: candidate)
                if found != nil { break }
            }
            guard let range = found else { break }
            skip(before: range.lowerBound)
            frames.append(handOut(range))
        }
        // Progress restarts the wait: only a stall longer than the delay asks for a key frame.
        if !frames.isEmpty { waitingSince = nil }
        return frames
    }

    private func completeFrame(startingAt start: Int64) -> ClosedRange<Int64>? {
        guard let first = packets[start], first.descriptor.isStartOfFrame else { return nil }
        var sequence = start
        while let packet = packets[sequence], packet.timestamp == first.timestamp {
            if packet.marker { return start...sequence }
            sequence += 1
            if sequence > start + Int64(configuration.maximumBufferedPackets) { return nil }
        }
        return nil
    }

    private mutating func handOut(_ range: ClosedRange<Int64>) -> Frame {
        let first = packets[range.lowerBound]!
        var size = 0
        for sequence in range { size += packets[sequence]!.payload.count - packets[sequence]!.descriptor.length }
        var data: [UInt8] = []
        data.reserveCapacity(size)
        for sequence in range {
            let packet = packets.removeValue(forKey: sequence)!
            data += packet.payload.dropFirst(packet.descriptor.length)
        }
        keyFrameStarts.remove(range.lowerBound)
        lastHandedOut = range.upperBound
        statistics.framesAssembled += 1
        if first.isKeyFrameStart { statistics.keyFramesAssembled += 1 }
        return Frame(
            data: data, timestamp: first.timestamp, pictureID: first.descriptor.pictureID,
            temporalLayer: first.descriptor.temporalLayer, isKeyFrame: first.isKeyFrameStart,
            keyFrameSize: first.isKeyFrameStart
                ? VP8PayloadDescriptor.keyFrameSize(payload: first.payload, descriptorLength: first.descriptor.length)
                : nil,
            packetCount: range.count, firstArrival: first.arrival)
    }

    /// Drops every packet before `start`, counting the frames they belonged to as skipped.
    private mutating func skip(before start: Int64) {
        let dropped = packets.filter { $0.key < start }
        var timestamps = Set<UInt32>()
        for (sequence, packet) in dropped {
            timestamps.insert(packet.timestamp)
            packets[sequence] = nil
            keyFrameStarts.remove(sequence)
        }
        // A gap right after the last frame handed out is at least one frame that never arrived at all.
        let unseen = lastHandedOut.map { last in dropped[last + 1] == nil ? 1 : 0 } ?? 0
        statistics.framesSkipped += timestamps.count + (timestamps.isEmpty ? unseen : 0)
    }
}
