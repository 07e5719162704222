#if canImport(Glibc)
import Glibc
#endif

/// A failed V4L2 call: the `errno` it set.
///
/// A plain value, safe to share.
struct V4L2Errno: Error, Hashable, Sendable, CustomStringConvertible {
    /// The error number.
    let code: Int32

    /// The failure with error number `code`.
    init(_ code: Int32) { self.code = code }

    /// No buffer is ready on a non-blocking descriptor.
    static let wouldBlock = V4L2Errno(EAGAIN)
    /// The device is gone (unplugged).
    static let noDevice = V4L2Errno(ENODEV)
    /// An argument the driver does not take, or the end of an enumeration.
    static let invalidArgument = V4L2Errno(EINVAL)
    /// The device is in use by another process.
    static let busy = V4L2Errno(EBUSY)
    /// An I/O error (some drivers' answer to a device that disappeared).
    static let ioError = V4L2Errno(EIO)
    /// The driver does not know the request.
    static let notSupported = V4L2Errno(ENOTTY)

    /// `strerror` and the number, for example `No such device (19)`.
    var description: String { "\(String(cString: strerror(code))) (\(code))" }
}
