import CarillonRTC

/// The RTP numbering of one participant's mixed downlink: plain RTP packets with continuous sequence numbers and
/// timestamps.
///
/// Sequence number and timestamp start at random values (RFC 3550 §5.1) and advance by one and by one frame per
/// packet; the first packet carries the marker bit (start of a talk spurt). Threading: a value; its mixer's owner
/// keeps it.
struct OutboundAudioStream {
    let ssrc: UInt32
    let payloadType: UInt8
    let samplesPerPacket: UInt32
    private(set) var sequenceNumber: UInt16
    private(set) var timestamp: UInt32
    private var started = false

    init(ssrc: UInt32, payloadType: UInt8, samplesPerPacket: UInt32) {
        self.ssrc = ssrc
        self.payloadType = payloadType & 0x7F
        self.samplesPerPacket = samplesPerPacket
        sequenceNumber = .random(in: .min ... .max)
        timestamp = .random(in: .min ... .max)
    }

    /// Moves the timestamp over `frames` frames that were never sent (the mixer skipped them after a stall); the
    /// sequence number stays continuous, so a receiver sees a gap in media time, not a loss.
    mutating func skip(frames: Int) {
        timestamp &+= samplesPerPacket &* UInt32(truncatingIfNeeded: frames)
    }

    /// The next packet carrying `payload`: the fixed 12-byte header (RFC 3550 §5.1), no CSRCs, no extensions.
    mutating func packet(payload: [UInt8]) -> [UInt8] {
        defer {
            started = true
            sequenceNumber &+= 1
            timestamp &+= samplesPerPacket
        }
        return RTPPacket(marker: !started, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp,
                         ssrc: ssrc, payload: payload[...]).serialized()
    }
}
