import Foundation
#if canImport(Glibc)
import Glibc
#endif

@testable import Carillon

/// A V4L2 camera made of software that follows the V4L2 rules the SDK relies on (a queue of driver-owned buffers
/// filled in QBUF order, DQBUF answering EAGAIN when none is filled, EBUSY for S_FMT while buffers exist, EINVAL for a
/// buffer queued twice, ENODEV for everything once unplugged), with scripted replies where a driver has a say: the
/// size S_FMT sets, whether S_PARM exists, how many buffers REQBUFS grants. The test makes pictures "arrive" with
/// ``arrive(_:corrupt:)``. Every request is logged in ``log``. It is the hardware: each open of its node is a
/// ``ScriptedV4L2Handle``, and as with real file descriptors the buffers belong to the handle that requested them
/// (another handle's S_FMT or REQBUFS gets EBUSY, and closing it leaves the stream alone).
///
/// Confined to the test's thread (the embedded event loop runs there).
final class ScriptedV4L2Device {
    /// What a format offers: one pixel format at sizes, each with its highest rate.
    struct Offer {
        let pixelFormat: V4L2PixelFormat
        let sizes: [V4L2FrameSize]
        let frameRate: Int
    }

    var capabilities = V4L2Capabilities(driver: "scripted", card: "Scripted Camera", busInfo: "test:0",
                                        capabilities: V4L2Capabilities.videoCapture | V4L2Capabilities.streaming)
    var offers: [Offer]
    /// The driver's S_FMT: the format it sets for the one asked (by default the asked size in the asked pixel format
    /// if offered, else the first pixel format's first size).
    var setFormat: ((V4L2FrameFormat) -> V4L2FrameFormat)?
    /// Whether S_PARM exists (ENOTTY when not).
    var supportsFrameRate = true
    /// The most buffers REQBUFS grants.
    var maximumBuffers = 8
    /// Calls made, oldest first.
    var log: [V4L2Request] = []
    /// Handles open now.
    private(set) var openHandles: Set<Int> = []
    private var nextHandle = 0
    private var owner: Int?
    /// Whether it streams.
    private(set) var streaming = false
    /// The format set last.
    private(set) var format: V4L2FrameFormat?
    /// Pictures that found no queued buffer.
    private(set) var lostPictures = 0

    private var unplugged = false
    private var storage: [UnsafeMutableRawBufferPointer] = []
    private var mapped: Set<Int> = []
    private var queued: [Int] = []
    private var filled: [(index: Int, bytesUsed: Int, corrupt: Bool)] = []

    init(offers: [Offer]) { self.offers = offers }

    deinit { freeBuffers() }

    /// Buffers the driver holds (queued and not yet filled).
    var queuedBuffers: [Int] { queued }
    /// How many buffers exist.
    var bufferCount: Int { storage.count }

    /// The camera took a picture: it goes into the first queued buffer (false when none is queued or not streaming).
    @discardableResult
    func arrive(_ bytes: [UInt8], corrupt: Bool = false) -> Bool {
        guard streaming, !unplugged, !queued.isEmpty else {
            lostPictures += 1
            return false
        }
        let index = queued.removeFirst()
        let count = min(bytes.count, storage[index].count)
        bytes.withUnsafeBytes { storage[index].baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: count) }
        filled.append((index, count, corrupt))
        return true
    }

    /// The device disappears: every call fails with ENODEV from now on.
    func unplug() { unplugged = true }

    // MARK: Enumeration

    func queryCapabilities() throws(V4L2Errno) -> V4L2Capabilities {
        guard !unplugged else { throw .noDevice }
        return capabilities
    }

    func pixelFormats() throws(V4L2Errno) -> [V4L2PixelFormat] {
        guard !unplugged else { throw .noDevice }
        return offers.map(\.pixelFormat)
    }

    func frameSizes(of format: V4L2PixelFormat) throws(V4L2Errno) -> [V4L2FrameSize] {
        guard !unplugged else { throw .noDevice }
        return offers.first { $0.pixelFormat == format }?.sizes ?? []
    }

    func maximumFrameRate(of format: V4L2PixelFormat, width: Int, height: Int) -> Int? {
        offers.first { $0.pixelFormat == format }?.frameRate
    }

    func perform(_ request: V4L2Request, handle: Int) -> V4L2Reply {
        log.append(request)
        guard openHandles.contains(handle) else { return .failed(V4L2Errno(EBADF)) }
        if unplugged {
            if case .releaseBuffers = request, owner == handle { freeBuffers() }
            return .failed(.noDevice)
        }
        if let owner, owner != handle { return .failed(.busy) }
        switch request {
        case .setFormat(let wanted):
            guard storage.isEmpty else { return .failed(.busy) }
            var set = setFormat?(wanted) ?? defaultFormat(for: wanted)
            if set.bytesPerLine == 0 { set.bytesPerLine = Self.bytesPerLine(set) }
            set.sizeImage = Self.sizeImage(set)
            format = set
            return .formatSet(set)
        case .setFrameRate(let fps):
            guard supportsFrameRate else { return .failed(.notSupported) }
            let offered = offers.first { $0.pixelFormat == format?.pixelFormat }?.frameRate ?? fps
            return .frameRateSet(min(fps, offered))
        case .requestBuffers(let count):
            guard !streaming else { return .failed(.busy) }
            freeBuffers()
            guard count > 0, let format else { return .buffersGranted(0) }
            let granted = min(count, maximumBuffers)
            owner = handle
            storage = (0..<granted).map { _ in
                UnsafeMutableRawBufferPointer.allocate(byteCount: format.sizeImage, alignment: 16)
            }
            return .buffersGranted(granted)
        case .mapBuffer(let index):
            guard storage.indices.contains(index) else { return .failed(.invalidArgument) }
            mapped.insert(index)
            return .bufferMapped(index: index, length: storage[index].count)
        case .queueBuffer(let index):
            guard mapped.contains(index), !queued.contains(index), !filled.contains(where: { $0.index == index }) else {
                return .failed(.invalidArgument)
            }
            queued.append(index)
            return .done
        case .streamOn:
            guard !storage.isEmpty else { return .failed(.invalidArgument) }
            streaming = true
            return .done
        case .dequeueBuffer:
            guard streaming else { return .failed(.invalidArgument) }
            guard !filled.isEmpty else { return .failed(.wouldBlock) }
            let next = filled.removeFirst()
            return .bufferDequeued(index: next.index, bytesUsed: next.bytesUsed, corrupt: next.corrupt)
        case .streamOff:
            streaming = false
            queued.removeAll()
            filled.removeAll()
            return .done
        case .releaseBuffers:
            guard !streaming else { return .failed(.busy) }
            freeBuffers()
            return .done
        }
    }

    func mappedBuffer(index: Int, handle: Int) -> UnsafeRawBufferPointer {
        guard owner == handle, mapped.contains(index) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(storage[index])
    }

    /// A new open of the node.
    func open() -> ScriptedV4L2Handle {
        nextHandle += 1
        openHandles.insert(nextHandle)
        return ScriptedV4L2Handle(device: self, id: nextHandle)
    }

    /// Closes `handle`: its buffers and stream go with it.
    func close(handle: Int) {
        guard openHandles.remove(handle) != nil, owner == handle else { return }
        freeBuffers()
        streaming = false
    }

    // MARK: Private

    private func defaultFormat(for wanted: V4L2FrameFormat) -> V4L2FrameFormat {
        if let offer = offers.first(where: { $0.pixelFormat == wanted.pixelFormat }),
           offer.sizes.contains(where: { range in
               range.sizes.contains { size in size.width == wanted.width && size.height == wanted.height }
           }) {
            return wanted
        }
        let first = offers[0]
        let size = first.sizes[0].sizes[0]
        return V4L2FrameFormat(pixelFormat: first.pixelFormat, width: size.width, height: size.height)
    }

    private func freeBuffers() {
        owner = nil
        for buffer in storage { buffer.deallocate() }
        storage = []
        mapped = []
        queued = []
        filled = []
    }

    static func bytesPerLine(_ format: V4L2FrameFormat) -> Int {
        switch format.pixelFormat {
        case .yuyv: 4 * ((format.width + 1) / 2)
        case .nv12: (format.width + 1) & ~1
        default: 0
        }
    }

    static func sizeImage(_ format: V4L2FrameFormat) -> Int {
        switch format.pixelFormat {
        case .yuyv: format.bytesPerLine * format.height
        case .nv12: format.bytesPerLine * (format.height + (format.height + 1) / 2)
        default: max(4096, format.width * format.height * 2)
        }
    }
}

/// One open of a ``ScriptedV4L2Device``'s node: the ``V4L2Device`` the camera code sees.
final class ScriptedV4L2Handle: V4L2Device {
    let device: ScriptedV4L2Device
    let id: Int

    init(device: ScriptedV4L2Device, id: Int) {
        self.device = device
        self.id = id
    }

    func queryCapabilities() throws(V4L2Errno) -> V4L2Capabilities { try device.queryCapabilities() }
    func pixelFormats() throws(V4L2Errno) -> [V4L2PixelFormat] { try device.pixelFormats() }
    func frameSizes(of format: V4L2PixelFormat) throws(V4L2Errno) -> [V4L2FrameSize] { try device.frameSizes(of: format) }
    func maximumFrameRate(of format: V4L2PixelFormat, width: Int, height: Int) -> Int? {
        device.maximumFrameRate(of: format, width: width, height: height)
    }
    func perform(_ request: V4L2Request) -> V4L2Reply { device.perform(request, handle: id) }
    func mappedBuffer(index: Int) -> UnsafeRawBufferPointer { device.mappedBuffer(index: index, handle: id) }
    func close() { device.close(handle: id) }
}

/// Video nodes for ``V4L2Cameras`` made of scripted devices; a path can be busy, or unplugged (gone from the
/// listing, its device failing).
final class ScriptedV4L2Nodes: V4L2DeviceNodes, @unchecked Sendable {
    private(set) var devices: [(path: String, device: ScriptedV4L2Device)]
    var busy: Set<String> = []
    private(set) var opened: [String] = []

    init(_ devices: [(path: String, device: ScriptedV4L2Device)]) { self.devices = devices }

    func nodePaths() -> [String] { devices.map(\.path) }

    func open(path: String) throws(V4L2Errno) -> any V4L2Device {
        guard let device = devices.first(where: { $0.path == path })?.device else { throw V4L2Errno(ENOENT) }
        guard !busy.contains(path) else { throw .busy }
        opened.append(path)
        return device.open()
    }

    /// The node disappears and its device fails from now on.
    func unplug(_ path: String) {
        devices.first { $0.path == path }?.device.unplug()
        devices.removeAll { $0.path == path }
    }
}
