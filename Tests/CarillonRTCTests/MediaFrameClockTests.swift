import CarillonRTC
import NIOCore
import Testing

struct MediaFrameClockTests {
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
    static func at(_ milliseconds: Int64) -> NIODeadline { start + .milliseconds(milliseconds) }

    @Test func aStoppedClockHasNoFrameDue() {
        var clock = MediaFrameClock(period: .milliseconds(20))
        #expect(clock.nextFrame == nil)
        #expect(clock.takeFrame(now: Self.start) == nil)
        clock.start(at: Self.start)
        clock.stop()
        #expect(clock.takeFrame(now: Self.at(100)) == nil)
    }

    @Test func framesFollowTheGridAndLateTicksCatchUpOneFrameEach() {
        var clock = MediaFrameClock(period: .milliseconds(20))
        clock.start(at: Self.start)
        #expect(clock.takeFrame(now: Self.start) == 0)
        #expect(clock.nextFrame == Self.at(20))
        #expect(clock.takeFrame(now: Self.at(19)) == nil, "not due yet")
        #expect(clock.takeFrame(now: Self.at(27)) == 0)
        #expect(clock.nextFrame == Self.at(40), "a late tick keeps the grid")
        // 500 ms late is still caught up, frame by frame, on the grid.
        var taken: [Int] = []
        while let skipped = clock.takeFrame(now: Self.at(540)) { taken.append(skipped) }
        #expect(taken == Array(repeating: 0, count: 26), "frames at 40...540 ms")
        #expect(clock.nextFrame == Self.at(560))
    }

    @Test func aStallPastTheBoundSkipsTheFramesWhoseTimePassed() {
        var clock = MediaFrameClock(period: .milliseconds(20), maximumCatchUp: .milliseconds(100))
        clock.start(at: Self.start)
        #expect(clock.takeFrame(now: Self.start) == 0)
        // Due at 20, called at 135: 5 whole periods passed (20...100), the frame taken is the one at 120.
        #expect(clock.takeFrame(now: Self.at(135)) == 5)
        #expect(clock.nextFrame == Self.at(140), "the grid keeps its phase")
        #expect(clock.takeFrame(now: Self.at(140)) == 0)
        // Exactly at the bound: caught up, not skipped.
        #expect(clock.takeFrame(now: Self.at(260)) == 0)
        #expect(clock.nextFrame == Self.at(180))
    }
}
