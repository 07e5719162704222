import Testing

@testable import CarillonRTC

/// The bounded pool the SFU builds downlink packets in: reuse of the same storage, its bound, what it refuses, and
/// that a buffer given back while still held elsewhere (kept, or given back twice) never aliases two datagrams.
@Suite struct DatagramBufferPoolTests {
    /// Where an array's elements live (its storage's identity).
    static func storage(_ bytes: [UInt8]) -> UnsafeRawPointer? {
        bytes.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func aBufferGivenBackIsHandedOutAgainWithItsStorage() {
        var pool = DatagramBufferPool(limit: 4)
        var first = pool.take()
        #expect(first.isEmpty && first.capacity >= DatagramBufferPool.bufferCapacity)
        first.append(contentsOf: [UInt8](repeating: 0xAA, count: 1_200))
        let address = Self.storage(first)
        let kept = pool.recycle(consume first)
        #expect(kept)
        let again = pool.take()
        #expect(again.isEmpty)
        #expect(Self.storage(again) == address)
        #expect(pool.freshAllocations == 1 && pool.reused == 1 && pool.released == 0)
    }

    @Test func anExhaustedPoolAllocatesAndAFullOneLetsGo() {
        var pool = DatagramBufferPool(limit: 3)
        // Five out at once: the pool has none, so all five are new.
        var out = (0..<5).map { _ in pool.take() }
        #expect(pool.freshAllocations == 5 && pool.reused == 0)
        // All five back: it keeps three (its limit) and lets two go.
        let kept = out.indices.map { index in
            var buffer: [UInt8] = []
            swap(&buffer, &out[index])
            return pool.recycle(consume buffer)
        }
        #expect(kept == [true, true, true, false, false])
        #expect(pool.count == 3 && pool.released == 2)
        // Four out again: three from the pool, the fourth new.
        let again = (0..<4).map { _ in pool.take() }
        #expect(pool.reused == 3 && pool.freshAllocations == 6)
        #expect(again.allSatisfy { $0.capacity >= DatagramBufferPool.bufferCapacity })
        #expect(pool.count == 0)
    }

    @Test func buffersTooSmallForADatagramAreLetGo() {
        var pool = DatagramBufferPool(limit: 4)
        var audio: [UInt8] = []
        audio.reserveCapacity(200)
        audio.append(contentsOf: [1, 2, 3])
        let kept = pool.recycle(audio)
        #expect(!kept)
        #expect(pool.count == 0 && pool.released == 1)
        // What it hands out next is a full-size array, not the small one.
        let next = pool.take()
        #expect(next.capacity >= DatagramBufferPool.bufferCapacity)
    }

    @Test func aBufferGivenBackTwiceNeverAliasesTwoDatagrams() {
        var pool = DatagramBufferPool(limit: 4)
        var datagram = pool.take()
        datagram.append(contentsOf: [UInt8](repeating: 0x11, count: 100))
        let kept = datagram  // someone (a transmit function, a test) still holds it
        let keptFirst = pool.recycle(datagram)
        let keptSecond = pool.recycle(kept)
        #expect(keptFirst && keptSecond)
        // Both come out, both are written: each must be its own storage, and the holder's copy untouched.
        var one = pool.take(), two = pool.take()
        one.append(contentsOf: [UInt8](repeating: 0x22, count: 50))
        two.append(contentsOf: [UInt8](repeating: 0x33, count: 60))
        #expect(one == [UInt8](repeating: 0x22, count: 50))
        #expect(two == [UInt8](repeating: 0x33, count: 60))
        #expect(Self.storage(one) != Self.storage(two))
        #expect(kept == [UInt8](repeating: 0x11, count: 100))
        #expect(one.capacity >= DatagramBufferPool.bufferCapacity && two.capacity >= DatagramBufferPool.bufferCapacity)
    }

    @Test func aBufferStillHeldElsewhereIsNotWrittenUnderItsHolder() {
        var pool = DatagramBufferPool(limit: 2)
        var datagram = pool.take()
        datagram.append(contentsOf: [9, 9, 9])
        let holder = datagram
        pool.recycle(datagram)
        var reused = pool.take()
        reused.append(contentsOf: [1])
        #expect(holder == [9, 9, 9])
        #expect(reused == [1])
    }
}
