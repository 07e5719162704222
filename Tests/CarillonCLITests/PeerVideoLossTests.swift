import CarillonRTC
import Testing

@testable import carillon

/// `carillon peer --video-drop-every`: which packets are left out each way, and the accounting the interop tests read.
struct PeerVideoLossTests {
    private static let vp8: UInt8 = 96
    private static let rtx: UInt8 = 97

    private static func packet(_ sequence: UInt16, payloadType: UInt8 = vp8) -> RTPPacket {
        RTPPacket(payloadType: payloadType, sequenceNumber: sequence, timestamp: 0, ssrc: 7, payload: [0x10, 0, 0])
    }

    /// Every third first transmission is left out; a retransmission (an older number, or RTX) never is.
    @Test func everyNthFirstTransmissionIsLeftOutAndNoRetransmission() {
        var loss = PeerVideoLoss(every: 3)
        var dropped: [UInt16] = []
        for sequence in UInt16(10)...18 where loss.dropsOutgoing(Self.packet(sequence).serialized(), mediaPayloadType: Self.vp8) {
            dropped.append(sequence)
        }
        #expect(dropped == [12, 15, 18])
        let repeated = loss.dropsOutgoing(Self.packet(12).serialized(), mediaPayloadType: Self.vp8)
        let overRTX = loss.dropsOutgoing(Self.packet(19, payloadType: Self.rtx).serialized(), mediaPayloadType: Self.vp8)
        #expect(!repeated && !overRTX)
        #expect(loss.firstTransmissions == 9 && loss.sentDropped == 3)
        // Neither counted: the count goes on from 9, so 21 (not 19) is the next one left out.
        var next: [UInt16] = []
        for sequence in UInt16(19)...21 where loss.dropsOutgoing(Self.packet(sequence).serialized(), mediaPayloadType: Self.vp8) {
            next.append(sequence)
        }
        #expect(next == [21])
        // The wrap from 65535 to 0 is a newer number.
        var wrapping = PeerVideoLoss(every: 2)
        let last = wrapping.dropsOutgoing(Self.packet(65_535).serialized(), mediaPayloadType: Self.vp8)
        let wrapped = wrapping.dropsOutgoing(Self.packet(0).serialized(), mediaPayloadType: Self.vp8)
        #expect(!last && wrapped)
    }

    /// Discarded packets a NACK never asked for and packets given up on are counted; those after the newest arrival,
    /// those still awaited and those still within the NACK delay are owed nothing yet.
    @Test func accountingOfDiscardedPackets() {
        var loss = PeerVideoLoss(every: 2)
        var discarded: [UInt16] = []
        for sequence in UInt16(100)...105 where loss.dropsIncoming(Self.packet(sequence)) { discarded.append(sequence) }
        #expect(discarded == [101, 103, 105])
        #expect(loss.mediaReceived == 6 && loss.receivedDropped == 3)
        loss.sentFeedback(RTCPPacket.feedbackCompound(from: 1, .nack(senderSSRC: 1, mediaSSRC: 7, lost: [101])))
        loss.repaired(101)
        // 105 is after the newest arrival (104); 101 was NACKed and repaired; 103 neither.
        #expect(loss.accounting(missing: [], unrequested: []) == (neverNacked: 1, givenUp: 1))
        // 103 still missing and within the NACK delay: owed nothing yet.
        #expect(loss.accounting(missing: [103], unrequested: [103]) == (neverNacked: 0, givenUp: 0))
    }

    /// Without loss nothing is dropped and feedback is not read.
    @Test func noLossDropsNothing() {
        var loss = PeerVideoLoss(every: 0)
        var dropped = 0
        for sequence in UInt16(0)..<50 {
            if loss.dropsOutgoing(Self.packet(sequence).serialized(), mediaPayloadType: Self.vp8) { dropped += 1 }
            if loss.dropsIncoming(Self.packet(sequence)) { dropped += 1 }
        }
        #expect(dropped == 0 && loss.mediaReceived == 50 && loss.firstTransmissions == 0)
        #expect(loss.accounting(missing: [], unrequested: []) == (neverNacked: 0, givenUp: 0))
    }
}
