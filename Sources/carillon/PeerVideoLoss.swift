import CarillonRTC

/// The deliberate loss of `carillon peer --video-drop-every N` and its accounting: every Nth VP8 packet sent for the
/// first time is left out (the send history keeps it, so a NACK gets it back), and every Nth VP8 packet received is
/// discarded before anything sees it, transport-wide feedback included, as a network loss would be (a sender told
/// the packet arrived would drop it from its history and could not answer the NACK). Retransmissions are never
/// dropped. The accounting says which discarded packets a NACK should have covered and did not, and which were
/// given up on.
///
/// Costs: one header read per sent packet and one RTCP parse per sent feedback compound (only with loss on).
/// Threading: not thread-safe; the peer's event loop owns it.
struct PeerVideoLoss {
    /// One packet in this many is dropped each way; 0: none.
    let every: Int
    /// VP8 packets sent for the first time, and those of them left out.
    private(set) var firstTransmissions = 0
    private(set) var sentDropped = 0
    /// VP8 packets received on the media SSRC, and those of them discarded.
    private(set) var mediaReceived = 0
    private(set) var receivedDropped = 0
    private var newestSent: UInt16?
    /// The newest media sequence number that arrived (not discarded).
    private var newestReceived: UInt16?
    private var droppedSequences: Set<UInt16> = []
    private var nackedSequences: Set<UInt16> = []
    /// Discarded packets that came back over RTX.
    private var recoveredSequences: Set<UInt16> = []

    init(every: Int) { self.every = every }

    /// Whether the RTP packet `bytes` about to be sent is left out: every Nth VP8 packet (payload type
    /// `mediaPayloadType`) numbered past every one sent before (a retransmission without RTX repeats an older
    /// number, and RTX has its own payload type).
    mutating func dropsOutgoing(_ bytes: [UInt8], mediaPayloadType: UInt8) -> Bool {
        guard every > 0, let header = try? RTPHeader(reading: bytes), header.payloadType == mediaPayloadType,
              newestSent.map({ Self.isNewer(header.sequenceNumber, than: $0) }) ?? true
        else { return false }
        newestSent = header.sequenceNumber
        firstTransmissions += 1
        guard firstTransmissions % every == 0 else { return false }
        sentDropped += 1
        return true
    }

    /// Whether a received VP8 packet of the media SSRC is discarded.
    mutating func dropsIncoming(_ packet: RTPPacket) -> Bool {
        mediaReceived += 1
        if every > 0, mediaReceived % every == 0 {
            receivedDropped += 1
            droppedSequences.insert(packet.sequenceNumber)
            return true
        }
        if newestReceived.map({ Self.isNewer(packet.sequenceNumber, than: $0) }) ?? true {
            newestReceived = packet.sequenceNumber
        }
        return false
    }

    /// A retransmission of media packet `sequenceNumber` arrived over RTX.
    mutating func repaired(_ sequenceNumber: UInt16) {
        if droppedSequences.contains(sequenceNumber) { recoveredSequences.insert(sequenceNumber) }
    }

    /// An RTCP compound the receive streams sent: the sequence numbers its NACKs ask for are noted.
    mutating func sentFeedback(_ compound: [UInt8]) {
        guard every > 0, let packets = try? RTCPPacket.parseCompound(compound) else { return }
        for case .nack(_, _, let lost) in packets { nackedSequences.formUnion(lost) }
    }

    /// Discarded packets no NACK asked for although one should have, and discarded packets given up on (neither
    /// recovered over RTX nor still `missing`): not counted in either are those after the newest arrival (no later
    /// packet revealed them), and for the first those still within the NACK delay (`unrequested`). Both are 0 when
    /// NACK and RTX did their job.
    func accounting(missing: [UInt16], unrequested: [UInt16]) -> (neverNacked: Int, givenUp: Int) {
        guard let newest = newestReceived else { return (0, 0) }
        let revealed = droppedSequences.filter { !Self.isNewer($0, than: newest) }
        let neverNacked = revealed.subtracting(nackedSequences).subtracting(unrequested)
        let givenUp = revealed.subtracting(recoveredSequences).subtracting(missing)
        return (neverNacked.count, givenUp.count)
    }

    /// Whether `sequence` comes after `other` in 16-bit serial arithmetic.
    private static func isNewer(_ sequence: UInt16, than other: UInt16) -> Bool {
        let ahead = sequence &- other
        return ahead != 0 && ahead & 0x8000 == 0
    }
}
