import Testing

@testable import CarillonServer

/// Volumes and signal strengths from received packets' audio levels and sequence numbers, reported only on change.
@Suite struct AudioActivityMeterTests {
    func states(_ report: [(attendeeId: String, volume: UInt32?, signalStrength: UInt32?)]?) -> [String: [UInt32?]]? {
        report.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.attendeeId, [$0.volume, $0.signalStrength]) }) }
    }

    @Test func reportsTheLoudestLevelAndWhetherPacketsWentMissing() {
        var meter = AudioActivityMeter()
        meter.add("a")
        meter.add("b")
        var sequenceA: UInt16 = 65_530, sequenceB: UInt16 = 100
        func send(_ id: String, _ count: Int, level: UInt8?, skipEvery: Int = 0) {
            for index in 0..<count {
                if id == "a" { sequenceA &+= 1 } else { sequenceB &+= 1 }
                if skipEvery > 0, index % skipEvery == 0 { continue }
                meter.record(id, sequenceNumber: id == "a" ? sequenceA : sequenceB, level: level)
            }
        }
        // Nothing yet: both report no audio arriving.
        #expect(states(meter.report()) == ["a": [127, 0], "b": [127, 0]])
        // a speaks (across the sequence wrap), b sends DTX silence: one packet, no gaps.
        for level: UInt8 in [40, 20, 30, 35, 50, 60, 70, 80, 90, 100] { send("a", 1, level: level) }
        send("b", 1, level: 127)
        #expect(states(meter.report()) == ["a": [20, 2], "b": [127, 2]])
        // a loses every third packet: lossy. b is quiet this interval but not silent for a second yet: unchanged.
        send("a", 10, level: 20, skipEvery: 3)
        #expect(states(meter.report()) == ["a": [20, 1], "b": [127, 2]])
        // Same again: no report.
        send("a", 10, level: 20, skipEvery: 3)
        #expect(meter.report() == nil)
    }

    @Test func aSecondWithoutPacketsMeansNoAudioArriving() {
        var meter = AudioActivityMeter()
        meter.add("a")
        meter.record("a", sequenceNumber: 1, level: 30)
        #expect(states(meter.report()) == ["a": [30, 2]])
        var reports: [[String: [UInt32?]]?] = []
        for _ in 0..<AudioActivityMeter.silentIntervals { reports.append(states(meter.report())) }
        #expect(reports.first == ["a": [127, 2]])
        #expect(reports.last == ["a": [127, 0]])
    }

    @Test func unknownAndRemovedAttendeesAreNotReported() {
        var meter = AudioActivityMeter()
        meter.record("stranger", sequenceNumber: 1, level: 0)
        #expect(meter.report() == nil && meter.isEmpty)
        meter.add("a")
        #expect(states(meter.report()) == ["a": [127, 0]])
        meter.remove("a")
        #expect(meter.report() == nil && meter.isEmpty)
    }

    @Test func aMutedAttendeeWhoseReportsArriveKeepsItsSignal() {
        var meter = AudioActivityMeter()
        meter.add("a")
        meter.add("b")
        meter.record("a", sequenceNumber: 1, level: 30)
        meter.record("b", sequenceNumber: 1, level: 30)
        #expect(states(meter.report()) == ["a": [30, 2], "b": [30, 2]])
        // Both go quiet; a (muted) still sends a sender report each second, b sends nothing at all.
        var last: [String: [UInt32?]]? = nil
        for interval in 0..<10 {
            if interval % 5 == 0 { meter.recordControl("a") }
            if let report = states(meter.report()) { last = report }
        }
        #expect(last == ["a": [127, 2], "b": [127, 0]])
    }
}
