#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Thin names for the few system calls the WAV code makes, so types with their own `read` and `close` methods can call
// the C functions without spelling the platform module.

func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }

func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int { read(descriptor, buffer.baseAddress, buffer.count) }
