import CarillonRTC
import NIOCore
import Testing

@Suite struct NackGeneratorTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test func gapsAreRequestedAfterTheGraceThenEveryRoundTrip() {
        var nack = NackGenerator(reorderingGrace: .milliseconds(10), maximumRequests: 3)
        for sequence: UInt16 in [1, 2, 5, 6] { nack.received(sequenceNumber: sequence, now: start) }
        #expect(nack.due(now: start + .milliseconds(5), roundTrip: .milliseconds(50)).isEmpty)
        #expect(nack.due(now: start + .milliseconds(10), roundTrip: .milliseconds(50)) == [3, 4])
        #expect(nack.due(now: start + .milliseconds(40), roundTrip: .milliseconds(50)).isEmpty)
        nack.received(sequenceNumber: 3, now: start + .milliseconds(45))
        #expect(nack.due(now: start + .milliseconds(60), roundTrip: .milliseconds(50)) == [4])
        #expect(nack.due(now: start + .milliseconds(110), roundTrip: .milliseconds(50)) == [4])
        // Three requests made: given up.
        #expect(nack.due(now: start + .milliseconds(500), roundTrip: .milliseconds(50)).isEmpty)
        #expect(nack.missingCount == 0)
    }

    @Test func unrequestedGapsAreThoseNoNackCoveredYet() {
        var nack = NackGenerator(reorderingGrace: .milliseconds(10))
        for sequence: UInt16 in [65_533, 0, 3] { nack.received(sequenceNumber: sequence, now: start) }
        #expect(nack.unrequested == [65_534, 65_535, 1, 2])
        #expect(nack.due(now: start + .milliseconds(10), roundTrip: .milliseconds(50)) == [65_534, 65_535, 1, 2])
        #expect(nack.unrequested.isEmpty)
        nack.received(sequenceNumber: 5, now: start + .milliseconds(20))
        #expect(nack.unrequested == [4])
        #expect(nack.missingSequenceNumbers == [65_534, 65_535, 1, 2, 4])
    }

    @Test func reorderedPacketsAreNeverRequested() {
        var nack = NackGenerator()
        nack.received(sequenceNumber: 10, now: start)
        nack.received(sequenceNumber: 12, now: start)
        nack.received(sequenceNumber: 11, now: start + .milliseconds(2))
        #expect(nack.due(now: start + .seconds(1), roundTrip: .milliseconds(50)).isEmpty)
    }

    @Test func gapsAcrossTheWrapAndTooOldOnes() {
        var nack = NackGenerator(maximumAge: 100)
        nack.received(sequenceNumber: 65_534, now: start)
        nack.received(sequenceNumber: 1, now: start)
        #expect(nack.due(now: start + .seconds(1), roundTrip: .milliseconds(50)) == [65_535, 0])
        var aged = NackGenerator(maximumAge: 100)
        aged.received(sequenceNumber: 0, now: start)
        aged.received(sequenceNumber: 500, now: start)
        let requested = aged.due(now: start + .seconds(1), roundTrip: .milliseconds(50))
        #expect(requested.count == 100)
        #expect(requested.first == 400 && requested.last == 499)
    }
}
