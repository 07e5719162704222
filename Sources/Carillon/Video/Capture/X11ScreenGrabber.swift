import CCarillonXCB
import CarillonCodecs
import Foundation

/// Reads the root window of an X11 display through XCB and the MIT-SHM extension: the server copies each picture
/// into a System V shared-memory segment mapped here (no copy through the socket), which is converted from BGRA
/// (a 24- or 32-bit TrueColor root, as Xorg and Xvfb give) to I420.
///
/// Cost: per frame one `ShmGetImage` round trip and one conversion (about 2 ms at 1280x720 in release builds).
/// Threading: made and used on the capture loop only; the connection and the segment are released in `deinit`.
final class X11ScreenGrabber: ScreenGrabber {
    let width: Int
    let height: Int
    private let connection: OpaquePointer
    private let root: xcb_window_t
    private let segment: xcb_shm_seg_t
    private let memory: UnsafeMutableRawPointer
    private let logger: any Logger
    private var reportedFailure = false

    /// Connects to `display` (nil: `DISPLAY`) and maps a segment for its root window. Fails with
    /// ``CaptureSourceError/configurationFailure`` (logged with the reason) when the display cannot be opened, has no
    /// MIT-SHM, or its root is not 32 bits a pixel.
    init(display: String?, logger: any Logger) throws(CaptureSourceError) {
        self.logger = logger
        var screenNumber: Int32 = 0
        guard let connection = xcb_connect(display, &screenNumber), xcb_connection_has_error(connection) == 0 else {
            logger.error(msg: "screen capture: cannot open X display \(display ?? "$DISPLAY")")
            throw .configurationFailure
        }
        var iterator = xcb_setup_roots_iterator(xcb_get_setup(connection))
        for _ in 0..<max(0, Int(screenNumber)) where iterator.rem > 1 { xcb_screen_next(&iterator) }
        guard let screen = iterator.data?.pointee else {
            xcb_disconnect(connection)
            throw .configurationFailure
        }
        guard let version = xcb_shm_query_version_reply(connection, xcb_shm_query_version(connection), nil) else {
            logger.error(msg: "screen capture: X display \(display ?? "$DISPLAY") has no MIT-SHM extension")
            xcb_disconnect(connection)
            throw .configurationFailure
        }
        free(version)
        guard Self.bitsPerPixel(connection: connection, depth: screen.root_depth) == 32 else {
            logger.error(msg: "screen capture: the root window's depth \(screen.root_depth) is not stored as 32 bits a pixel")
            xcb_disconnect(connection)
            throw .configurationFailure
        }
        let width = Int(screen.width_in_pixels), height = Int(screen.height_in_pixels)
        let identifier = shmget(IPC_PRIVATE, width * height * 4, IPC_CREAT | 0o600)
        guard identifier >= 0, let memory = shmat(identifier, nil, 0), memory != UnsafeMutableRawPointer(bitPattern: -1) else {
            logger.error(msg: "screen capture: no shared memory for a \(width)x\(height) picture (errno \(errno))")
            if identifier >= 0 { shmctl(identifier, IPC_RMID, nil) }
            xcb_disconnect(connection)
            throw .configurationFailure
        }
        let segment = xcb_generate_id(connection)
        let attached = xcb_request_check(connection, xcb_shm_attach_checked(connection, segment, UInt32(identifier), 0))
        // Marked for removal now: it goes when both sides have detached, even if this process dies.
        shmctl(identifier, IPC_RMID, nil)
        if let attached {
            free(attached)
            logger.error(msg: "screen capture: the X server cannot attach the shared memory (a remote display?)")
            shmdt(memory)
            xcb_disconnect(connection)
            throw .configurationFailure
        }
        self.connection = connection
        self.root = screen.root
        self.segment = segment
        self.memory = memory
        self.width = width
        self.height = height
    }

    deinit {
        xcb_shm_detach(connection, segment)
        xcb_flush(connection)
        shmdt(memory)
        xcb_disconnect(connection)
    }

    func grab() throws(CaptureSourceError) -> I420Image {
        let cookie = xcb_shm_get_image(connection, root, 0, 0, UInt16(width), UInt16(height), ~0,
                                       UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), segment, 0)
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        guard let reply = xcb_shm_get_image_reply(connection, cookie, &error) else {
            if let error { free(error) }
            if !reportedFailure {
                reportedFailure = true
                logger.error(msg: "screen capture: reading the screen failed\(xcb_connection_has_error(connection) != 0 ? " (the display connection is gone)" : "")")
            }
            throw .invalidFrame
        }
        free(reply)
        do {
            return try I420Image(packedRGB: UnsafeRawBufferPointer(start: memory, count: width * height * 4), layout: .bgra,
                                 width: width, height: height)
        } catch {
            throw .invalidFrame
        }
    }

    /// Bits a pixel of images of `depth` on this display (from its pixmap formats).
    private static func bitsPerPixel(connection: OpaquePointer, depth: UInt8) -> Int {
        let setup = xcb_get_setup(connection)
        var iterator = xcb_setup_pixmap_formats_iterator(setup)
        while iterator.rem > 0 {
            if let format = iterator.data?.pointee, format.depth == depth { return Int(format.bits_per_pixel) }
            xcb_format_next(&iterator)
        }
        return 0
    }
}
