import CarillonRTC
import NIOCore

/// The reception state of one simulcast layer of a camera uplink in ``MeetingVideoRouter`` (one layer without
/// simulcast): its SSRCs (declared or learned), loss recovery, statistics, the last sender report (which maps its RTP
/// clock onto the sender's NTP clock, so downlinks can switch layers without a jump in time), its measured bitrate and
/// its key-frame requests.
///
/// A class so the per-packet path updates it in place. O(1) per packet. Not thread-safe: the meeting's loop owns it.
final class VideoUplinkLayer {
    /// What the offer said about the layer.
    let description: VideoUplinkLayerDescription
    /// Its size and frame rate as the sender's latest SUBSCRIBE announced them (a renegotiation updates them in place).
    var format: VideoSubscribeRequest.StreamFormat?
    /// The media SSRC: declared, or learned from the first packets (rid extension, or the newest stream).
    var ssrc: UInt32?
    /// The RTX SSRC: declared, or learned from the `repaired-rtp-stream-id` extension.
    var rtxSSRC: UInt32?
    var nack = NackGenerator()
    var statistics: RTPReceiveStatistics?
    /// The newest sender report's (NTP, RTP) pair.
    var senderReport: (ntp: NTPTimestamp, rtp: UInt32)?
    var lastKeyFrameRequest: NIODeadline?
    /// A request came within the interval of the last one: it goes out when the interval ends.
    var keyFrameRequestDeferred = false
    var firSequence: UInt8 = 0
    var packetsReceived = 0
    /// The last media packet's arrival, or when the uplink was connected or configured while none came yet: a layer
    /// silent for ``MeetingVideoRouter/layerSilenceTimeout`` is not forwarded while another layer flows.
    var lastPacketAt: NIODeadline?
    /// Payload and header octets since the last measurement.
    var octetsSinceMeasurement = 0
    /// The bitrate measured over the last report interval (bits per second); nil before the first measurement.
    var bitrate: Int?
    /// ``bitrate`` in kbps smoothed over two report intervals (0 before a measurement or while the layer sends
    /// nothing): the allocator's measured layer bitrate.
    var measuredKbps = 0

    init(_ description: VideoUplinkLayerDescription) {
        self.description = description
        format = description.format
        ssrc = description.ssrc
        rtxSSRC = description.rtxSSRC
    }

    /// Whether a media packet of the layer came within ``MeetingVideoRouter/layerSilenceTimeout`` of `now` (or the
    /// uplink started that recently).
    func isFlowing(now: NIODeadline) -> Bool {
        guard let lastPacketAt else { return false }
        return now - lastPacketAt < MeetingVideoRouter.layerSilenceTimeout
    }

    /// Starts over on a new media SSRC (the sender restarted the layer).
    func rebind(ssrc: UInt32) {
        self.ssrc = ssrc
        nack = NackGenerator()
        statistics = nil
        senderReport = nil
    }

    /// The RTP timestamp difference `target − self` at one instant, from both layers' sender reports (90 kHz);
    /// nil until both have sent one.
    func timestampDelta(to target: VideoUplinkLayer) -> UInt32? {
        guard let mine = senderReport, let theirs = target.senderReport else { return nil }
        // Their clock at my report's instant, minus mine. NTP is 32.32 fixed point.
        let seconds = Double(Int64(bitPattern: mine.ntp.value &- theirs.ntp.value)) / 4_294_967_296
        let theirsAtMine = Int64(theirs.rtp) + Int64((seconds * 90_000).rounded())
        return UInt32(truncatingIfNeeded: theirsAtMine - Int64(mine.rtp))
    }
}
