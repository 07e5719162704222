import NIOCore

/// The paced, bandwidth-estimated send path of one transport, sans-IO: the one the SDK's camera uplink and the
/// server's downlink to each session share.
///
/// Packets wait in a ``Pacer`` that follows the target the owner sets (``setRate(targetBitrate:)``, normally from
/// ``estimator``). As each leaves it gets the transport's next transport-wide sequence number, written into its
/// transport-cc header extension, and is recorded in the ``SendSideBandwidthEstimator``, which the receiver's
/// feedback then drives. A forwarder's sender (``paceAtTargetWhenOverused``) lets packets leave at the target itself
/// rather than 2.5 times it while the delay says the link is overused and little waits: it cannot slow its sources,
/// and bursts above the bottleneck's rate only lengthen its queue. A bandwidth probe
/// (``startProbe(bitrate:now:)``) is topped up with padding-only RTX packets, numbered the same way, past the pacer
/// (the probe is the burst).
///
/// Without a transport-cc extension (not negotiated) packets are paced but neither numbered nor recorded, and no probe
/// can be measured. Cost per packet: a header parse and two byte writes on top of the pacer's. A class, so the
/// per-packet path numbers and records in place while the pacer hands packets out.
///
/// Threading: not thread-safe; one event loop (the session's or the meeting's) owns it.
public final class PacedSender {
    /// Pacing rate over target in the usual case: room for a frame's packets to leave quickly.
    public static let pacingFactor = 2.5
    /// Pacing rate over target while the delay says overuse, for a sender that ``paceAtTargetWhenOverused``: the
    /// bottleneck's queue is filling, and what leaves faster than the estimate only waits there or is dropped at its
    /// tail. Paced at the estimate, the key frame of a forwarder's switch to a lower layer fits in the room the
    /// draining queue frees (at 2.5 times its last packet was lost in `SimulcastLayerSwitchingSimulationTests`, and the
    /// switch took a second key frame).
    public static let congestedPacingFactor = 1.0
    /// ...as long as what waits leaves within this at that rate: a source that cannot lower its rate at once (a
    /// single-stream camera behind a forwarder, until its REMB takes effect) must not build a standing queue here.
    public static let congestedQueueLimit = TimeAmount.milliseconds(100)
    /// How long a probe's window lasts.
    public static let probeDuration = TimeAmount.milliseconds(50)
    /// How often a probe's padding is topped up during its window.
    public static let probePaddingInterval = TimeAmount.milliseconds(2)
    /// Padding octets per packet (the RTP maximum): 275 bytes on the wire with header and transport-wide number.
    public static let probePaddingOctets: UInt8 = 255

    /// What the transport's feedback says about the link.
    public private(set) var estimator: SendSideBandwidthEstimator
    /// The packets waiting, and the rate they leave at.
    public private(set) var pacer: Pacer
    /// The transport-cc header extension id the packets carry; nil when transport-cc was not negotiated.
    public let transportCCExtensionId: UInt8?
    /// Whether packets leave at the target while the link is overused (``congestedPacingFactor``). A forwarder wants
    /// it; an encoder's sender does not: the encoder lowers its own rate, and its frames would only wait longer.
    public let paceAtTargetWhenOverused: Bool
    /// The next transport-wide sequence number.
    public private(set) var transportSequenceNumber: UInt16
    /// When the open probe's padding is next topped up; nil without an open probe window.
    public private(set) var nextProbePadding: NIODeadline?

    /// Creates a sender whose estimate starts at `estimator.startBitrate`, numbering from
    /// `firstTransportSequenceNumber` (a transport that had an earlier sender continues its numbering).
    public init(estimator configuration: SendSideBandwidthEstimator.Configuration, transportCCExtensionId: UInt8?,
                firstTransportSequenceNumber: UInt16 = 0, paceAtTargetWhenOverused: Bool = false) {
        self.paceAtTargetWhenOverused = paceAtTargetWhenOverused
        estimator = SendSideBandwidthEstimator(configuration: configuration)
        pacer = Pacer(targetBitrate: configuration.startBitrate, pacingFactor: Self.pacingFactor)
        self.transportCCExtensionId = transportCCExtensionId
        transportSequenceNumber = firstTransportSequenceNumber
    }

    /// When ``send(now:_:)`` or ``sendProbePadding(from:mediaPayloadType:timestamp:now:_:)`` is next due.
    public var nextDeadline: NIODeadline? { pacer.nextDeadline.earlier(nextProbePadding) }

    /// Queues an RTP packet to be paced out.
    public func enqueue(_ bytes: consuming [UInt8], priority: Pacer.Priority) {
        pacer.enqueue(Pacer.Packet(bytes: bytes, priority: priority))
    }

    /// Sets the rate packets leave at (times the pacing factor).
    public func setRate(targetBitrate: Int) {
        pacer.setRate(targetBitrate: targetBitrate)
    }

    /// Takes out the waiting packets of `priority` for which `isObsolete` holds (see ``Pacer/removeQueued(_:where:)``).
    public func removeQueued(_ priority: Pacer.Priority, where isObsolete: (Pacer.Packet) -> Bool)
        -> [Pacer.Packet] {
        pacer.removeQueued(priority, where: isObsolete)
    }

    /// Hands `emit` each packet the pacer lets go at `now`, in order, numbered with the next transport-wide sequence
    /// number and recorded as sent; the bytes are the caller's to keep (no longer queued, so not shared).
    public func send(now: NIODeadline, _ emit: (inout [UInt8]) -> Void) {
        let limitBytes = Double(pacer.targetBitrate) / 8 * Double(Self.congestedQueueLimit.nanoseconds) / 1e9
        let congested = paceAtTargetWhenOverused && estimator.bandwidthUsage == .overusing
            && Double(pacer.queuedBytes) < limitBytes
        pacer.pacingFactor = congested ? Self.congestedPacingFactor : Self.pacingFactor
        let extensionId = transportCCExtensionId
        pacer.poll(now: now) { packet in
            if let extensionId, let header = try? RTPHeader(reading: packet.bytes),
               let range = header.extensionRange(id: extensionId, in: packet.bytes), range.count == 2 {
                packet.bytes[range.lowerBound] = UInt8(transportSequenceNumber >> 8)
                packet.bytes[range.lowerBound + 1] = UInt8(truncatingIfNeeded: transportSequenceNumber)
                estimator.packetSent(transportSequenceNumber: transportSequenceNumber, size: packet.bytes.count,
                                     at: now)
                transportSequenceNumber &+= 1
            }
            emit(&packet.bytes)
        }
    }

    /// Transport-wide feedback from the receiver, for the estimate.
    public func transportFeedbackReceived(_ feedback: TransportFeedback, now: NIODeadline) {
        estimator.transportFeedbackReceived(feedback, now: now)
    }

    /// A receiver report's loss, for the estimate.
    public func receiverReportReceived(fractionLost: UInt8, now: NIODeadline) {
        estimator.receiverReportReceived(fractionLost: fractionLost, now: now)
    }

    /// Opens a probe at `bitrate` for ``probeDuration``; its padding is due at once. Does nothing without transport-cc
    /// (nothing would measure it).
    public func startProbe(bitrate: Int, now: NIODeadline) {
        guard transportCCExtensionId != nil else { return }
        estimator.startProbe(bitrate: bitrate, at: now, duration: Self.probeDuration)
        nextProbePadding = now
    }

    /// Stops topping up the open probe (nothing can carry its padding).
    public func stopProbePadding() {
        nextProbePadding = nil
    }

    /// The padding the open probe wants at `now`, as padding-only packets on `rtx` (RFC 3550 padding on the RTX SSRC,
    /// so no media sequence moves), each numbered and recorded as sent, handed to `emit`; the next top-up is
    /// ``probePaddingInterval`` later until the window closes. Nothing before ``nextProbePadding``. Each packet's array
    /// keeps room for the SRTP tag.
    public func sendProbePadding(from rtx: inout RTXStream, mediaPayloadType: UInt8, timestamp: UInt32,
                                 now: NIODeadline, _ emit: ([UInt8]) -> Void) {
        guard let due = nextProbePadding, due <= now else { return }
        guard let extensionId = transportCCExtensionId else {
            nextProbePadding = nil
            return
        }
        var wanted = estimator.probePaddingDue(at: now)
        while wanted > 0, var packet = rtx.paddingPacket(
            mediaPayloadType: mediaPayloadType, timestamp: timestamp, count: Self.probePaddingOctets,
            transportCCExtensionId: extensionId) {
            // The transport-wide number sits after the 12-byte header, the 0xBEDE word and the element's id byte.
            packet[17] = UInt8(transportSequenceNumber >> 8)
            packet[18] = UInt8(truncatingIfNeeded: transportSequenceNumber)
            estimator.packetSent(transportSequenceNumber: transportSequenceNumber, size: packet.count, at: now)
            transportSequenceNumber &+= 1
            wanted -= packet.count
            emit(packet)
        }
        nextProbePadding = estimator.probeWindowEnd(after: now) == nil ? nil : now + Self.probePaddingInterval
    }
}
