import CarillonMeasurement
import CarillonRTC
import NIOCore
import Testing

@Suite struct SimulatedLinkTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    func packet(_ index: Int, size: Int = 100) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        bytes[0] = UInt8(index & 0xFF)
        bytes[1] = UInt8(index >> 8)
        return bytes
    }

    func index(_ datagram: [UInt8]) -> Int { Int(datagram[0]) | Int(datagram[1]) << 8 }

    @Test func delayIsExactOnAPerfectLink() {
        var link = SimulatedLink(conditions: LinkConditions(delay: .milliseconds(30)))
        link.send(packet(1), now: start)
        #expect(link.nextArrival == start + .milliseconds(30))
        #expect(link.receive(now: start + .milliseconds(29)).isEmpty)
        #expect(link.receive(now: start + .milliseconds(30)).map(index) == [1])
        #expect(link.nextArrival == nil)
    }

    @Test func lossFollowsTheRateAndTheSeed() {
        var link = SimulatedLink(conditions: LinkConditions(lossRate: 0.2), seed: 7)
        for i in 0..<5000 { link.send(packet(i), now: start) }
        let arrived = link.receive(now: start).count
        #expect(arrived + link.dropped == 5000)
        #expect((3800...4200).contains(arrived))
        var again = SimulatedLink(conditions: LinkConditions(lossRate: 0.2), seed: 7)
        for i in 0..<5000 { again.send(packet(i), now: start) }
        #expect(again.receive(now: start).count == arrived)
    }

    @Test func jitterKeepsOrderUnlessReorderingIsAllowed() {
        var ordered = SimulatedLink(conditions: LinkConditions(delay: .milliseconds(10), jitter: .milliseconds(50)), seed: 3)
        var shuffled = SimulatedLink(conditions: LinkConditions(delay: .milliseconds(10), jitter: .milliseconds(50),
                                                                allowsReordering: true), seed: 3)
        for i in 0..<200 {
            ordered.send(packet(i), now: start + .milliseconds(Int64(i)))
            shuffled.send(packet(i), now: start + .milliseconds(Int64(i)))
        }
        let late = start + .seconds(1)
        #expect(ordered.receive(now: late).map(index) == Array(0..<200))
        let arrivals = shuffled.receive(now: late).map(index)
        #expect(arrivals.sorted() == Array(0..<200))
        #expect(arrivals != Array(0..<200))
    }

    @Test func duplicationAddsCopies() {
        var link = SimulatedLink(conditions: LinkConditions(duplicationRate: 0.5), seed: 11)
        for i in 0..<1000 { link.send(packet(i), now: start) }
        let arrived = link.receive(now: start)
        #expect(arrived.count == 1000 + link.duplicated)
        #expect((400...600).contains(link.duplicated))
    }

    @Test func bandwidthCapPacesAndDropsTheTail() {
        // 1 Mbit/s: a 1000-byte datagram takes 8 ms on the wire; the queue holds 10 of them.
        var link = SimulatedLink(conditions: LinkConditions(bandwidthBitsPerSecond: 1_000_000, queueLimitBytes: 10_000))
        for i in 0..<20 { link.send(packet(i, size: 1000), now: start) }
        #expect(link.dropped == 10)
        #expect(link.receive(now: start + .milliseconds(39)).count == 4)
        #expect(link.receive(now: start + .milliseconds(80)).count == 6)
    }
}
