import NIOCore
import Testing

@testable import Carillon

/// The connection-health verdicts on a virtual clock, one sample per second.
@Suite struct AudioConnectionHealthTests {
    let start = NIODeadline.uptimeNanoseconds(50_000_000_000)

    /// Feeds `counts`, one per second after `from` seconds, and returns the changes with the second they came at.
    func run(_ health: inout AudioConnectionHealth, _ counts: [Int], from: Int = 1) -> [(Int, AudioConnectionHealth.Change)] {
        var changes: [(Int, AudioConnectionHealth.Change)] = []
        for (index, count) in counts.enumerated() {
            let second = from + index
            if let change = health.record(packetsReceived: count, now: start + .seconds(Int64(second))) {
                changes.append((second, change))
            }
        }
        return changes
    }

    @Test func fullAudioIsHealthyAndHalfIsPoorAfterFifteenSamples() {
        var health = AudioConnectionHealth(connectedAt: start)
        #expect(run(&health, Array(repeating: 50, count: 30)).isEmpty)
        // 26 packets a second: 1 - 26/50 = 48 % loss, still fine.
        #expect(run(&health, Array(repeating: 26, count: 20), from: 31).isEmpty)
        // 25 a second: the newest 15 samples reach 50 % loss at the 15th.
        let changes = run(&health, Array(repeating: 25, count: 20), from: 51)
        #expect(changes.map(\.1) == [.becamePoor] && changes.first?.0 == 65)
        #expect(health.isPoor)
    }

    @Test func poorIsFrozenForSixtySecondsThenRecovers() {
        var health = AudioConnectionHealth(connectedAt: start)
        let poor = run(&health, Array(repeating: 10, count: 15))
        #expect(poor.map(\.0) == [15] && poor.map(\.1) == [.becamePoor])
        // Good audio again at once, but the verdict holds until 75 s.
        let recovered = run(&health, Array(repeating: 50, count: 70), from: 16)
        #expect(recovered.map(\.0) == [75] && recovered.map(\.1) == [.recovered])
    }

    @Test func atMostTwoWarnings() {
        var health = AudioConnectionHealth(connectedAt: start)
        var second = 1
        var changes: [AudioConnectionHealth.Change] = []
        for _ in 0..<3 {
            changes += run(&health, Array(repeating: 0, count: 15), from: second).map(\.1)
            second += 15
            changes += run(&health, Array(repeating: 50, count: 75), from: second).map(\.1)
            second += 75
        }
        #expect(changes == [.becamePoor, .recovered, .becamePoor, .recovered])
    }

    @Test func twentyFiveSilentSecondsAfterTrafficMeanReconnect() {
        var health = AudioConnectionHealth(connectedAt: start)
        // Before any traffic, silence is not counted (a meeting that never sent anything is a join problem).
        #expect(run(&health, Array(repeating: 0, count: 30)).filter { $0.1 == .reconnect }.isEmpty)
        var reconnects = run(&health, [50] + Array(repeating: 0, count: 25), from: 31).filter { $0.1 == .reconnect }
        #expect(reconnects.map(\.0) == [56])
        // Within 10 s of a new connection no reconnect is asked for.
        health.connected(at: start + .seconds(100))
        reconnects = run(&health, [50] + Array(repeating: 0, count: 5), from: 101).filter { $0.1 == .reconnect }
        #expect(reconnects.isEmpty)
    }

    @Test func aNewConnectionKeepsThePoorStateAndStartsSamplingOver() {
        var health = AudioConnectionHealth(connectedAt: start)
        _ = run(&health, Array(repeating: 0, count: 15))
        #expect(health.isPoor)
        health.connected(at: start + .seconds(200))
        // Fourteen good samples are not enough to judge; the fifteenth recovers (the freeze ended long ago).
        let changes = run(&health, Array(repeating: 50, count: 15), from: 201)
        #expect(changes.map(\.0) == [215] && changes.map(\.1) == [.recovered])
    }
}
