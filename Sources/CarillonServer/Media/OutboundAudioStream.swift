import CarillonRTC

/// One participant's mixed downlink: plain RTP packets numbered by ``RTPStreamNumbering`` (one frame of media time
/// each); the first packet carries the marker bit (start of a talk spurt). Threading: a value; its mixer's owner
/// keeps it.
struct OutboundAudioStream {
    let ssrc: UInt32
    let payloadType: UInt8
    let samplesPerPacket: UInt32
    private(set) var numbering = RTPStreamNumbering()
    private var started = false

    init(ssrc: UInt32, payloadType: UInt8, samplesPerPacket: UInt32) {
        self.ssrc = ssrc
        self.payloadType = payloadType & 0x7F
        self.samplesPerPacket = samplesPerPacket
    }

    /// Moves the timestamp over `frames` frames that were never sent (the mixer skipped them after a stall); the
    /// sequence number stays continuous, so a receiver sees a gap in media time, not a loss.
    mutating func skip(frames: Int) {
        numbering.skip(samples: samplesPerPacket &* UInt32(truncatingIfNeeded: frames))
    }

    /// The next packet carrying `payload`: the fixed 12-byte header (RFC 3550 §5.1), no CSRCs, no extensions,
    /// written into `bytes` (a pooled array) with room left for the SRTP tag.
    mutating func packet(payload: [UInt8], into bytes: inout [UInt8]) {
        defer { started = true }
        let (sequenceNumber, timestamp) = numbering.take(samples: samplesPerPacket)
        let packet = RTPPacket(marker: !started, payloadType: payloadType, sequenceNumber: sequenceNumber,
                               timestamp: timestamp, ssrc: ssrc, payload: payload[...])
        packet.serialize(into: &bytes, spareCapacity: SRTPProfile.maximumRTPTrailerLength)
    }
}
