import CarillonCodecs
import CarillonRTC
import Dispatch
import Foundation
import NIOCore
import NIOPosix

/// The frame pacing of every capture source Carillon provides: one timer on an event loop asks a
/// ``PictureProducer`` for a picture every 1/fps s, wraps it in a ``VideoFrame`` (a ``VideoFrameI420Buffer``,
/// timestamped with its time on the grid) and hands it to every sink; it tells observers of starts, stops and
/// failures. A tick without a picture (``PictureProducer/nextPicture(index:)`` returns nil: a camera's picture has
/// not arrived) sends nothing; a producer failing with anything but ``CaptureSourceError/invalidFrame`` stops the
/// capture.
///
/// Pacing is a ``CarillonRTC/MediaFrameClock`` started with the capture, the grid the audio frames run on: frame n is
/// due at start + n/fps, so the rate does not drift; the first frame goes out at once. Ticks the loop gets to late
/// (a busy machine, a slide being drawn on the same loop) are caught up frame by frame up to the clock's bound, and a
/// longer stall is skipped. Each frame is stamped with its grid time, not with when the loop got to it: stamped with
/// `now`, a late frame and the one caught up after it would look 60 fps apart to the encoder's frame-rate cap and to
/// a receiver timing playout by RTP time. No wall-clock reads and no sleeps: in tests the loop is an
/// `EmbeddedEventLoop` driven with `advanceTime`.
///
/// Threading: ``start(_:)`` and ``stop()`` may be called from any thread and act on the loop (at once when called
/// there), in call order. Sinks are called on the loop, observers asynchronously on the callback queue, in order.
/// Sinks and observers are kept strongly until removed (a lock guards them).
final class CaptureLoop: @unchecked Sendable {
    /// The loop of the sources made with public initializers: one thread of its own, apart from the sessions' loops,
    /// so that drawing pictures and the app's sinks do not delay audio. Never shut down, like NIO's singletons.
    static let sharedEventLoop: any EventLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()

    let eventLoop: any EventLoop
    private let callbackQueue: DispatchQueue
    private let lock = NSLock()
    // Guarded by `lock`.
    private var sinks: [ObjectIdentifier: any VideoSink] = [:]
    private var observers: [ObjectIdentifier: any CaptureSourceObserver] = [:]
    private var running = false
    // Confined to `eventLoop`.
    private var producer: (any PictureProducer)?
    private var clock = MediaFrameClock(period: .seconds(1))
    private var frameIndex = 0
    private lazy var timer = DeadlineTimer(eventLoop: eventLoop) { [weak self] in self?.tick() }

    /// A capture pacing on `eventLoop` and calling observers on `callbackQueue`.
    init(eventLoop: any EventLoop, callbackQueue: DispatchQueue) {
        self.eventLoop = eventLoop
        self.callbackQueue = callbackQueue
    }

    /// Whether capture is running or about to: true from ``start(_:)`` until ``stop()`` or a failed start.
    var isRunning: Bool { lock.withLock { running } }

    /// Starts capturing with what `open` returns, called on the loop; a capture already running is replaced (a
    /// restart: observers hear `captureDidStart` again). When `open` throws, observers hear `captureDidFail` and
    /// capture is stopped.
    func start(_ open: @escaping @Sendable () throws(CaptureSourceError) -> CaptureSetup) {
        lock.withLock { running = true }
        onLoop { $0.begin(open) }
    }

    /// Stops capturing; observers hear `captureDidStop` if it was running. Does nothing when it is not.
    func stop() {
        let wasRunning = lock.withLock {
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        onLoop { $0.end() }
    }

    func addSink(_ sink: any VideoSink) { lock.withLock { sinks[ObjectIdentifier(sink)] = sink } }
    func removeSink(_ sink: any VideoSink) { _ = lock.withLock { sinks.removeValue(forKey: ObjectIdentifier(sink)) } }
    func addObserver(_ observer: any CaptureSourceObserver) { lock.withLock { observers[ObjectIdentifier(observer)] = observer } }
    func removeObserver(_ observer: any CaptureSourceObserver) {
        _ = lock.withLock { observers.removeValue(forKey: ObjectIdentifier(observer)) }
    }

    // MARK: On the loop

    private func begin(_ open: () throws(CaptureSourceError) -> CaptureSetup) {
        timer.cancel()
        // A restart on the same device must find it free.
        producer?.close()
        producer = nil
        let setup: CaptureSetup
        do {
            setup = try open()
        } catch {
            producer = nil
            lock.withLock { running = false }
            notify { $0.captureDidFail(error: error) }
            return
        }
        producer = setup.producer
        clock = MediaFrameClock(period: .nanoseconds(1_000_000_000 / Int64(max(1, setup.framesPerSecond))))
        clock.start(at: eventLoop.now)
        lock.withLock { running = true }
        notify { $0.captureDidStart() }
        tick()
    }

    private func end() {
        guard let producer else { return }
        timer.cancel()
        producer.close()
        self.producer = nil
        notify { $0.captureDidStop() }
    }

    private func tick() {
        guard producer != nil else { return }
        if clock.takeFrame(now: eventLoop.now) != nil, let next = clock.nextFrame {
            emit(at: next - clock.period)
        }
        // A sink may have stopped or restarted the capture from inside `emit`.
        guard producer != nil, timer.deadline == nil else { return }
        timer.follow(clock.nextFrame)
    }

    /// Hands the next picture to the sinks, stamped `capturedAt`.
    private func emit(at capturedAt: NIODeadline) {
        guard let producer else { return }
        let picture: I420Image
        do {
            guard let next = try producer.nextPicture(index: frameIndex) else { return }
            picture = next
        } catch .invalidFrame {
            frameIndex += 1
            notify { $0.captureDidFail(error: .invalidFrame) }
            return
        } catch {
            // The device is gone or failed: capture stops (without captureDidStop, as for a failed start).
            timer.cancel()
            producer.close()
            self.producer = nil
            lock.withLock { running = false }
            notify { $0.captureDidFail(error: error) }
            return
        }
        frameIndex += 1
        let frame = VideoFrame(timestampNs: Int64(capturedAt.uptimeNanoseconds), rotation: .rotation0,
                               buffer: VideoFrameI420Buffer(image: picture))
        for sink in lock.withLock({ Array(sinks.values) }) { sink.onVideoFrameReceived(frame: frame) }
    }

    private func notify(_ call: @escaping (any CaptureSourceObserver) -> Void) {
        let snapshot = CallbackBox(value: lock.withLock { Array(observers.values) })
        let call = CallbackBox(value: call)
        callbackQueue.async { [self] in
            for observer in snapshot.value where lock.withLock({ observers[ObjectIdentifier(observer)] }) === observer {
                call.value(observer)
            }
        }
    }

    private func onLoop(_ body: @escaping @Sendable (CaptureLoop) -> Void) {
        if eventLoop.inEventLoop {
            body(self)
        } else {
            eventLoop.execute { body(self) }
        }
    }
}
