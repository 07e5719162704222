#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// A UDP socket bound by the port itself rather than by NIO's bootstrap, so that its descriptor can be duplicated:
/// ``MediaPort`` reads from it on one loop and writes to it from every loop through duplicates (one file description,
/// one port, one set of socket buffers), each wrapped in a channel of its own loop.
///
/// Bound without `SO_REUSEADDR` or `SO_REUSEPORT`, so no other socket can share the port.
struct BoundUDPSocket {
    /// The descriptor; whoever it is handed to (a channel) closes it.
    let descriptor: CInt

    /// Creates a socket of the address's family with both buffers asked for at `bufferBytes`, and binds it.
    init(binding address: SocketAddress, bufferBytes: Int) throws {
        let family: CInt
        switch address {
        case .v4: family = AF_INET
        case .v6: family = AF_INET6
        default: throw ChannelError.operationUnsupported
        }
        #if canImport(Glibc)
        let type = CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_DGRAM
        #endif
        let descriptor = socket(family, type, 0)
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        do {
            var size = CInt(bufferBytes)
            for option in [SO_RCVBUF, SO_SNDBUF] {
                // Best effort, as NIO's option is: the kernel caps it at rmem_max/wmem_max without failing.
                _ = setsockopt(descriptor, SOL_SOCKET, option, &size, socklen_t(MemoryLayout<CInt>.size))
            }
            let bound = address.withSockAddr { pointer, length in bind(descriptor, pointer, socklen_t(length)) }
            guard bound == 0 else { throw IOError(errnoCode: errno, reason: "bind") }
        } catch {
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
    }

    /// Closes a descriptor of the socket that was never handed to a channel.
    static func release(_ descriptor: CInt) {
        _ = close(descriptor)
    }

    /// A second descriptor for the same socket (`dup`), closed by whoever it is handed to.
    func duplicate() throws -> CInt {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw IOError(errnoCode: errno, reason: "dup") }
        return copy
    }
}
