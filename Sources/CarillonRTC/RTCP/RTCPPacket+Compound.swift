extension RTCPPacket {
    /// The compound packet an endpoint sends each reporting interval (RFC 3550 §6.1): `report` (a sender or receiver
    /// report) followed by an SDES chunk with the CNAME of `ssrc`, which every compound packet must carry.
    public static func reportCompound(_ report: RTCPPacket, ssrc: UInt32, cname: String) -> [UInt8] {
        report.serialized() + RTCPPacket.sourceDescription(chunks: [.init(ssrc: ssrc, items: [.cname(cname)])]).serialized()
    }

    /// `packets` as the compound a feedback message travels in (RFC 3550 §6.1, RFC 4585 §3.1): an empty receiver
    /// report from `ssrc` first, as every compound must start with a report, then the packets. The one builder of
    /// feedback compounds (PLI, FIR, NACK, transport-wide feedback, REMB) for the SDK, the server and the CLI's peers.
    public static func feedbackCompound(from ssrc: UInt32, _ packets: RTCPPacket...) -> [UInt8] {
        var bytes = RTCPPacket.receiverReport(ssrc: ssrc, reports: []).serialized()
        for packet in packets { bytes += packet.serialized() }
        return bytes
    }
}
