import CarillonCodecs

/// The shell of a V4L2 camera's capture: runs a ``V4L2CaptureCore`` against a ``V4L2Device`` and makes the
/// ``PictureProducer`` a ``CaptureLoop`` paces.
///
/// Opening sets the format and starts streaming (throwing ``CaptureSourceError/configurationFailure`` when the device
/// refuses). At each tick of the capture loop ``nextPicture(index:)`` dequeues without blocking: the newest picture
/// since the last tick, converted to I420 (scaled to the wanted size if the driver adjusted it), or nil when none
/// arrived. No thread of its own and no readiness polling: the non-blocking `DQBUF` on the loop is the read. A device
/// that fails while streaming (unplugged: `ENODEV`) is torn down and the tick throws
/// ``CaptureSourceError/configurationFailure``, which stops the capture; a picture that cannot be converted throws
/// ``CaptureSourceError/invalidFrame`` and capture goes on. ``close()`` stops streaming, unmaps and closes the device.
///
/// Cost per frame: the ioctls, one conversion (and a scaling when sizes differ); the buffers are the driver's mapped
/// memory, read in place. Threading: made and used on the capture loop only.
final class V4L2Pictures: PictureProducer {
    private let device: any V4L2Device
    private let logger: any Logger
    private let label: String
    private let width: Int
    private let height: Int
    private var core: V4L2CaptureCore
    private var format: V4L2FrameFormat
    private var closed = false

    /// Opens streaming on `device` (named `label` in logs) in `pixelFormat` at `width` x `height` and
    /// `framesPerSecond`. Takes ownership of the device: it is closed when opening fails, and by ``close()``.
    init(device: any V4L2Device, label: String, pixelFormat: V4L2PixelFormat, width: Int, height: Int,
         framesPerSecond: Int, logger: any Logger) throws(CaptureSourceError) {
        self.device = device
        self.logger = logger
        self.label = label
        self.width = width
        self.height = height
        format = V4L2FrameFormat(pixelFormat: pixelFormat, width: width, height: height)
        core = V4L2CaptureCore(wanted: format, framesPerSecond: framesPerSecond)
        core.start()
        for event in drive() {
            switch event {
            case .started(let set, let rate):
                format = set
                logger.info(msg: "V4L2 \(label): streaming \(set) (\(set.bytesPerLine) bytes a row) at \(rate.map { "\($0)" } ?? "the driver's") fps")
                if set.width != width || set.height != height {
                    logger.info(msg: "V4L2 \(label): the driver set \(set.width)x\(set.height); pictures are scaled to \(width)x\(height)")
                }
            case .failed(let reason):
                logger.error(msg: "V4L2 \(label): cannot start capture: \(reason)")
            case .frame, .noFrame, .stopped:
                break
            }
        }
        guard core.phase == .streaming else {
            closed = true
            device.close()
            throw .configurationFailure
        }
    }

    deinit { close() }

    /// The newest picture, or throws ``CaptureSourceError/invalidFrame`` when none arrived since the last call.
    func picture(index: Int) throws(CaptureSourceError) -> I420Image {
        guard let picture = try nextPicture(index: index) else { throw .invalidFrame }
        return picture
    }

    /// See the type: the newest picture since the last call, or nil.
    func nextPicture(index: Int) throws(CaptureSourceError) -> I420Image? {
        guard !closed else { throw .configurationFailure }
        core.poll()
        var picture: I420Image?
        var invalid = false
        var failure: String?
        var events = drive()
        while !events.isEmpty {
            for event in events {
                switch event {
                case .frame(let index, let bytesUsed):
                    let buffer = device.mappedBuffer(index: index)
                    do {
                        picture = try convert(UnsafeRawBufferPointer(rebasing: buffer.prefix(bytesUsed)))
                    } catch {
                        invalid = true
                        logger.error(msg: "V4L2 \(label): a \(format) picture of \(bytesUsed) bytes cannot be converted: \(error)")
                    }
                    core.release(index: index)
                case .failed(let reason):
                    failure = reason
                case .started, .noFrame, .stopped:
                    break
                }
            }
            events = drive()
        }
        if let failure {
            logger.error(msg: "V4L2 \(label): capture stopped: \(failure)")
            closed = true
            device.close()
            throw .configurationFailure
        }
        if invalid { throw .invalidFrame }
        return picture
    }

    /// Stops streaming, releases the buffers and closes the device. Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        core.stop()
        _ = drive()
        device.close()
        logger.info(msg: "V4L2 \(label): stopped (\(core.droppedFrames) pictures replaced by newer ones before a tick, \(core.corruptFrames) corrupt)")
    }

    // MARK: Private

    /// Makes the calls the core asks for until it waits for nothing, and returns what happened.
    private func drive() -> [V4L2CaptureCore.Event] {
        while let request = core.nextRequest() { core.handle(device.perform(request)) }
        return core.takeEvents()
    }

    private func convert(_ bytes: UnsafeRawBufferPointer) throws(I420ImageError) -> I420Image {
        let picture = try format.picture(from: bytes)
        guard picture.width != width || picture.height != height else { return picture }
        return try picture.scaled(width: width, height: height)
    }
}
