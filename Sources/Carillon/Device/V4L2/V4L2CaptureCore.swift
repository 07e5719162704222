/// The V4L2 capture sequence and buffer state machine, without I/O: fed the device's replies, it says which call to
/// make next (``V4L2Request``) and what happened (``Event``). The shell (``V4L2Pictures``) makes the calls on a
/// ``V4L2Device``; tests drive it with exact replies.
///
/// The sequence: `S_FMT` (the driver may adjust the size, or change the pixel format: accepted when the camera can
/// convert it), `S_PARM` (a driver refusing it is tolerated), `REQBUFS`, `QUERYBUF` + `mmap` of each buffer, `QBUF` of
/// each, `STREAMON`. Then each ``poll()`` dequeues every filled buffer without blocking until `EAGAIN`, requeues all
/// but the newest (counted in ``droppedFrames``) and hands the newest out as ``Event/frame(index:bytesUsed:)``;
/// ``release(index:)`` requeues it once converted. A buffer the driver flags as corrupt, or empty, is requeued at once
/// (``corruptFrames``). Any other failure (an unplugged device answers `ENODEV`, or `EIO` from a queue the driver
/// marked as failed) is ``Event/failed(reason:)``, after
/// which the core tears down (`STREAMOFF`, unmap and `REQBUFS 0`, whose own failures are ignored) and stops. ``stop()``
/// tears down the same way and ends with ``Event/stopped``. A camera that streams but delivers no picture for
/// ``silenceLimitSeconds`` (counted in polls: the capture loop polls once per frame at the wanted rate, so no clock is
/// read) fails the same way: a camera held by another program, or one whose driver stalled, would otherwise show a
/// black tile with nothing said.
///
/// One call is outstanding at a time: ``nextRequest()`` returns nil until ``handle(_:)`` got the reply. Cost: a few
/// small arrays; no allocation per frame beyond the event list. A value confined to its owner (the capture loop).
struct V4L2CaptureCore {
    /// Where the sequence is.
    enum Phase: Equatable, Sendable {
        /// Not started.
        case idle
        /// From `S_FMT` to `STREAMON`.
        case starting
        /// Streaming: ``poll()`` dequeues.
        case streaming
        /// Tearing down after ``stop()`` or a failure.
        case stopping
        /// Stopped after ``stop()``.
        case stopped
        /// Stopped after a failure.
        case failed
    }

    /// Who holds a buffer.
    enum BufferState: Equatable, Sendable {
        /// Granted by `REQBUFS`, not mapped yet.
        case unmapped
        /// Mapped and held by the core, not queued.
        case idle
        /// Queued: the driver fills it.
        case queued
        /// Dequeued with a picture of `bytesUsed` bytes, the newest so far in this poll.
        case held(bytesUsed: Int)
        /// Handed out as a frame, until ``release(index:)``.
        case delivered
    }

    /// What happened, for the shell.
    enum Event: Equatable, Sendable {
        /// Streaming started in the driver's `format`, at its `framesPerSecond` when it said.
        case started(format: V4L2FrameFormat, framesPerSecond: Int?)
        /// Buffer `index` holds the newest picture, `bytesUsed` bytes: convert it, then ``release(index:)``.
        case frame(index: Int, bytesUsed: Int)
        /// The poll found no new picture.
        case noFrame
        /// Capture cannot go on (the device is gone, refused the format, ...); the teardown follows.
        case failed(reason: String)
        /// ``stop()`` finished.
        case stopped
    }

    /// The wanted format (pixel format and size).
    let wanted: V4L2FrameFormat
    /// The wanted frame rate.
    let framesPerSecond: Int
    /// How many buffers to ask for.
    let bufferCount: Int

    /// Where the sequence is.
    private(set) var phase = Phase.idle
    /// The buffers, by index.
    private(set) var buffers: [BufferState] = []
    /// The format the driver set (nil before `S_FMT` succeeded).
    private(set) var format: V4L2FrameFormat?
    /// Pictures dequeued but replaced by a newer one in the same poll.
    private(set) var droppedFrames = 0
    /// Buffers the driver flagged as corrupt, or returned empty.
    private(set) var corruptFrames = 0

    private var driverFrameRate: Int?
    private var lengths: [Int] = []
    private var pending: [V4L2Request] = []
    private var pendingIndex = 0
    private var outstanding: V4L2Request?
    private var events: [Event] = []
    private var allocated = false
    private var streamOn = false
    private var endPhase = Phase.stopped

    /// How long a streaming camera may deliver nothing before capture fails, in seconds of polls at the wanted rate.
    static let silenceLimitSeconds = 5
    /// Polls in a row that found no picture, since streaming started or since the last picture.
    private(set) var emptyPolls = 0

    /// A core that will capture `wanted` at `framesPerSecond` through `bufferCount` buffers (at least 2).
    init(wanted: V4L2FrameFormat, framesPerSecond: Int, bufferCount: Int = 4) {
        self.wanted = wanted
        self.framesPerSecond = max(1, framesPerSecond)
        self.bufferCount = max(2, bufferCount)
    }

    // MARK: Inputs

    /// Starts the sequence with `S_FMT`. Does nothing unless idle.
    mutating func start() {
        guard phase == .idle else { return }
        phase = .starting
        enqueue(.setFormat(V4L2FrameFormat(pixelFormat: wanted.pixelFormat, width: wanted.width, height: wanted.height)))
    }

    /// Asks for the newest picture: `DQBUF` until `EAGAIN`. Does nothing unless streaming and idle between calls.
    mutating func poll() {
        guard phase == .streaming, outstanding == nil, pendingIndex == pending.count else { return }
        enqueue(.dequeueBuffer)
    }

    /// The shell is done with the frame in buffer `index`: it is queued again (while streaming).
    mutating func release(index: Int) {
        guard buffers.indices.contains(index), buffers[index] == .delivered else { return }
        buffers[index] = .idle
        if phase == .streaming { enqueue(.queueBuffer(index: index)) }
    }

    /// Stops: `STREAMOFF` and release of the buffers, then ``Event/stopped``. Does nothing when idle, stopped or
    /// failed, or already stopping.
    mutating func stop() {
        switch phase {
        case .idle, .stopped, .failed, .stopping: return
        case .starting, .streaming:
            tearDown(then: .stopped)
        }
    }

    /// The next call to make, or nil (a reply is awaited, or nothing is to be done). Each request returned must be
    /// answered with ``handle(_:)`` before the next one is asked for.
    mutating func nextRequest() -> V4L2Request? {
        guard outstanding == nil, pendingIndex < pending.count else { return nil }
        let request = pending[pendingIndex]
        pendingIndex += 1
        if pendingIndex == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingIndex = 0
        }
        outstanding = request
        return request
    }

    /// The device's answer to the request ``nextRequest()`` returned last.
    mutating func handle(_ reply: V4L2Reply) {
        guard let request = outstanding else { return }
        outstanding = nil
        if phase == .stopping {
            handleTearDown(request, reply)
            return
        }
        switch (request, reply) {
        case (.setFormat, .formatSet(let set)):
            guard set.pixelFormat.isConvertible else {
                return fail("the driver set pixel format \(set.pixelFormat), which cannot be converted")
            }
            guard set.width > 0, set.height > 0 else { return fail("the driver set an empty size \(set)") }
            format = set
            enqueue(.setFrameRate(framesPerSecond))
        case (.setFrameRate, .frameRateSet(let rate)):
            driverFrameRate = rate
            enqueue(.requestBuffers(count: bufferCount))
        case (.setFrameRate, .failed(let error)) where error != .noDevice && error != .ioError:
            // Some drivers have no S_PARM: they capture at their own rate, which the capture loop paces anyway.
            enqueue(.requestBuffers(count: bufferCount))
        case (.requestBuffers, .buffersGranted(let count)):
            guard count > 0 else { return fail("the driver granted no buffers") }
            allocated = true
            buffers = Array(repeating: .unmapped, count: count)
            lengths = Array(repeating: 0, count: count)
            for index in 0..<count { enqueue(.mapBuffer(index: index)) }
            for index in 0..<count { enqueue(.queueBuffer(index: index)) }
            enqueue(.streamOn)
        case (.mapBuffer(let index), .bufferMapped(let mapped, let length)) where mapped == index && length > 0:
            buffers[index] = .idle
            lengths[index] = length
        case (.queueBuffer(let index), .done):
            buffers[index] = .queued
        case (.streamOn, .done):
            streamOn = true
            phase = .streaming
            events.append(.started(format: format ?? wanted, framesPerSecond: driverFrameRate))
        case (.dequeueBuffer, .bufferDequeued(let index, let bytesUsed, let corrupt)):
            dequeued(index: index, bytesUsed: bytesUsed, corrupt: corrupt)
        case (.dequeueBuffer, .failed(.wouldBlock)):
            if let index = buffers.firstIndex(where: { if case .held = $0 { true } else { false } }),
               case .held(let bytesUsed) = buffers[index] {
                buffers[index] = .delivered
                emptyPolls = 0
                events.append(.frame(index: index, bytesUsed: bytesUsed))
            } else {
                emptyPolls += 1
                guard emptyPolls < Self.silenceLimitSeconds * framesPerSecond else {
                    return fail("no picture for \(Self.silenceLimitSeconds) s (\(emptyPolls) polls): another program may hold the camera, or its driver stalled")
                }
                events.append(.noFrame)
            }
        case (_, .failed(let error)):
            fail("\(request) failed: \(error)")
        default:
            fail("unexpected answer \(reply) to \(request)")
        }
    }

    /// What happened since the last call, oldest first.
    mutating func takeEvents() -> [Event] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    // MARK: Private

    private mutating func dequeued(index: Int, bytesUsed: Int, corrupt: Bool) {
        guard buffers.indices.contains(index), buffers[index] == .queued else {
            return fail("the driver returned buffer \(index), which was not queued")
        }
        guard !corrupt, bytesUsed > 0, bytesUsed <= lengths[index] else {
            corruptFrames += 1
            buffers[index] = .idle
            enqueue(.queueBuffer(index: index))
            enqueue(.dequeueBuffer)
            return
        }
        if let older = buffers.firstIndex(where: { if case .held = $0 { true } else { false } }) {
            droppedFrames += 1
            buffers[older] = .idle
            enqueue(.queueBuffer(index: older))
        }
        buffers[index] = .held(bytesUsed: bytesUsed)
        enqueue(.dequeueBuffer)
    }

    private mutating func fail(_ reason: String) {
        events.append(.failed(reason: reason))
        tearDown(then: .failed)
    }

    private mutating func tearDown(then end: Phase) {
        pending.removeAll()
        pendingIndex = 0
        endPhase = end
        phase = .stopping
        if streamOn { enqueue(.streamOff) }
        if allocated { enqueue(.releaseBuffers) }
        // A request still outstanding (stop() between a request and its reply) finishes the teardown when answered.
        if outstanding == nil, pending.isEmpty { finishTearDown() }
    }

    private mutating func handleTearDown(_ request: V4L2Request, _ reply: V4L2Reply) {
        switch (request, reply) {
        case (.streamOff, _):
            // The driver takes back every queued buffer; failures (a gone device) change nothing here.
            streamOn = false
            for index in buffers.indices where buffers[index] != .unmapped { buffers[index] = .idle }
        case (.releaseBuffers, _):
            allocated = false
            buffers = []
            lengths = []
        case (.requestBuffers, .buffersGranted(let count)) where count > 0:
            // Granted while stopping: give them back.
            allocated = true
            enqueue(.releaseBuffers)
        case (.mapBuffer(let index), .bufferMapped) where buffers.indices.contains(index):
            buffers[index] = .idle
        default:
            break
        }
        if outstanding == nil, pendingIndex == pending.count { finishTearDown() }
    }

    private mutating func finishTearDown() {
        phase = endPhase
        if endPhase == .stopped { events.append(.stopped) }
    }

    private mutating func enqueue(_ request: V4L2Request) { pending.append(request) }
}
