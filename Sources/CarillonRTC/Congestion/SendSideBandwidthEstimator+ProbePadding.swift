import NIOCore

extension SendSideBandwidthEstimator {
    /// How long a probe's window lasts (``startProbe(bitrate:at:duration:)``'s usual duration).
    public static let probeDuration = TimeAmount.milliseconds(50)
    /// How often a probe's padding is topped up during its window.
    public static let probePaddingInterval = TimeAmount.milliseconds(2)
    /// Padding octets per packet (the RTP maximum): 275 bytes on the wire with header and transport-wide number.
    public static let probePaddingOctets: UInt8 = 255

    /// The padding the open probe wants at `now`, as padding-only packets on `rtx` (RFC 3550 padding on the RTX SSRC,
    /// so no media sequence moves), each carrying the next transport-wide sequence number (`transportSequenceNumber`,
    /// advanced) and recorded as sent; each goes to `emit`. Returns when to top up again: nil once the window closed.
    /// The one probe-padding path of the SDK's camera uplink and the server's downlinks. `tagRoom` is the spare
    /// capacity left in each packet's array for the SRTP tag.
    public mutating func probePadding(from rtx: inout RTXStream, mediaPayloadType: UInt8, timestamp: UInt32,
                                      transportCCExtensionId: UInt8, tagRoom: Int = 16,
                                      transportSequenceNumber: inout UInt16, now: NIODeadline,
                                      emit: ([UInt8]) -> Void) -> NIODeadline? {
        var wanted = probePaddingDue(at: now)
        while wanted > 0, var packet = rtx.paddingPacket(
            mediaPayloadType: mediaPayloadType, timestamp: timestamp, count: Self.probePaddingOctets,
            transportCCExtensionId: transportCCExtensionId, tagRoom: tagRoom) {
            // The transport-wide number sits after the 12-byte header, the 0xBEDE word and the element's id byte.
            packet[17] = UInt8(transportSequenceNumber >> 8)
            packet[18] = UInt8(truncatingIfNeeded: transportSequenceNumber)
            packetSent(transportSequenceNumber: transportSequenceNumber, size: packet.count, at: now)
            transportSequenceNumber &+= 1
            wanted -= packet.count
            emit(packet)
        }
        return probeWindowEnd(after: now) == nil ? nil : now + Self.probePaddingInterval
    }
}
