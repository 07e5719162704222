import CarillonMeasurement
import CarillonMedia
import CarillonRTC
import NIOCore
import Testing

/// A sender producing one packet per frame through a ``SimulatedLink`` into an ``AudioJitterBuffer``, and an output
/// device asking for audio every 20 ms, all on a virtual clock.
///
/// Each payload is the packet's index (4 bytes, big-endian) so the tests can check what was played.
struct AudioStreamSimulation {
    struct Tick {
        /// Milliseconds since the start.
        var time: Int64
        var playout: AudioJitterBuffer.Playout
        /// Buffered delay just before the call.
        var delayBefore: TimeAmount
        /// Target just after the call.
        var target: TimeAmount
    }

    let start = NIODeadline.uptimeNanoseconds(5_000_000_000)
    var buffer: AudioJitterBuffer
    var link: SimulatedLink
    /// Nanoseconds between two sends: 20 ms, scaled for a sender clock that runs fast or slow.
    var senderPeriod: Double
    /// RTP timestamp units per packet.
    var frameUnits: UInt32
    var sequenceBase: UInt16
    var timestampBase: UInt32
    /// While true the sender produces nothing, but its sequence numbers and timestamps move on (DTX style).
    var paused = false
    /// While true the sender produces nothing and its sequence numbers and timestamps stand still.
    var frozen = false
    private(set) var nextPacket = 0
    private(set) var packetsSent = 0
    private var frozenPackets = 0
    private var sequenceJump: UInt16 = 0
    private var timestampJump: UInt32 = 0
    private var nextTick = 0
    private var decodedAhead: Int64 = 0
    private(set) var ticks: [Tick] = []
    /// Packet indices in arrival order (duplicates included).
    private(set) var arrivals: [Int] = []
    private(set) var now: NIODeadline

    init(conditions: LinkConditions = LinkConditions(delay: .milliseconds(30)), seed: UInt64 = 1,
         configuration: AudioJitterBuffer.Configuration = .init(), senderDrift: Double = 0,
         frameMilliseconds: Int = 20, sequenceBase: UInt16 = 1000, timestampBase: UInt32 = 123_456) {
        buffer = AudioJitterBuffer(configuration: configuration)
        link = SimulatedLink(conditions: conditions, seed: seed)
        senderPeriod = Double(frameMilliseconds) * 1e6 / (1 + senderDrift)
        frameUnits = UInt32(frameMilliseconds * 48)
        self.sequenceBase = sequenceBase
        self.timestampBase = timestampBase
        now = start
    }

    static func index(_ payload: some Collection<UInt8>) -> Int {
        payload.reduce(0) { $0 << 8 | Int($1) }
    }

    /// Makes the sender jump to new sequence numbers and timestamps, as after a restart.
    mutating func jump(sequenceBy sequence: UInt16, timestampBy timestamp: UInt32) {
        sequenceJump &+= sequence
        timestampJump &+= timestamp
    }

    /// Runs for `duration` of virtual time. The device ticks every 20 ms (7 ms out of phase with the sender) and asks
    /// the buffer for a frame whenever the audio decoded so far is used up.
    mutating func run(for duration: TimeAmount) {
        let end = now + duration
        while true {
            let send = start + .nanoseconds(Int64((Double(nextPacket) * senderPeriod).rounded()))
            let tick = start + .milliseconds(7 + 20 * Int64(nextTick))
            let arrival = link.nextArrival ?? end + .seconds(1)
            let next = min(send, tick, arrival)
            guard next <= end else { break }
            now = next
            if send == next {
                sendPacket()
            } else if arrival == next {
                for datagram in link.receive(now: next) {
                    let header = Array(datagram[0..<6])
                    let sequence = UInt16(header[0]) << 8 | UInt16(header[1])
                    let timestamp = header[2...5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                    let payload = Array(datagram[6...])
                    arrivals.append(Self.index(payload))
                    buffer.insert(sequenceNumber: sequence, timestamp: timestamp, payload: payload[...], arrival: next)
                }
            } else {
                nextTick += 1
                while decodedAhead <= 0 {
                    let before = buffer.currentDelay
                    let playout = buffer.nextFrame(now: next)
                    ticks.append(Tick(time: (next - start).nanoseconds / 1_000_000, playout: playout,
                                      delayBefore: before, target: buffer.targetDelay))
                    decodedAhead += playout.isPacket ? Int64(frameUnits) * 1_000_000 / 48 : buffer.frameDuration.nanoseconds
                }
                decodedAhead -= 20_000_000
            }
        }
        now = end
    }

    private mutating func sendPacket() {
        let index = nextPacket
        nextPacket += 1
        if frozen {
            frozenPackets += 1
            return
        }
        if paused { return }
        let position = UInt32(index - frozenPackets)
        let sequence = sequenceBase &+ UInt16(truncatingIfNeeded: position) &+ sequenceJump
        let timestamp = timestampBase &+ position &* frameUnits &+ timestampJump
        var datagram = [UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        datagram += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: timestamp >> $0) }
        datagram += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: index >> $0) }
        packetsSent += 1
        link.send(datagram, now: now)
    }

    /// Indices of the packets played, in order.
    func played(from time: Int64 = 0) -> [Int] {
        ticks.filter { $0.time >= time }.compactMap {
            if case .packet(let payload, _) = $0.playout { return Self.index(payload) } else { return nil }
        }
    }

    func count(_ playout: AudioJitterBuffer.Playout, from time: Int64 = 0, to end: Int64 = .max) -> Int {
        ticks.filter { $0.time >= time && $0.time < end && $0.playout == playout }.count
    }

    func ticks(from time: Int64, to end: Int64 = .max) -> [Tick] {
        ticks.filter { $0.time >= time && $0.time < end }
    }
}

@Suite struct AudioJitterBufferTests {
    typealias Playout = AudioJitterBuffer.Playout

    func isConsecutive(_ values: [Int]) -> Bool {
        zip(values, values.dropFirst()).allSatisfy { $1 == $0 + 1 }
    }

    /// Values missing from 0 to the last.
    func gaps(_ values: [Int]) -> Int {
        guard let last = values.last else { return 0 }
        return last + 1 - values.count
    }

    func isIncreasing(_ values: [Int]) -> Bool {
        zip(values, values.dropFirst()).allSatisfy { $1 > $0 }
    }

    /// Every call is counted once among the outcomes, every slot moved past once among played, lost and dropped.
    func checkIdentities(_ simulation: AudioStreamSimulation) {
        let stats = simulation.buffer.statistics
        #expect(stats.packetsPlayed + stats.framesRecovered + stats.framesConcealed + stats.framesSilent
                == simulation.ticks.count)
        #expect(stats.packetsPlayed == simulation.played().count)
        #expect(stats.framesSilent == simulation.count(.silence))
        #expect(stats.packetsPlayed + stats.framesDropped + stats.packetsDiscarded + simulation.buffer.bufferedPackets
                == stats.packetsInserted)
        #expect(stats.framesRecovered == simulation.ticks.filter {
            if case .recoverFromNext = $0.playout { true } else { false }
        }.count)
    }

    @Test func silenceBeforeTheFirstPacket() {
        var buffer = AudioJitterBuffer()
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        #expect(buffer.nextFrame(now: start) == .silence)
        #expect(buffer.nextFrame(now: start + .milliseconds(20)) == .silence)
        #expect(buffer.currentDelay == .zero)
        #expect(buffer.targetDelay == .milliseconds(60))
        #expect(buffer.statistics.framesSilent == 2)
    }

    @Test func perfectNetworkPlaysEveryPacketInOrderAtTheMinimumDelay() {
        var simulation = AudioStreamSimulation()
        simulation.run(for: .seconds(20))
        let stats = simulation.buffer.statistics
        // Start-up waits for the 60 ms initial target, then the target falls to one frame and two packets are dropped.
        #expect(simulation.ticks.prefix(3).allSatisfy { $0.playout == .silence })
        #expect(stats.framesDropped == 2)
        #expect(stats.framesConcealed == 0 && stats.packetsLost == 0 && stats.framesInserted == 0)
        let played = simulation.played()
        #expect(isIncreasing(played))
        #expect(gaps(played) == stats.framesDropped)
        #expect(stats.packetsInserted == simulation.arrivals.count)
        let settled = simulation.ticks(from: 8000)
        #expect(settled.allSatisfy { if case .packet = $0.playout { true } else { false } })
        #expect(settled.allSatisfy { $0.delayBefore == .milliseconds(20) && $0.target == .milliseconds(20) })
        #expect(simulation.buffer.statistics.jitterMilliseconds == 0)
        checkIdentities(simulation)
    }

    @Test func jitterRaisesTheTargetAndItFallsBackWhenJitterStops() {
        var simulation = AudioStreamSimulation(
            conditions: LinkConditions(delay: .milliseconds(20), jitter: .milliseconds(60), allowsReordering: true),
            seed: 5)
        simulation.run(for: .seconds(5))
        let raised = simulation.buffer.targetDelay
        #expect(raised >= .milliseconds(70) && raised <= .milliseconds(90))
        let atFive = simulation.buffer.statistics
        simulation.run(for: .seconds(25))
        let stats = simulation.buffer.statistics
        // 25 s is 1250 packets: fewer than 1 % late once the target covers the jitter.
        #expect(stats.packetsLate - atFive.packetsLate < 12)
        // The level swings by frames with the jitter; the smoothed level keeps that from driving drops and
        // insertions in turn.
        #expect(stats.framesDropped - atFive.framesDropped + stats.framesInserted - atFive.framesInserted <= 4)
        #expect((50...65).contains(Int(stats.jitterMilliseconds)))
        #expect(stats.resets == 0 && stats.resynchronizations == 0)
        let busy = simulation.ticks(from: 10_000)
        #expect(busy.allSatisfy { $0.delayBefore <= $0.target + .milliseconds(100) })

        simulation.link.conditions = LinkConditions(delay: .milliseconds(20))
        simulation.run(for: .seconds(15))
        #expect(simulation.buffer.targetDelay == .milliseconds(20))
        let calm = simulation.ticks(from: 40_000)
        #expect(!calm.isEmpty)
        #expect(calm.allSatisfy { $0.delayBefore <= .milliseconds(40) })
        #expect(isIncreasing(simulation.played()))
        checkIdentities(simulation)
    }

    @Test func lostFramesAreRecoveredFromTheNextPacketOrConcealed() {
        var simulation = AudioStreamSimulation(
            conditions: LinkConditions(lossRate: 0.1, delay: .milliseconds(30)), seed: 9,
            configuration: .init(minimumDelay: .milliseconds(40)))
        simulation.run(for: .seconds(60))
        let stats = simulation.buffer.statistics
        let delivered = Set(simulation.arrivals)
        let played = simulation.played()
        #expect(isIncreasing(played))
        // Packets the link lost between the first and the last played.
        let lost = ((played.first ?? 0)...(played.last ?? 0)).filter { !delivered.contains($0) }
        #expect((250...350).contains(lost.count))
        #expect(stats.packetsLate == 0)
        #expect((0...2).contains(stats.packetsLost - lost.count))
        // Every recovery uses the packet right after a lost one.
        var recoveredFor: Set<Int> = []
        for tick in simulation.ticks {
            if case .recoverFromNext(let payload) = tick.playout {
                let next = AudioStreamSimulation.index(payload)
                #expect(!delivered.contains(next - 1))
                recoveredFor.insert(next - 1)
            }
        }
        // A loss whose neighbours both arrived is always recovered at 40 ms of buffering.
        let isolated = lost.filter { delivered.contains($0 - 1) && delivered.contains($0 + 1) }
        #expect(isolated.allSatisfy(recoveredFor.contains))
        #expect(stats.framesRecovered == recoveredFor.count)
        #expect(stats.framesRecovered >= isolated.count)
        // Played, recovered and concealed frames fill every tick of the period.
        let period = simulation.ticks(from: 2000)
        let recovered = period.filter { if case .recoverFromNext = $0.playout { true } else { false } }.count
        let concealed = period.filter { $0.playout == .conceal }.count
        let playedInPeriod = simulation.played(from: 2000).count
        #expect(playedInPeriod + recovered + concealed == period.count)
        #expect(concealed > 0)
        checkIdentities(simulation)
    }

    @Test func reorderedPacketsArePlayedInSequenceOrder() {
        var simulation = AudioStreamSimulation(
            conditions: LinkConditions(delay: .milliseconds(10), jitter: .milliseconds(45), allowsReordering: true),
            seed: 21)
        simulation.run(for: .seconds(30))
        let arrivals = simulation.arrivals
        #expect(!isIncreasing(arrivals))
        let played = simulation.played()
        #expect(isIncreasing(played))
        let stats = simulation.buffer.statistics
        #expect(stats.packetsLate < 15)
        #expect(stats.packetsInserted + stats.packetsLate == arrivals.count)
        // Whatever arrived in time was played or deliberately dropped; late packets were not played.
        #expect(stats.packetsPlayed + stats.framesDropped + stats.packetsDiscarded + simulation.buffer.bufferedPackets
                == stats.packetsInserted)
        checkIdentities(simulation)
    }

    @Test(arguments: [0.001, -0.001, 0.01, -0.01], [0, 30])
    func clockDriftKeepsTheDelayBounded(drift: Double, jitterMilliseconds: Int64) {
        let conditions = LinkConditions(delay: .milliseconds(30), jitter: .milliseconds(jitterMilliseconds),
                                        allowsReordering: true)
        var simulation = AudioStreamSimulation(conditions: conditions, seed: 8, senderDrift: drift)
        simulation.run(for: .seconds(10))
        let warm = simulation.buffer.statistics
        let sentAtWarm = simulation.packetsSent
        let ticksAtWarm = simulation.ticks.count
        simulation.run(for: .seconds(600))
        let stats = simulation.buffer.statistics
        let late = simulation.ticks(from: 10_000)
        #expect(late.allSatisfy { $0.delayBefore <= $0.target + .milliseconds(100) })
        #expect(late.allSatisfy { $0.delayBefore <= .milliseconds(40 + 2 * jitterMilliseconds) })
        #expect(late.allSatisfy { $0.target <= .milliseconds(40 + jitterMilliseconds) })
        // A fast sender's extra packets are dropped, a slow sender's missing ones are made up by inserted frames.
        let extraPackets = (simulation.packetsSent - sentAtWarm) - (simulation.ticks.count - ticksAtWarm)
        let adapted = (stats.framesDropped - warm.framesDropped) - (stats.framesInserted - warm.framesInserted)
        #expect(abs(adapted - extraPackets) <= 3)
        #expect(abs(extraPackets) >= Int(abs(drift) * 30_000 * 0.9))
        #expect(stats.packetsLost == 0 && stats.packetsLate == 0)
        if drift > 0 {
            #expect(stats.framesInserted == warm.framesInserted)
        } else {
            #expect(stats.framesDropped == warm.framesDropped)
            #expect(isConsecutive(simulation.played(from: 10_000)))
        }
        #expect(isIncreasing(simulation.played()))
        checkIdentities(simulation)
    }

    @Test func aLongPauseConcealsBrieflyThenGoesSilentAndResumesCleanly() {
        var simulation = AudioStreamSimulation()
        simulation.run(for: .seconds(10))
        let before = simulation.buffer.statistics
        simulation.paused = true
        simulation.run(for: .seconds(2))
        simulation.paused = false
        simulation.run(for: .seconds(5))
        let stats = simulation.buffer.statistics
        let pause = simulation.ticks(from: 10_000, to: 12_000)
        let concealed = pause.filter { $0.playout == .conceal }.count
        #expect(concealed == 5)
        // The packet sent at 10 s and the two before it are still buffered when the pause starts.
        #expect(pause.prefix(3).allSatisfy { $0.playout.isPacket })
        #expect(pause.dropFirst(3).prefix(5).allSatisfy { $0.playout == .conceal })
        #expect(pause.dropFirst(8).allSatisfy { $0.playout == .silence })
        #expect(stats.resynchronizations - before.resynchronizations == 1)
        #expect(stats.resets == 0)
        // Resumes within two ticks of the first packet's arrival (12 030 ms), then plays at the minimum delay.
        let resumed = simulation.ticks(from: 12_000)
        let firstPacket = resumed.firstIndex { if case .packet = $0.playout { true } else { false } } ?? resumed.endIndex
        #expect(firstPacket < resumed.endIndex && resumed[firstPacket].time <= 12_080)
        let after = resumed[firstPacket...]
        #expect(after.allSatisfy { if case .packet = $0.playout { true } else { false } })
        #expect(after.allSatisfy { $0.delayBefore <= .milliseconds(40) })
        #expect(isConsecutive(simulation.played(from: 12_000)))
        checkIdentities(simulation)
    }

    /// A reading loop or a sender that stalled for 3 s delivers its backlog in one burst: the buffer must not play 3 s
    /// late from then on, but drop the stale packets at once and go on at its target with the newest.
    @Test func aBurstAfterAStallIsDroppedAtOnceDownToTheTarget() {
        var buffer = AudioJitterBuffer()
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        func payload(_ index: Int) -> ArraySlice<UInt8> { [UInt8(index >> 8), UInt8(truncatingIfNeeded: index)][...] }
        func packet(_ index: Int, at arrival: NIODeadline) {
            buffer.insert(sequenceNumber: UInt16(100 + index), timestamp: UInt32(960 * index), payload: payload(index),
                          arrival: arrival)
        }
        var played: [Int] = []
        func tick(_ time: NIODeadline) {
            if case .packet(let bytes, _) = buffer.nextFrame(now: time) { played.append(AudioStreamSimulation.index(bytes)) }
        }
        // Two seconds of a steady stream.
        for index in 0..<100 {
            let time = start + .milliseconds(Int64(20 * index))
            packet(index, at: time)
            tick(time)
        }
        // Nothing for 3 s (the output keeps asking), then the 150 held packets all at once.
        for step in 100..<250 { tick(start + .milliseconds(Int64(20 * step))) }
        let burst = start + .milliseconds(5_000)
        for index in 100..<250 { packet(index, at: burst) }
        #expect(buffer.currentDelay > .milliseconds(2_500))
        tick(burst)
        // One call later the backlog is gone: no more than the target is buffered, and the newest packets play.
        #expect(buffer.currentDelay <= buffer.targetDelay)
        #expect(buffer.statistics.backlogFlushes == 1)
        #expect(played.last.map { $0 >= 250 - 1 - Int(buffer.targetDelay.nanoseconds / 20_000_000) - 1 } == true)
        let dropped = buffer.statistics.framesDropped
        for step in 1...10 {
            let time = burst + .milliseconds(Int64(20 * step))
            packet(249 + step, at: time)
            tick(time)
        }
        #expect(buffer.statistics.framesDropped - dropped <= 1, "the stream then plays on without dropping")
        #expect(played.suffix(10) == Array(played.suffix(10)).sorted())
    }

    @Test func sequenceAndTimestampWrapWithoutAGlitch() {
        // Sequence numbers wrap after 4 s, timestamps after 6 s.
        var simulation = AudioStreamSimulation(
            conditions: LinkConditions(delay: .milliseconds(25)), configuration: .init(initialTargetDelay: .milliseconds(20)),
            sequenceBase: 65_336, timestampBase: UInt32.max - 960 * 300)
        simulation.run(for: .seconds(12))
        let stats = simulation.buffer.statistics
        #expect(stats.resets == 0 && stats.resynchronizations == 0)
        #expect(stats.packetsLate == 0 && stats.packetsLost == 0)
        #expect(isConsecutive(simulation.played()))
        #expect(simulation.ticks(from: 100).allSatisfy { $0.playout.isPacket })
        #expect(simulation.played().last ?? 0 > 590)
        checkIdentities(simulation)
    }

    @Test func duplicatesAndVeryLatePacketsAreCountedAndIgnored() {
        var simulation = AudioStreamSimulation(
            conditions: LinkConditions(delay: .milliseconds(30), duplicationRate: 0.2), seed: 4)
        simulation.run(for: .seconds(10))
        let stats = simulation.buffer.statistics
        #expect(simulation.link.duplicated > 60)
        #expect(stats.packetsDuplicate == simulation.arrivals.count - Set(simulation.arrivals).count)
        #expect(isIncreasing(simulation.played()))
        #expect(gaps(simulation.played()) == stats.framesDropped)

        var buffer = AudioJitterBuffer(configuration: .init(initialTargetDelay: .milliseconds(20)))
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        var outputs: [Playout] = []
        for tick in 0..<40 {
            let now = start + .milliseconds(Int64(20 * tick))
            // Packet 10 is held back half a second.
            if tick != 10 { buffer.insert(sequenceNumber: UInt16(tick), timestamp: UInt32(tick * 960), payload: [UInt8(tick)], arrival: now) }
            if tick == 35 { buffer.insert(sequenceNumber: 10, timestamp: 9600, payload: [10], arrival: now) }
            if tick == 36 { buffer.insert(sequenceNumber: 30, timestamp: 30 * 960, payload: [30], arrival: now) }
            outputs.append(buffer.nextFrame(now: now + .milliseconds(5)))
        }
        #expect(buffer.statistics.packetsLate == 1)
        #expect(buffer.statistics.packetsDuplicate == 1)
        #expect(buffer.statistics.packetsLost == 1)
        #expect(buffer.statistics.resets == 0)
        let played = outputs.compactMap { if case .packet(let payload, _) = $0 { Int(payload[0]) } else { nil } }
        #expect(played == Array(0..<10) + Array(11..<40))
        // Packet 10 was lost to the buffer and nothing followed it yet: the stall covered it, then 11 played.
        #expect(outputs[10] == .conceal)
    }

    @Test func aSenderRestartResetsTheBuffer() {
        var simulation = AudioStreamSimulation()
        simulation.run(for: .seconds(5))
        simulation.jump(sequenceBy: 20_000, timestampBy: 48_000 * 3600)
        simulation.run(for: .seconds(5))
        let stats = simulation.buffer.statistics
        #expect(stats.resets == 1)
        #expect(stats.packetsLate == 0)
        let around = simulation.ticks(from: 5000)
        #expect(around.filter { !($0.playout.isPacket) }.count <= 2)
        #expect(isConsecutive(simulation.played(from: 5000)))
        #expect(simulation.ticks(from: 6000).allSatisfy { $0.delayBefore <= .milliseconds(40) })
        // Timestamps that stop for a second (a frozen sender) also reset instead of counting packets late.
        simulation.frozen = true
        simulation.run(for: .seconds(2))
        simulation.frozen = false
        simulation.run(for: .seconds(3))
        #expect(simulation.buffer.statistics.resets == 2)
        #expect(simulation.buffer.statistics.packetsLate == 0)
        #expect(simulation.ticks(from: 12_200).allSatisfy { $0.playout.isPacket })
        checkIdentities(simulation)
    }

    @Test func longerFramesAreDetectedFromTimestampSteps() {
        var simulation = AudioStreamSimulation(frameMilliseconds: 40)
        simulation.run(for: .seconds(10))
        let stats = simulation.buffer.statistics
        #expect(simulation.buffer.frameDuration == .milliseconds(40))
        #expect(gaps(simulation.played()) == stats.framesDropped)
        #expect(isConsecutive(simulation.played(from: 5000)))
        #expect(stats.framesConcealed == 0 && stats.packetsLost == 0)
        #expect(simulation.ticks(from: 5000).allSatisfy { $0.playout.isPacket })
        #expect(simulation.buffer.targetDelay == .milliseconds(40))
        // One call per 40 ms frame.
        #expect((120...130).contains(simulation.ticks(from: 5000).count))
    }

    @Test func rtpPacketsAreInsertedWithTheirPayload() throws {
        var buffer = AudioJitterBuffer(configuration: .init(initialTargetDelay: .milliseconds(20)))
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        let datagram = RTPPacket(payloadType: 111, sequenceNumber: 65_535, timestamp: 4_294_966_336, ssrc: 7,
                                 payload: [9, 8, 7]).serialized()
        buffer.insert(try RTPPacket(parsing: datagram), arrival: start)
        #expect(buffer.currentDelay == .milliseconds(20))
        #expect(buffer.nextFrame(now: start + .milliseconds(5)) == .packet([9, 8, 7], timestamp: 4_294_966_336))
        // The next one wraps both numbers; the one after is lost, so the third is recovered from the fourth.
        buffer.insert(RTPPacket(payloadType: 111, sequenceNumber: 0, timestamp: 0, ssrc: 7, payload: [1]),
                      arrival: start + .milliseconds(20))
        buffer.insert(RTPPacket(payloadType: 111, sequenceNumber: 2, timestamp: 1920, ssrc: 7, payload: [3]),
                      arrival: start + .milliseconds(40))
        #expect(buffer.nextFrame(now: start + .milliseconds(45)) == .packet([1], timestamp: 0))
        #expect(buffer.nextFrame(now: start + .milliseconds(65)) == .recoverFromNext([3]))
        #expect(buffer.nextFrame(now: start + .milliseconds(85)) == .packet([3], timestamp: 1920))
        #expect(buffer.statistics.packetsLost == 1 && buffer.statistics.framesRecovered == 1)
        #expect(buffer.statistics.resets == 0)
    }

    @Test func storageIsBoundedByTheCapacity() {
        var buffer = AudioJitterBuffer(configuration: .init(capacity: 100))
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        for index in 0..<1000 {
            buffer.insert(sequenceNumber: UInt16(index), timestamp: UInt32(index * 960), payload: [0],
                          arrival: start + .milliseconds(Int64(index * 20)))
            #expect(buffer.bufferedPackets <= 100)
        }
        #expect(buffer.statistics.packetsInserted == 1000)
        #expect(buffer.statistics.packetsDiscarded >= 900)
        #expect(buffer.statistics.resynchronizations >= 9)
    }
}

extension AudioJitterBuffer.Playout {
    var isPacket: Bool { if case .packet = self { true } else { false } }
}
