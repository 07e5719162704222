import CCarillonV4L2
#if canImport(Glibc)
import Glibc
#endif

/// A V4L2 video node opened as a file: the real ``V4L2Device``, its calls made through the `CCarillonV4L2` shim.
///
/// Opened read-write, non-blocking (so `DQBUF` answers `EAGAIN` instead of waiting) and close-on-exec. Buffers are
/// mapped shared, read and write, and unmapped by ``V4L2Request/releaseBuffers`` or ``close()``.
///
/// Threading: one owner, one thread at a time (see ``V4L2Device``).
final class V4L2FileDevice: V4L2Device {
    /// The node's path, for example `/dev/video0`.
    let path: String
    private var descriptor: Int32
    private var mappings: [Int: UnsafeMutableRawBufferPointer] = [:]

    /// Opens the node at `path`; throws its `errno` (`ENOENT`, `EACCES`, `EBUSY`, ...).
    init(path: String) throws(V4L2Errno) {
        self.path = path
        descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw V4L2Errno(errno) }
    }

    deinit { close() }

    func queryCapabilities() throws(V4L2Errno) -> V4L2Capabilities {
        var driver = [CChar](repeating: 0, count: 33), card = driver, bus = driver
        var flags: UInt32 = 0
        try check(carillon_v4l2_query_capability(descriptor, &driver, &card, &bus, &flags))
        func text(_ bytes: [CChar]) -> String {
            String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return V4L2Capabilities(driver: text(driver), card: text(card), busInfo: text(bus), capabilities: flags)
    }

    func pixelFormats() throws(V4L2Errno) -> [V4L2PixelFormat] {
        var formats: [V4L2PixelFormat] = []
        var code: UInt32 = 0
        while formats.count < 64 {
            let status = carillon_v4l2_enum_format(descriptor, UInt32(formats.count), &code)
            if status == EINVAL { break }
            try check(status)
            formats.append(V4L2PixelFormat(code: code))
        }
        return formats
    }

    func frameSizes(of format: V4L2PixelFormat) throws(V4L2Errno) -> [V4L2FrameSize] {
        var sizes: [V4L2FrameSize] = []
        var (minW, maxW, stepW, minH, maxH, stepH): (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0, 0)
        while sizes.count < 256 {
            let status = carillon_v4l2_enum_frame_size(descriptor, format.code, UInt32(sizes.count),
                                                       &minW, &maxW, &stepW, &minH, &maxH, &stepH)
            if status == EINVAL { break }
            try check(status)
            if minW == maxW, minH == maxH, stepW == 0, stepH == 0 {
                sizes.append(.discrete(width: Int(minW), height: Int(minH)))
            } else {
                sizes.append(.stepwise(minWidth: Int(minW), maxWidth: Int(maxW), stepWidth: Int(stepW),
                                       minHeight: Int(minH), maxHeight: Int(maxH), stepHeight: Int(stepH)))
                break // A range is the only entry.
            }
        }
        return sizes
    }

    func maximumFrameRate(of format: V4L2PixelFormat, width: Int, height: Int) -> Int? {
        var best: Int?
        var numerator: UInt32 = 0, denominator: UInt32 = 0
        for index in 0..<UInt32(64) {
            guard carillon_v4l2_enum_frame_interval(descriptor, format.code, UInt32(width), UInt32(height), index,
                                                    &numerator, &denominator) == 0 else { break }
            if let rate = Self.rate(numerator: numerator, denominator: denominator) { best = max(best ?? 0, rate) }
        }
        return best
    }

    func perform(_ request: V4L2Request) -> V4L2Reply {
        guard descriptor >= 0 else { return .failed(V4L2Errno(EBADF)) }
        switch request {
        case .setFormat(let wanted):
            var code = wanted.pixelFormat.code, width = UInt32(wanted.width), height = UInt32(wanted.height)
            var bytesPerLine: UInt32 = 0, sizeImage: UInt32 = 0
            let status = carillon_v4l2_set_format(descriptor, &code, &width, &height, &bytesPerLine, &sizeImage)
            guard status == 0 else { return .failed(V4L2Errno(status)) }
            return .formatSet(V4L2FrameFormat(pixelFormat: V4L2PixelFormat(code: code), width: Int(width),
                                              height: Int(height), bytesPerLine: Int(bytesPerLine),
                                              sizeImage: Int(sizeImage)))
        case .setFrameRate(let fps):
            var numerator: UInt32 = 0, denominator: UInt32 = 0
            let status = carillon_v4l2_set_frame_rate(descriptor, UInt32(fps), &numerator, &denominator)
            guard status == 0 else { return .failed(V4L2Errno(status)) }
            return .frameRateSet(Self.rate(numerator: numerator, denominator: denominator))
        case .requestBuffers(let count):
            var granted = UInt32(count)
            let status = carillon_v4l2_request_buffers(descriptor, &granted)
            return status == 0 ? .buffersGranted(Int(granted)) : .failed(V4L2Errno(status))
        case .mapBuffer(let index):
            var offset: UInt32 = 0, length: UInt32 = 0
            let status = carillon_v4l2_query_buffer(descriptor, UInt32(index), &offset, &length)
            guard status == 0 else { return .failed(V4L2Errno(status)) }
            let address = mmap(nil, Int(length), PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, off_t(offset))
            // MAP_FAILED is (void *)-1, which Swift does not import.
            guard let address, address != UnsafeMutableRawPointer(bitPattern: -1) else { return .failed(V4L2Errno(errno)) }
            mappings[index] = UnsafeMutableRawBufferPointer(start: address, count: Int(length))
            return .bufferMapped(index: index, length: Int(length))
        case .queueBuffer(let index):
            return reply(carillon_v4l2_queue_buffer(descriptor, UInt32(index)))
        case .streamOn:
            return reply(carillon_v4l2_stream(descriptor, 1))
        case .dequeueBuffer:
            var index: UInt32 = 0, bytesUsed: UInt32 = 0
            var corrupt: Int32 = 0
            let status = carillon_v4l2_dequeue_buffer(descriptor, &index, &bytesUsed, &corrupt)
            guard status == 0 else { return .failed(V4L2Errno(status)) }
            return .bufferDequeued(index: Int(index), bytesUsed: Int(bytesUsed), corrupt: corrupt != 0)
        case .streamOff:
            return reply(carillon_v4l2_stream(descriptor, 0))
        case .releaseBuffers:
            unmapAll()
            var none: UInt32 = 0
            return reply(carillon_v4l2_request_buffers(descriptor, &none))
        }
    }

    func mappedBuffer(index: Int) -> UnsafeRawBufferPointer {
        mappings[index].map { UnsafeRawBufferPointer($0) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
    }

    func close() {
        unmapAll()
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    // MARK: Private

    /// Frames a second of an interval of `numerator`/`denominator` seconds, rounded (30000/1001 is 30).
    static func rate(numerator: UInt32, denominator: UInt32) -> Int? {
        guard numerator > 0, denominator > 0 else { return nil }
        return max(1, Int((Double(denominator) / Double(numerator)).rounded()))
    }

    private func unmapAll() {
        for mapping in mappings.values { _ = munmap(mapping.baseAddress, mapping.count) }
        mappings.removeAll()
    }

    private func check(_ status: Int32) throws(V4L2Errno) {
        guard status == 0 else { throw V4L2Errno(status) }
    }

    private func reply(_ status: Int32) -> V4L2Reply { status == 0 ? .done : .failed(V4L2Errno(status)) }
}
