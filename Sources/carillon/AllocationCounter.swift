import Foundation

/// The heap allocation count kept by `scripts/malloc-counter.c` when it is preloaded; nil otherwise.
enum AllocationCounter {
    private typealias CountFunction = @convention(c) () -> UInt

    /// The counter's function, looked up once (RTLD_DEFAULT is a null handle on glibc: every loaded object is
    /// searched), so reading the count around a measured call adds no work of its own.
    private static let function: CountFunction? = dlsym(nil, "carillon_malloc_count")
        .map { unsafeBitCast($0, to: CountFunction.self) }

    /// The number of allocations so far, if the counter is loaded.
    static var count: UInt? { function?() }
}
