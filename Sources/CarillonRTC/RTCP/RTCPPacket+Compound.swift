extension RTCPPacket {
    /// The compound packet an endpoint sends each reporting interval (RFC 3550 §6.1): `report` (a sender or receiver
    /// report) followed by an SDES chunk with the CNAME of `ssrc`, which every compound packet must carry.
    public static func reportCompound(_ report: RTCPPacket, ssrc: UInt32, cname: String) -> [UInt8] {
        report.serialized() + RTCPPacket.sourceDescription(chunks: [.init(ssrc: ssrc, items: [.cname(cname)])]).serialized()
    }
}
