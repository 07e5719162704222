import CarillonRTC
import NIOCore

/// Makes the VP8 packets of changing source streams look like one continuous stream on a forwarder's downlink
/// (what an SFU needs, `video.md` §2): its own SSRC and payload type, and sequence numbers, timestamps, PictureID,
/// TL0PICIDX and KEYIDX that continue across a change of source, rewritten in place.
///
/// A downlink starts, and restarts after ``switchSource(to:)``, at a key frame of the new source: until one arrives
/// every packet is dropped with ``Verdict/dropNeedsKeyFrame``. After a switch the first sequence number is the last
/// one sent plus one (plus two when the last frame sent ended without its marker, so the receiver sees that frame
/// incomplete), the timestamp advances by the time that passed, and the picture indices by one. Within one source
/// the offsets stay fixed, so reordered and retransmitted packets keep their order.
///
/// A source with 7-bit PictureIDs keeps them 7-bit (rewritten modulo 128; expanding them needs a longer packet),
/// while the downlink's own 15-bit count follows them, so a later 15-bit source continues from the right value. O(1) per packet, no allocation. Not thread-safe: owned by the downlink's meeting loop.
public struct VP8StreamRewriter: Sendable {
    /// What to do with a packet.
    public enum Verdict: Sendable, Equatable {
        /// Rewritten: send it.
        case forward
        /// Not from the current source, or from before the point the downlink joined it: drop it.
        case drop
        /// Waiting for a key frame of the current source: drop it, and make sure one has been asked for.
        case dropNeedsKeyFrame
    }

    /// The downlink's SSRC, fixed for the life of its m-line.
    public let ssrc: UInt32
    /// The downlink's VP8 payload type.
    public let payloadType: UInt8
    /// The SSRC of the stream being forwarded, if any.
    public private(set) var source: UInt32?
    /// Whether the downlink waits for a key frame of its source before forwarding anything.
    public private(set) var isWaitingForKeyFrame = true
    /// Packets forwarded so far.
    public private(set) var packetsForwarded = 0

    private var sequenceOffset: UInt16 = 0
    private var timestampOffset: UInt32 = 0
    private var pictureIDOffset: UInt16 = 0
    private var tl0Offset: UInt8 = 0
    private var keyIndexOffset: UInt8 = 0
    private var sourceUnwrapper = SequenceUnwrapper()
    private var sourceStart: Int64 = 0

    private var lastSequence: UInt16
    private var lastTimestamp: UInt32?
    private var lastPictureID: UInt16
    private var lastTL0: UInt8 = 0
    private var lastKeyIndex: UInt8 = 0
    private var lastArrival: NIODeadline?
    private var lastEndedFrame = true
    private var pendingTimestampDelta: UInt32?

    /// Creates a downlink stream with no source. The first packet forwarded gets `firstSequenceNumber`, the first
    /// picture `firstPictureID`.
    public init(ssrc: UInt32, payloadType: UInt8, firstSequenceNumber: UInt16 = .random(in: 0...UInt16.max),
                firstPictureID: UInt16 = .random(in: 0...0x7FFF)) {
        self.ssrc = ssrc
        self.payloadType = payloadType & 0x7F
        lastSequence = firstSequenceNumber &- 1
        lastPictureID = (firstPictureID &- 1) & 0x7FFF
    }

    /// Forwards `source` from its next key frame on (nil: forward nothing). Switching to the current source again
    /// also waits for a key frame (a resume).
    ///
    /// `timestampDelta` is, for another layer of the same sender, its RTP clock minus the current source's at one
    /// instant (from both layers' sender reports): the new layer's timestamps are then mapped onto the downlink's
    /// timeline through it, so a picture keeps its capture time across the switch. The mapping is used only when it
    /// moves the timestamp forward by no more than the arrival gap plus ``maximumTimestampLead``; otherwise (and without
    /// a delta) the timestamp advances by the time that passed since the last packet sent.
    public mutating func switchSource(to source: UInt32?, timestampDelta: UInt32? = nil) {
        if source != self.source { sourceUnwrapper = SequenceUnwrapper() }
        self.source = source
        pendingTimestampDelta = timestampDelta
        isWaitingForKeyFrame = true
    }

    /// Takes back the newest packets it rewrote, which were never sent (a forwarder dropped them from its send queue
    /// on a switch down): the next packet continues from `lastKept`, the newest one that did go out (as rewritten,
    /// header and VP8 descriptor), and the picture count steps back by `picturesWithdrawn` (the picture starts among
    /// the dropped packets). Meant while waiting for a key frame (after ``switchSource(to:timestampDelta:)``): a
    /// dropped tail that ended mid-frame makes the next frame start one sequence number later, as after any switch.
    public mutating func withdraw(lastKept: [UInt8], picturesWithdrawn: Int) {
        guard let header = try? RTPHeader(reading: lastKept), header.payloadRange.upperBound <= lastKept.count else { return }
        lastSequence = header.sequenceNumber
        lastTimestamp = header.timestamp
        lastEndedFrame = header.marker
        lastPictureID = (lastPictureID &- UInt16(truncatingIfNeeded: picturesWithdrawn)) & 0x7FFF
        if let descriptor = try? VP8PayloadDescriptor(parsing: lastKept[header.payloadRange]) {
            if let tl0 = descriptor.tl0PictureIndex { lastTL0 = tl0 }
            if let keyIndex = descriptor.keyIndex { lastKeyIndex = keyIndex }
        }
    }

    /// How far ahead of the arrival gap a timestamp mapped through sender reports may land (75 ms at 90 kHz).
    public static let maximumTimestampLead: Int64 = 6_750

    /// Rewrites `packet` (a plain RTP packet whose header is `header`) in place for this downlink, or says why not.
    /// `now` is its arrival time, used to advance the timestamp across a switch.
    public mutating func rewrite(_ packet: inout [UInt8], header: RTPHeader, now: NIODeadline) -> Verdict {
        guard header.ssrc == source, header.payloadRange.upperBound <= packet.count,
              let descriptor = try? VP8PayloadDescriptor(parsing: packet[header.payloadRange])
        else { return .drop }
        let extended = sourceUnwrapper.unwrap(header.sequenceNumber)
        if isWaitingForKeyFrame {
            guard descriptor.isStartOfFrame,
                  VP8PayloadDescriptor.isKeyFrame(payload: packet[header.payloadRange], descriptorLength: descriptor.length)
            else { return .dropNeedsKeyFrame }
            join(header: header, descriptor: descriptor, at: extended, now: now)
        } else if extended < sourceStart {
            return .drop
        }
        var rewritten = header
        rewritten.ssrc = ssrc
        rewritten.payloadType = payloadType
        rewritten.sequenceNumber = header.sequenceNumber &- sequenceOffset
        rewritten.timestamp = header.timestamp &- timestampOffset
        rewritten.write(into: &packet)
        let base = header.payloadRange.lowerBound
        var pictureID: UInt16?
        if let offset = descriptor.pictureIDOffset, let original = descriptor.pictureID {
            if descriptor.hasLongPictureID {
                let value = (original &- pictureIDOffset) & 0x7FFF
                pictureID = value
                packet[base + offset] = 0x80 | UInt8(value >> 8)
                packet[base + offset + 1] = UInt8(truncatingIfNeeded: value)
            } else {
                let low = UInt8((original &- pictureIDOffset) & 0x7F)
                packet[base + offset] = low
                // The downlink's 15-bit count moves by the 7-bit step (sign-extended, so a reordered packet steps
                // back): after a wrap of the source's 7 bits a later 15-bit source still continues where this ended.
                let step = Int8(bitPattern: (low &- UInt8(truncatingIfNeeded: lastPictureID & 0x7F)) << 1) >> 1
                pictureID = UInt16(bitPattern: Int16(bitPattern: lastPictureID) &+ Int16(step)) & 0x7FFF
            }
        }
        var tl0: UInt8?
        if let offset = descriptor.tl0PictureIndexOffset, let original = descriptor.tl0PictureIndex {
            tl0 = original &- tl0Offset
            packet[base + offset] = tl0!
        }
        var keyIndex: UInt8?
        if let offset = descriptor.temporalAndKeyOffset, let original = descriptor.keyIndex {
            keyIndex = (original &- keyIndexOffset) & 0x1F
            packet[base + offset] = packet[base + offset] & 0xE0 | keyIndex!
        }
        // Only the newest packet moves the continuation point: a late retransmission must not pull it back.
        if Int16(bitPattern: rewritten.sequenceNumber &- lastSequence) > 0 || packetsForwarded == 0 {
            lastSequence = rewritten.sequenceNumber
            lastTimestamp = rewritten.timestamp
            lastEndedFrame = header.marker
            lastArrival = now
            if let pictureID { lastPictureID = pictureID }
            if let tl0 { lastTL0 = tl0 }
            if let keyIndex { lastKeyIndex = keyIndex }
        }
        packetsForwarded += 1
        return .forward
    }

    /// Fixes the offsets so the key frame starting at `header` continues what the downlink sent before.
    private mutating func join(header: RTPHeader, descriptor: VP8PayloadDescriptor, at extended: Int64,
                               now: NIODeadline) {
        let firstSequence = lastSequence &+ (lastEndedFrame ? 1 : 2)
        sequenceOffset = header.sequenceNumber &- firstSequence
        var firstTimestamp: UInt32
        if let lastTimestamp, let lastArrival {
            // 90 kHz ticks since the last packet sent, at least one so time never stands still.
            let elapsed = min(max(1, (now - lastArrival).nanoseconds * 90 / 1_000_000), Int64(UInt32.max / 2))
            firstTimestamp = lastTimestamp &+ UInt32(truncatingIfNeeded: elapsed)
            if let delta = pendingTimestampDelta {
                // Through the sender reports: the same capture instant on the old layer's clock.
                let mapped = header.timestamp &- delta &- timestampOffset
                let lead = Int64(Int32(bitPattern: mapped &- lastTimestamp))
                if lead > 0, lead <= elapsed + Self.maximumTimestampLead { firstTimestamp = mapped }
            }
        } else {
            firstTimestamp = header.timestamp
        }
        pendingTimestampDelta = nil
        timestampOffset = header.timestamp &- firstTimestamp
        if let pictureID = descriptor.pictureID {
            pictureIDOffset = (pictureID &- ((lastPictureID &+ 1) & 0x7FFF)) & 0x7FFF
        }
        if let tl0 = descriptor.tl0PictureIndex { tl0Offset = tl0 &- (lastTL0 &+ 1) }
        if let keyIndex = descriptor.keyIndex { keyIndexOffset = (keyIndex &- (lastKeyIndex &+ 1)) & 0x1F }
        sourceStart = extended
        isWaitingForKeyFrame = false
    }
}
