import CCarillonXCB
import Carillon
import CarillonCodecs
import Foundation
import Testing

/// Screen sharing under Xvfb: the test starts its own Xvfb on a display number it picks, paints the synthetic camera's
/// pattern (a counter and a colour) on the root window as a test client, a bot shares that screen, and another bot's
/// content tile shows the painted counter and colour; painting a new counter changes what arrives. Skipped, with a
/// message, where Xvfb is not installed (`make deps` installs it).
@Suite(.serialized) struct ScreenShareEndToEndTests {
    static let xvfb = "/usr/bin/Xvfb"

    /// An Xvfb of its own, killed by ``stop()``.
    final class VirtualDisplay {
        let process: Process
        private let output = Pipe()
        /// The display number Xvfb chose; set by ``waitUntilReady()``.
        private(set) var number: Int?

        var name: String { ":\(number ?? -1)" }

        /// Starts Xvfb at 640x360 with 24 bits, without the reset an X server does when its last client leaves (which
        /// would clear what the painter drew). With `-displayfd` it picks a display number nobody uses (taking over
        /// a stale lock whose process is gone) and writes it to its standard output once it takes connections: no
        /// race with another X server for a number, and readiness without polling.
        init(width: Int, height: Int) throws {
            process = Process()
            process.executableURL = URL(fileURLWithPath: ScreenShareEndToEndTests.xvfb)
            process.arguments = ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp",
                                 "-noreset"]
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        /// Waits until Xvfb says which display it serves (it is then taking connections), up to 30 s.
        func waitUntilReady() async throws {
            let descriptor = output.fileHandleForReading.fileDescriptor
            let deadline = ContinuousClock.now + .seconds(30)
            var received: [UInt8] = []
            while ContinuousClock.now < deadline, process.isRunning {
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 0) > 0 else {
                    try await Task.sleep(for: .milliseconds(20))
                    continue
                }
                var chunk = [UInt8](repeating: 0, count: 16)
                let count = read(descriptor, &chunk, chunk.count)
                guard count > 0 else { break }
                received += chunk[..<count]
                if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                    number = Int(String(decoding: received[..<newline], as: UTF8.self))
                    if number != nil { return }
                    break
                }
            }
            throw ProbeTimeout(description: "Xvfb did not announce a display (said \(String(decoding: received, as: UTF8.self)))")
        }

        /// Kills it (SIGKILL, since a child spawned from the test process may inherit a mask that blocks SIGTERM) and
        /// removes the lock file and socket it cannot remove itself after that.
        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            guard let number else { return }
            try? FileManager.default.removeItem(atPath: "/tmp/.X\(number)-lock")
            try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(number)")
        }
    }

    /// Paints `image` on the root window of `display` with PutImage, as any X client draws.
    static func paint(_ image: I420Image, on display: String) throws {
        let connection = try #require(xcb_connect(display, nil))
        defer { xcb_disconnect(connection) }
        let screen = try #require(xcb_setup_roots_iterator(xcb_get_setup(connection)).data?.pointee)
        let context = xcb_generate_id(connection)
        xcb_create_gc(connection, context, screen.root, 0, nil)
        var bgra = [UInt8](repeating: 255, count: image.width * image.height * 4)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let (luma, u, v) = image.pixel(x: x, y: y)
                let c = 1.164 * (Double(luma) - 16), d = Double(u) - 128, e = Double(v) - 128
                let clamp = { (value: Double) in UInt8(max(0, min(255, value.rounded()))) }
                let at = (y * image.width + x) * 4
                bgra[at] = clamp(c + 2.018 * d)
                bgra[at + 1] = clamp(c - 0.391 * d - 0.813 * e)
                bgra[at + 2] = clamp(c + 1.596 * e)
            }
        }
        // In strips well under the core protocol's request size limit.
        let rows = 32
        for top in stride(from: 0, to: image.height, by: rows) {
            let count = min(rows, image.height - top)
            bgra.withUnsafeBufferPointer { pixels in
                let start = pixels.baseAddress! + top * image.width * 4
                _ = xcb_put_image(connection, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), screen.root, context,
                                  UInt16(image.width), UInt16(count), 0, Int16(top), 0, screen.root_depth,
                                  UInt32(count * image.width * 4), start)
            }
        }
        let cookie = xcb_get_input_focus(connection)
        free(xcb_get_input_focus_reply(connection, cookie, nil))
    }

    @Test func aPatternPaintedOnTheScreenReachesAnotherBotsContentTile() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.xvfb) else {
            print("ScreenShareEndToEndTests skipped: \(Self.xvfb) is missing (apt-get install xvfb, or make deps)")
            return
        }
        let display = try VirtualDisplay(width: 640, height: 360)
        defer { display.stop() }
        try await display.waitUntilReady()
        let pattern = try VideoTestPattern(width: 640, height: 360, color: .green)
        try Self.paint(pattern.image(frame: 1234), on: display.name)

        // The source itself reads the painted counter and colour, before any coding.
        let direct = try ScreenVideoSource(backend: .x11(display: display.name), fps: 10)
        let grabbed = GrabbedPictures()
        direct.addVideoSink(sink: grabbed)
        direct.start()
        let deadline = ContinuousClock.now + .seconds(5)
        while grabbed.last == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        direct.stop()
        let picture = try #require(grabbed.last, "the screen source delivered no picture")
        let reading = VideoPatternReading(picture)
        #expect(picture.width == 640 && picture.height == 360)
        #expect(reading.counter == 1234, "read \(String(describing: reading.counter)), mean Y \(reading.meanY) U \(reading.meanU) V \(reading.meanV), top-left pixel \(picture.pixel(x: 2, y: 2))")
        #expect(reading.nearestColor() == .green)

        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let alice = try await ContentShareEndToEndTests.Bot.join(harness, meeting, name: "alice")
        let bob = try await ContentShareEndToEndTests.Bot.join(harness, meeting, name: "bob")
        let screen = try ScreenVideoSource(backend: .x11(display: display.name), fps: 5)
        let failures = CaptureFailures()
        screen.addCaptureSourceObserver(observer: failures)
        alice.session.audioVideo.startContentShare(source: ContentShareSource(videoSource: screen))
        screen.start()
        defer { screen.stop() }
        try await alice.share.wait("alice's screen share started") { $0.starts == 1 }

        let contentId = alice.attendeeId + "#content"
        try await bob.tiles.wait("the painted counter on bob's content tile", timeout: .seconds(15)) { tiles in
            tiles.values.contains { $0.attendeeId == contentId && $0.counters.contains(1234) }
        }
        let tile = try #require(bob.tiles.tiles(of: contentId).first)
        #expect(tile.isContent)
        #expect(tile.colors.allSatisfy { $0 == "green" })
        let last = try #require(tile.last)
        #expect(last.width == 640 && last.height == 360)

        // The screen is captured live: a new counter painted arrives too.
        try Self.paint(pattern.image(frame: 4321), on: display.name)
        try await bob.tiles.wait("the repainted counter") { tiles in
            tiles.values.contains { $0.attendeeId == contentId && $0.counters.last == 4321 }
        }
        #expect(failures.count == 0)

        alice.session.audioVideo.stopContentShare()
        try await alice.share.wait("alice's share stopped") { $0.stops == [.ok] }
        try await bob.tiles.wait("the content tile removed") { tiles in
            tiles.values.filter { $0.attendeeId == contentId }.allSatisfy(\.removed)
        }
        for bot in [alice, bob] { try await bot.leave() }
    }
}

/// Keeps the last picture a source delivered.
final class GrabbedPictures: VideoSink, @unchecked Sendable {
    private let lock = NSLock()
    private var picture: I420Image?
    var last: I420Image? { lock.withLock { picture } }
    func onVideoFrameReceived(frame: VideoFrame) {
        guard let image = (frame.buffer as? VideoFrameI420Buffer)?.image else { return }
        lock.withLock { picture = image }
    }
}

/// Counts a capture source's failures.
final class CaptureFailures: CaptureSourceObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var failures = 0
    var count: Int { lock.withLock { failures } }
    func captureDidStart() {}
    func captureDidStop() {}
    func captureDidFail(error: CaptureSourceError) { lock.withLock { failures += 1 } }
}
