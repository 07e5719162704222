import NIOCore
import NIOEmbedded
import Testing

@testable import CarillonServer

@Suite struct InboundFrameWindowTests {
    /// The reader is told to wait for the oldest frame once more than the capacity are handed over, oldest first.
    @Test func aFullWindowWaitsForTheOldestFrame() throws {
        let loop = EmbeddedEventLoop()
        var window = InboundFrameWindow(capacity: 3)
        let frames = (0..<200).map { _ in loop.makePromise(of: Void.self) }
        for index in 0..<3 {
            let wait = window.add(frames[index].futureResult)
            #expect(wait == nil)
        }
        for index in 3..<200 {
            let wait = window.add(frames[index].futureResult)
            let oldest = try #require(wait)
            #expect(oldest === frames[index - 3].futureResult, "frame \(index) waits for frame \(index - 3)")
            frames[index - 3].succeed()
            #expect(window.count == 3)
        }
        for promise in frames.suffix(3) { promise.succeed() }
    }
}
