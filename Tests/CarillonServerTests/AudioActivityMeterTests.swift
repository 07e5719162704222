import Testing

@testable import CarillonServer

/// Volumes and signal strengths from received packets' audio levels, reported only on change.
@Suite struct AudioActivityMeterTests {
    func states(_ report: [(attendeeId: String, volume: UInt32?, signalStrength: UInt32?)]?) -> [String: [UInt32?]]? {
        report.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.attendeeId, [$0.volume, $0.signalStrength]) }) }
    }

    @Test func reportsTheLoudestLevelAndTheShareOfPacketsThatArrived() {
        var meter = AudioActivityMeter()
        meter.add("a")
        meter.add("b")
        for level: UInt8 in [40, 20, 30, 35, 50, 60, 70, 80, 90, 100] { meter.record("a", level: level) }
        for _ in 0..<3 { meter.record("b", level: nil) }
        #expect(states(meter.report()) == ["a": [20, 2], "b": [127, 1]])
        // Nothing changed in the next interval (same pattern): no report.
        for level: UInt8 in [40, 20, 30, 35, 50, 60, 70, 80, 90, 100] { meter.record("a", level: level) }
        for _ in 0..<3 { meter.record("b", level: nil) }
        #expect(meter.report() == nil)
        // a goes quiet and stops sending: everyone is listed again, with a at no signal.
        for _ in 0..<10 { meter.record("b", level: 10) }
        #expect(states(meter.report()) == ["a": [127, 0], "b": [10, 2]])
    }

    @Test func unknownAndRemovedAttendeesAreNotReported() {
        var meter = AudioActivityMeter()
        meter.record("stranger", level: 0)
        #expect(meter.report() == nil && meter.isEmpty)
        meter.add("a")
        #expect(states(meter.report()) == ["a": [127, 0]])
        meter.remove("a")
        #expect(meter.report() == nil && meter.isEmpty)
    }
}
