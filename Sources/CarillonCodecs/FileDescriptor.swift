#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Thin names for the few system calls the WAV and Y4M code makes, so types with their own `read`, `write` and `close`
// methods can call the C functions without spelling the platform module.

func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }

func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int { read(descriptor, buffer.baseAddress, buffer.count) }

func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int { write(descriptor, buffer.baseAddress, buffer.count) }
