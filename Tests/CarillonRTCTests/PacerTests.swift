import CarillonRTC
import NIOCore
import Testing

@Suite struct PacerTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    func packet(_ tag: UInt8, _ priority: Pacer.Priority, size: Int = 1200) -> Pacer.Packet {
        Pacer.Packet(bytes: [tag], size: size, priority: priority)
    }

    @Test func outputRateMatchesTheTargetTimesTheFactor() throws {
        // 1 Mbit/s target, factor 2.5: 312 500 bytes a second.
        var pacer = Pacer(targetBitrate: 1_000_000)
        for index in 0..<600 { pacer.enqueue(packet(UInt8(index & 0xFF), .video)) }
        var now = start
        var polls: [NIODeadline] = []
        var bytesPerTenth = [Int](repeating: 0, count: 10)
        while let deadline = pacer.nextDeadline, polls.count < 1000 {
            now = max(now, deadline)
            guard now < start + .seconds(1) else { break }
            polls.append(now)
            let sent = pacer.poll(now: now)
            bytesPerTenth[Int((now - start).nanoseconds / 100_000_000)] += sent.reduce(0) { $0 + $1.size }
        }
        let total = bytesPerTenth.reduce(0, +)
        #expect(abs(Double(total) - 312_500) / 312_500 < 0.02)
        #expect(bytesPerTenth.allSatisfy { abs(Double($0) - 31_250) < 2_500 })
        // Polled every 5 ms, never more often.
        #expect(zip(polls, polls.dropFirst()).allSatisfy { $1 - $0 >= .milliseconds(5) })
        #expect((190...201).contains(polls.count))
        // Halving the rate halves the output.
        pacer.setRate(targetBitrate: 500_000)
        var halved = 0
        now = start + .seconds(1)
        while let deadline = pacer.nextDeadline, deadline < start + .seconds(2) {
            now = max(now, deadline)
            halved += pacer.poll(now: now).reduce(0) { $0 + $1.size }
        }
        #expect(abs(Double(halved) - 156_250) / 156_250 < 0.03)
    }

    /// A busy event loop polls late: packets that waited get the time owed (up to the catch-up limit), so the rate
    /// holds; after an idle spell the budget is still at most one burst ahead.
    @Test func latePollsWithPacketsWaitingKeepTheRate() {
        // 1 Mbit/s target, factor 2.5: 312 500 bytes a second; polled 35 ms after each deadline.
        var pacer = Pacer(targetBitrate: 1_000_000)
        for index in 0..<600 { pacer.enqueue(packet(UInt8(index & 0xFF), .video)) }
        var now = start
        var total = 0
        while let deadline = pacer.nextDeadline {
            now = max(now, deadline) + .milliseconds(30)
            guard now < start + .seconds(1) else { break }
            total += pacer.poll(now: now).reduce(0) { $0 + $1.size }
        }
        #expect(abs(Double(total) - 312_500) / 312_500 < 0.05, "\(total) bytes in 1 s")
        // Drained, then idle for a second: a new batch may leave only one burst (5 ms: 1563 bytes) at once.
        var idle = Pacer(targetBitrate: 1_000_000)
        idle.enqueue(packet(1, .video))
        #expect(idle.poll(now: start).count == 1)
        for index in 0..<10 { idle.enqueue(packet(UInt8(index), .video)) }
        #expect(idle.poll(now: start + .seconds(1)).count == 2)
    }

    @Test func audioLeavesFirstAndIsNeverHeldBack() {
        var pacer = Pacer(targetBitrate: 1_000_000)
        pacer.enqueue(packet(1, .video))
        pacer.enqueue(packet(2, .video))
        pacer.enqueue(packet(3, .retransmission))
        pacer.enqueue(packet(4, .audio, size: 100))
        #expect(pacer.nextDeadline != nil)
        // A 5 ms budget at 2.5 Mbit/s is 1562 bytes: audio, the retransmission and one video packet (overdrawn).
        #expect(pacer.poll(now: start).map(\.bytes) == [[4], [3], [1]])
        #expect(pacer.queuedPackets == 1)
        #expect(pacer.nextDeadline == start + .milliseconds(5))
        // Audio queued while the budget is overdrawn leaves at once; the video still waits.
        pacer.enqueue(packet(5, .audio, size: 100))
        #expect(pacer.nextDeadline == start)
        #expect(pacer.poll(now: start + .milliseconds(1)).map(\.bytes) == [[5]])
        // 725.5 bytes still overdrawn at 1 ms (312.5 earned a millisecond): the next interval is 5 ms after that poll,
        // and the video goes once the debt is paid, not before.
        #expect(pacer.nextDeadline == start + .milliseconds(6))
        #expect(pacer.poll(now: start + .milliseconds(3)).isEmpty)
        #expect(pacer.poll(now: start + .milliseconds(6)).map(\.bytes) == [[2]])
        #expect(pacer.nextDeadline == nil)
        #expect(pacer.queuedBytes == 0)
    }

    @Test func aFullQueueDropsTheOldestVideo() {
        var pacer = Pacer(targetBitrate: 1_000_000, maximumQueuedPackets: 4)
        pacer.enqueue(packet(0, .retransmission))
        for tag in 1...5 { pacer.enqueue(packet(UInt8(tag), .video)) }
        #expect(pacer.droppedPackets == 2)
        #expect(pacer.queuedPackets == 4)
        #expect(pacer.queuedBytes == 4 * 1200)
        // With no video left to drop, the oldest retransmission goes; audio is always taken.
        var noVideo = Pacer(targetBitrate: 1_000_000, maximumQueuedPackets: 2)
        noVideo.enqueue(packet(0, .retransmission))
        noVideo.enqueue(packet(1, .retransmission))
        noVideo.enqueue(packet(2, .retransmission))
        noVideo.enqueue(packet(3, .audio))
        #expect(noVideo.droppedPackets == 1)
        #expect(noVideo.poll(now: start).map(\.bytes) == [[3], [1]])
        #expect(noVideo.poll(now: start + .milliseconds(5)).map(\.bytes) == [[2]])
        var drained = pacer
        var tags: [UInt8] = []
        var now = start
        while let deadline = drained.nextDeadline, tags.count < 10 {
            now = max(now, deadline)
            tags += drained.poll(now: now).flatMap(\.bytes)
        }
        #expect(tags == [0, 3, 4, 5])
    }
}
