import CarillonRTC
import NIOCore
import Testing

@Suite struct TransportFeedbackGeneratorTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    /// Absolute arrival times (uptime nanoseconds, 250 µs resolution) a message reports, nil for lost packets.
    func arrivals(_ feedback: TransportFeedback) -> [Int64?] {
        let reference = Int64(feedback.referenceTime) * TransportFeedback.referenceTimeUnitNanoseconds
        return feedback.packets.map { $0.arrivalTicks.map { reference + $0 * TransportFeedback.tickNanoseconds } }
    }

    @Test func reportsEveryIntervalWithArrivalTimes() throws {
        var generator = TransportFeedbackGenerator(senderSSRC: 1, mediaSSRC: 2)
        #expect(generator.nextDeadline == nil)
        for index in 0..<10 {
            generator.received(transportSequenceNumber: UInt16(100 + index), arrival: start + .microseconds(Int64(index) * 1_500))
        }
        #expect(generator.nextDeadline == start + .milliseconds(50))
        #expect(generator.poll(now: start + .milliseconds(49)).isEmpty)
        let reports = generator.poll(now: start + .milliseconds(50))
        #expect(reports.count == 1)
        let report = try #require(reports.first)
        #expect(report.baseSequenceNumber == 100)
        #expect(report.packets.count == 10)
        #expect(report.senderSSRC == 1 && report.mediaSSRC == 2)
        // 1.0 s is 15 units of 64 ms plus 40 ms.
        #expect(report.referenceTime == 15)
        #expect(arrivals(report) == (0..<10).map { 1_000_000_000 + Int64($0) * 1_500_000 })
        #expect(generator.nextDeadline == nil)
        #expect(generator.poll(now: start + .seconds(1)).isEmpty)
        // The next packet is due one interval after the last report.
        generator.received(transportSequenceNumber: 110, arrival: start + .milliseconds(60))
        #expect(generator.nextDeadline == start + .milliseconds(100))
        let next = generator.poll(now: start + .milliseconds(100))
        #expect(next.map(\.feedbackPacketCount) == [1])
        #expect(next.first?.baseSequenceNumber == 110)
        // What is produced survives the wire.
        for report in reports + next {
            #expect(try RTCPPacket.parseCompound(RTCPPacket.transportFeedback(report).serialized()) == [.transportFeedback(report)])
        }
    }

    @Test func gapsReorderingLateArrivalsAndDuplicates() throws {
        var generator = TransportFeedbackGenerator()
        for (sequence, ms) in [(0, 0), (1, 1), (3, 2), (2, 3), (5, 4), (5, 6)] as [(UInt16, Int64)] {
            generator.received(transportSequenceNumber: sequence, arrival: start + .milliseconds(ms))
        }
        #expect(generator.packetsIgnored == 1)
        #expect(generator.packetsRecorded == 5)
        let first = try #require(generator.poll(now: start + .milliseconds(50)).first)
        #expect(first.baseSequenceNumber == 0)
        #expect(first.packets.map(\.isReceived) == [true, true, true, true, false, true])
        // 2 was reordered: its later arrival gives it a negative delta; 5 keeps its first arrival.
        let times = arrivals(first)
        #expect(times[2]! - times[3]! == 1_000_000)
        #expect(times[5]! == 1_004_000_000)
        // 4 arrives after being reported lost: the next report starts back at it.
        generator.received(transportSequenceNumber: 4, arrival: start + .milliseconds(60))
        generator.received(transportSequenceNumber: 6, arrival: start + .milliseconds(61))
        let second = try #require(generator.poll(now: start + .milliseconds(100)).first)
        #expect(second.baseSequenceNumber == 4)
        #expect(second.packets.map(\.isReceived) == [true, true, true])
        #expect(arrivals(second) == [1_060_000_000, 1_004_000_000, 1_061_000_000])
        // A duplicate of an already reported packet is ignored too.
        generator.received(transportSequenceNumber: 6, arrival: start + .milliseconds(120))
        #expect(generator.nextDeadline == nil)
        #expect(generator.packetsIgnored == 2)
    }

    @Test func sequenceNumbersWrapAndLostRunsAreReported() throws {
        var generator = TransportFeedbackGenerator()
        for (index, sequence) in ([65_533, 65_534, 65_535, 0, 1, 40] as [UInt16]).enumerated() {
            generator.received(transportSequenceNumber: sequence, arrival: start + .milliseconds(Int64(index)))
        }
        let report = try #require(generator.poll(now: start + .milliseconds(50)).first)
        #expect(report.baseSequenceNumber == 65_533)
        #expect(report.packets.count == 44)
        #expect(report.packets.last?.sequenceNumber == 40)
        #expect(report.packets.filter(\.isReceived).map(\.sequenceNumber) == [65_533, 65_534, 65_535, 0, 1, 40])
        // The next window continues after 40 even though 2...39 never came.
        generator.received(transportSequenceNumber: 41, arrival: start + .milliseconds(70))
        #expect(try #require(generator.poll(now: start + .milliseconds(100)).first).baseSequenceNumber == 41)
    }

    @Test func aFullWindowIsReportedAtOnce() {
        var generator = TransportFeedbackGenerator(maximumPendingPackets: 100)
        for index in 0..<150 {
            generator.received(transportSequenceNumber: UInt16(index), arrival: start + .microseconds(Int64(index) * 100))
        }
        #expect(generator.nextDeadline == start + .microseconds(9_900))
        let reports = generator.poll(now: start + .microseconds(15_000))
        #expect(reports.map(\.packets.count) == [150])
    }

    @Test func arrivalsTooFarApartSplitTheReport() {
        var generator = TransportFeedbackGenerator()
        generator.received(transportSequenceNumber: 7, arrival: start)
        generator.received(transportSequenceNumber: 9, arrival: start + .seconds(10))
        generator.received(transportSequenceNumber: 10, arrival: start + .seconds(10) + .milliseconds(1))
        let reports = generator.poll(now: start + .seconds(11))
        #expect(reports.count == 2)
        #expect(reports.map(\.baseSequenceNumber) == [7, 8])
        #expect(reports.map(\.feedbackPacketCount) == [0, 1])
        #expect(reports.map { $0.packets.map(\.isReceived) } == [[true], [false, true, true]])
        #expect(reports.map { arrivals($0).compactMap { $0 } } == [[1_000_000_000], [11_000_000_000, 11_001_000_000]])
    }
}
