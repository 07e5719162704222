import CarillonRTC
import NIOCore
import Testing

@Suite struct RTPSendHistoryTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test func findsRecentPacketsOnly() {
        var history = RTPSendHistory(capacity: 4, maximumAge: .milliseconds(500))
        for sequence: UInt16 in 10...15 { history.store(sequenceNumber: sequence, packet: [UInt8(sequence)], now: start) }
        #expect(history.packet(sequenceNumber: 15, now: start) == [15])
        #expect(history.packet(sequenceNumber: 12, now: start) == [12])
        // Overwritten by 14 and 15 (same slots).
        #expect(history.packet(sequenceNumber: 10, now: start) == nil)
        #expect(history.packet(sequenceNumber: 11, now: start) == nil)
        #expect(history.packet(sequenceNumber: 15, now: start + .milliseconds(501)) == nil)
    }

    @Test func worksAcrossTheSequenceWrap() {
        var history = RTPSendHistory(capacity: 1024)
        history.store(sequenceNumber: 65_535, packet: [1], now: start)
        history.store(sequenceNumber: 0, packet: [2], now: start)
        #expect(history.packet(sequenceNumber: 65_535, now: start) == [1])
        #expect(history.packet(sequenceNumber: 0, now: start) == [2])
    }

    @Test func aReusedSlotHoldsOnlyItsNewPacket() {
        var history = RTPSendHistory(capacity: 4)
        history.store(sequenceNumber: 10, packet: [1, 2, 3, 4, 5], now: start)
        // Slot 2 again: its buffer is reused for a shorter packet, which must not keep the old tail.
        history.store(sequenceNumber: 14, packet: [7, 8], now: start)
        #expect(history.packet(sequenceNumber: 14, now: start) == [7, 8])
        #expect(history.packet(sequenceNumber: 10, now: start) == nil)
        // A packet read out is the caller's: storing over its slot later does not change it.
        let read = history.packet(sequenceNumber: 14, now: start)
        history.store(sequenceNumber: 18, packet: [9], now: start)
        #expect(read == [7, 8] && history.packet(sequenceNumber: 18, now: start) == [9])
    }
}
