import CarillonRTC
import NIOCore

/// Bandwidth probes on a receiver's downlink (mode 4): when its allocation has a source below its target that does
/// not fit, the allocator asks for a probe, and for `PacedSender.probeDuration` what the receiver is sent is topped up
/// to the probe's rate by its ``PacedSender`` with padding-only RTX packets (RFC 3550 padding on the RTX SSRC of one
/// of its downlinks, so no media sequence moves), each with a transport-wide sequence number. The receiver's feedback
/// about that window tells the ``SendSideBandwidthEstimator`` what got through; a higher estimate lets the allocator
/// upgrade. A receiver whose downlinks negotiated no RTX is not probed.
///
/// Cost: about `rate × 50 ms / 275` packets per probe (a 1.2 Mbit/s probe: 27 packets of 275 bytes), one array each;
/// probes are at least a second apart per receiver. Threading: the meeting's event loop, like the router.
extension MeetingVideoRouter {
    /// Opens a probe at `kbps` on session `id`'s downlink, unless it cannot carry padding (no RTX, no transport-wide
    /// congestion control) or its delay says overuse now; appends the padding due at once.
    func startProbe(_ id: SignalingConnectionID, kbps: Int, into outputs: inout [MeetingMediaOutput], now: NIODeadline) {
        guard let member = members[id], let control = member.control,
              control.sender.estimator.bandwidthUsage != .overusing,
              member.downlinks.contains(where: { $0.rtx != nil }) else { return }
        control.sender.startProbe(bitrate: kbps * 1000, now: now)
        sendProbePadding(id, into: &outputs, now: now)
    }

    /// The padding session `id`'s open probe wants now, and when to look again (nil once the window closed).
    func sendProbePadding(_ id: SignalingConnectionID, into outputs: inout [MeetingMediaOutput], now: NIODeadline) {
        guard let member = members[id], let control = member.control, let due = control.sender.nextProbePadding,
              due <= now else { return }
        guard let downlink = member.downlinks.first(where: { $0.rtx != nil && !$0.isPaused })
                ?? member.downlinks.first(where: { $0.rtx != nil }) else {
            control.sender.stopProbePadding()
            return
        }
        control.sender.sendProbePadding(from: &downlink.rtx!, mediaPayloadType: downlink.negotiated.payloadType,
                                        timestamp: downlink.lastTimestamp ?? 0, now: now) {
            outputs.append(.rtp(id, $0))
        }
    }
}
