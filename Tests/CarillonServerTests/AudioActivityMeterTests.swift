import CarillonRTC
import NIOCore
import Testing

@testable import CarillonServer

/// Volumes and signal strengths from received packets' audio levels and their streams' reception statistics,
/// reported only on change.
@Suite struct AudioActivityMeterTests {
    func states(_ report: [(attendeeId: String, volume: UInt32?, signalStrength: UInt32?)]?) -> [String: [UInt32?]]? {
        report.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.attendeeId, [$0.volume, $0.signalStrength]) }) }
    }

    /// The meter and each attendee's stream statistics, fed together as `MeetingMediaCore` feeds them.
    struct Uplinks {
        var meter = AudioActivityMeter()
        var statistics: [String: (ssrc: UInt32, statistics: RTPReceiveStatistics)] = [:]
        var sequences: [String: UInt16] = [:]

        mutating func send(_ id: String, _ count: Int, level: UInt8?, skipEvery: Int = 0, ssrc: UInt32 = 1) {
            for index in 0..<count {
                sequences[id, default: 65_530] &+= 1
                if skipEvery > 0, index % skipEvery == 0 { continue }
                if statistics[id]?.ssrc != ssrc { statistics[id] = (ssrc, RTPReceiveStatistics(clockRate: 48_000)) }
                statistics[id]!.statistics.record(sequenceNumber: sequences[id]!, rtpTimestamp: 0,
                                                  arrival: .uptimeNanoseconds(0))
                meter.record(id, level: level)
            }
        }

        mutating func report() -> [(attendeeId: String, volume: UInt32?, signalStrength: UInt32?)]? {
            let receptions = statistics.mapValues {
                AudioActivityMeter.Reception(ssrc: $0.ssrc, expected: $0.statistics.packetsExpected,
                                             received: $0.statistics.packetsReceived)
            }
            return meter.report { receptions[$0] }
        }
    }

    @Test func reportsTheLoudestLevelAndWhetherPacketsWentMissing() {
        var uplinks = Uplinks()
        uplinks.meter.add("a")
        uplinks.meter.add("b")
        // Nothing yet: both report no audio arriving.
        #expect(states(uplinks.report()) == ["a": [127, 0], "b": [127, 0]])
        // a speaks (across the sequence wrap), b sends DTX silence: one packet, no gaps.
        for level: UInt8 in [40, 20, 30, 35, 50, 60, 70, 80, 90, 100] { uplinks.send("a", 1, level: level) }
        uplinks.send("b", 1, level: 127)
        #expect(states(uplinks.report()) == ["a": [20, 2], "b": [127, 2]])
        // a loses every third packet: lossy. b is quiet this interval but not silent for a second yet: unchanged.
        uplinks.send("a", 10, level: 20, skipEvery: 3)
        #expect(states(uplinks.report()) == ["a": [20, 1], "b": [127, 2]])
        // Same again: no report.
        uplinks.send("a", 10, level: 20, skipEvery: 3)
        #expect(uplinks.report() == nil)
        // Every packet arrives again: not lossy.
        uplinks.send("a", 10, level: 20)
        #expect(states(uplinks.report()) == ["a": [20, 2], "b": [127, 2]])
    }

    /// A client that restarts its stream (a new SSRC, new sequence numbers) is not lossy for the jump.
    @Test func aRestartedStreamIsNoLoss() {
        var uplinks = Uplinks()
        uplinks.meter.add("a")
        uplinks.send("a", 10, level: 30)
        #expect(states(uplinks.report()) == ["a": [30, 2]])
        uplinks.sequences["a"] = 20_000
        uplinks.send("a", 10, level: 30, ssrc: 2)
        #expect(uplinks.report() == nil)
        uplinks.send("a", 10, level: 30, skipEvery: 2, ssrc: 2)
        #expect(states(uplinks.report()) == ["a": [30, 1]])
    }

    @Test func aSecondWithoutPacketsMeansNoAudioArriving() {
        var uplinks = Uplinks()
        uplinks.meter.add("a")
        uplinks.send("a", 1, level: 30)
        #expect(states(uplinks.report()) == ["a": [30, 2]])
        var reports: [[String: [UInt32?]]?] = []
        for _ in 0..<AudioActivityMeter.silentIntervals { reports.append(states(uplinks.report())) }
        #expect(reports.first == ["a": [127, 2]])
        #expect(reports.last == ["a": [127, 0]])
    }

    @Test func unknownAndRemovedAttendeesAreNotReported() {
        var uplinks = Uplinks()
        uplinks.send("stranger", 1, level: 0)
        #expect(uplinks.report() == nil && uplinks.meter.isEmpty)
        uplinks.meter.add("a")
        #expect(states(uplinks.report()) == ["a": [127, 0]])
        uplinks.meter.remove("a")
        #expect(uplinks.report() == nil && uplinks.meter.isEmpty)
    }

    @Test func aMutedAttendeeWhoseReportsArriveKeepsItsSignal() {
        var uplinks = Uplinks()
        uplinks.meter.add("a")
        uplinks.meter.add("b")
        uplinks.send("a", 1, level: 30)
        uplinks.send("b", 1, level: 30)
        #expect(states(uplinks.report()) == ["a": [30, 2], "b": [30, 2]])
        // Both go quiet; a (muted) still sends a sender report each second, b sends nothing at all.
        var last: [String: [UInt32?]]? = nil
        for interval in 0..<10 {
            if interval % 5 == 0 { uplinks.meter.recordControl("a") }
            if let report = states(uplinks.report()) { last = report }
        }
        #expect(last == ["a": [127, 2], "b": [127, 0]])
    }
}
