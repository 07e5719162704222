import CarillonMedia
import CarillonRTC
import NIOCore

/// A switch down or a pause on a congested downlink: what still waits in the receiver's pacer for that downlink is
/// of the layer being left (or of a source no longer sent), and sent late it only fills the bottleneck's queue in front
/// of the new layer's key frame. It is taken out of the pacer, and the downlink's rewriter steps back to the last packet
/// that did go out, so sequence numbers and PictureIDs stay continuous on the wire.
extension MeetingVideoRouter {
    /// Withdraws `downlink`'s media packets waiting in session `receiver`'s pacer (retransmissions stay); their
    /// numbers are reused by what is sent next. O(packets waiting), nothing when nothing waits for it.
    func withdrawQueued(_ downlink: Downlink, of receiver: SignalingConnectionID, now: NIODeadline) {
        guard let control = members[receiver]?.control else { return }
        let ssrc = downlink.negotiated.ssrc
        let withdrawn = control.sender.removeQueued(.video) { packet in
            packet.bytes.count >= 12 && packet.bytes[8...11].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } == ssrc
        }
        guard let first = withdrawn.first.flatMap({ try? RTPHeader(reading: $0.bytes) }) else { return }
        var pictures = 0
        for packet in withdrawn {
            guard let header = try? RTPHeader(reading: packet.bytes) else { continue }
            downlink.packetsSent &-= 1
            downlink.octetsSent &-= UInt32(truncatingIfNeeded: header.payloadRange.count)
            if (try? VP8PayloadDescriptor(parsing: packet.bytes[header.payloadRange]))?.isStartOfFrame == true { pictures += 1 }
        }
        if let kept = downlink.history.packet(sequenceNumber: first.sequenceNumber &- 1, now: now) {
            downlink.rewriter.withdraw(lastKept: kept, picturesWithdrawn: pictures)
        }
        downlink.withdrawnPackets += withdrawn.count
    }
}
