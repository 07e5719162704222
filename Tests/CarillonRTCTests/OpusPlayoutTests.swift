import CarillonCodecs
import CarillonMedia
import CarillonRTC
import NIOCore
import Testing

@Suite struct OpusPlayoutTests {
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    /// A tone in `milliseconds`-long Opus packets (48 kHz mono), numbered from 0, each arriving on time.
    struct Stream {
        let milliseconds: Int
        var buffer: AudioJitterBuffer
        var playout = OpusPlayout(format: .mono48k)
        let decoder: OpusDecoder
        private let packets: [[UInt8]]
        private let dropped: Set<Int>
        private var sent = 0

        init(milliseconds: Int, count: Int, dropping dropped: Set<Int> = []) throws {
            self.milliseconds = milliseconds
            self.dropped = dropped
            buffer = AudioJitterBuffer(configuration: .init(frameDuration: .milliseconds(Int64(milliseconds))))
            decoder = try OpusDecoder(format: .mono48k)
            let encoder = try OpusEncoder(format: .mono48k, application: .audio, dtx: false)
            var tone = ToneGenerator(frequency: 440, amplitude: 0.5, format: .mono48k)
            packets = try (0..<count).map { _ in try encoder.encode(tone.next(milliseconds: milliseconds)) }
        }

        /// Delivers the packets due by `now` (one per `milliseconds`, the first at `start`).
        mutating func deliver(until now: NIODeadline) {
            while sent < packets.count, OpusPlayoutTests.start + .milliseconds(Int64(sent * milliseconds)) <= now {
                defer { sent += 1 }
                guard !dropped.contains(sent) else { continue }
                buffer.insert(sequenceNumber: UInt16(sent), timestamp: UInt32(sent * milliseconds * 48),
                              payload: packets[sent][...], arrival: now)
            }
        }
    }

    static func tick(_ index: Int) -> NIODeadline { start + .milliseconds(Int64(20 * index)) }

    @Test func packetsShorterAndLongerThanAFrameMakeWholeFrames() throws {
        for milliseconds in [10, 40] {
            var stream = try Stream(milliseconds: milliseconds, count: 100 * 20 / milliseconds)
            var frames: [[Int16]] = []
            for index in 0..<100 {
                stream.deliver(until: Self.tick(index))
                frames.append(stream.playout.nextFrame(from: &stream.buffer, decoder: stream.decoder, now: Self.tick(index)))
            }
            #expect(frames.allSatisfy { $0.count == 960 })
            // Once playing, every frame is tone: 10 ms packets are decoded two to a frame, 40 ms ones one for two.
            let firstSound = try #require(frames.firstIndex { $0.contains { $0 != 0 } })
            #expect(frames[firstSound...].dropLast(6).allSatisfy { frame in frame.contains { abs($0) > 1_000 } })
            let decoded = stream.playout.statistics.framesDecoded
            #expect(decoded * milliseconds >= (100 - firstSound - 6) * 20)
            #expect(stream.playout.statistics.framesConcealed == 0 && stream.playout.statistics.decodeFailures == 0)
        }
    }

    @Test func audioSkippedPastAFramePlaysAsSilenceWhenDecodingResumes() throws {
        var stream = try Stream(milliseconds: 40, count: 50)
        var index = 0
        // Play until the tone sounds, ending on a frame boundary of a 40 ms packet (nothing decoded left over).
        var frame: [Int16] = []
        repeat {
            stream.deliver(until: Self.tick(index))
            frame = stream.playout.nextFrame(from: &stream.buffer, decoder: stream.decoder, now: Self.tick(index))
            index += 1
        } while !frame.contains { $0 != 0 } && index < 50
        stream.deliver(until: Self.tick(index))
        _ = stream.playout.nextFrame(from: &stream.buffer, decoder: stream.decoder, now: Self.tick(index))
        index += 1
        let decodedBefore = stream.playout.statistics.framesDecoded

        // Skipping takes a whole 40 ms packet for a 20 ms frame, decoding none of it.
        stream.deliver(until: Self.tick(index))
        stream.playout.skipFrame(from: &stream.buffer, now: Self.tick(index))
        index += 1
        #expect(stream.playout.statistics.framesDecoded == decodedBefore)
        // The 20 ms taken but not played come out as silence, without touching the buffer...
        stream.deliver(until: Self.tick(index))
        let resumed = stream.playout.nextFrame(from: &stream.buffer, decoder: stream.decoder, now: Self.tick(index))
        index += 1
        #expect(resumed.count == 960 && resumed.allSatisfy { $0 == 0 })
        #expect(stream.playout.statistics.framesDecoded == decodedBefore)
        // ...then the next packet is decoded.
        stream.deliver(until: Self.tick(index))
        let next = stream.playout.nextFrame(from: &stream.buffer, decoder: stream.decoder, now: Self.tick(index))
        #expect(next.contains { abs($0) > 1_000 } && stream.playout.statistics.framesDecoded == decodedBefore + 1)
    }

    @Test func aLostPacketIsRecoveredFromItsSuccessorOrConcealed() throws {
        func play(dropping dropped: Set<Int>) throws -> (OpusPlayout.Statistics, [[Int16]]) {
            var stream = try Stream(milliseconds: 20, count: 80, dropping: dropped)
            var frames: [[Int16]] = []
            for index in 0..<80 {
                stream.deliver(until: Self.tick(index))
                frames.append(stream.playout.nextFrame(from: &stream.buffer, decoder: stream.decoder, now: Self.tick(index)))
            }
            return (stream.playout.statistics, frames)
        }
        let (clean, _) = try play(dropping: [])
        #expect(clean.framesRecovered == 0 && clean.framesConcealed == 0 && clean.framesDecoded > 70)
        // One packet lost: its successor is buffered when it is due, and its FEC rebuilds it.
        let (single, singleFrames) = try play(dropping: [30])
        #expect(single.framesRecovered == 1 && single.framesConcealed == 0 && single.framesDecoded == clean.framesDecoded - 1)
        // Three in a row: the first two have no successor to rebuild from and are concealed, the last is rebuilt.
        let (burst, burstFrames) = try play(dropping: [40, 41, 42])
        #expect(burst.framesConcealed == 2 && burst.framesRecovered == 1 && burst.framesDecoded == clean.framesDecoded - 3)
        // Never a hole: every frame from the first sound to the end carries audio.
        for frames in [singleFrames, burstFrames] {
            let first = try #require(frames.firstIndex { $0.contains { $0 != 0 } })
            #expect(frames[first...].dropLast(4).allSatisfy { frame in frame.contains { $0 != 0 } })
        }
    }
}
