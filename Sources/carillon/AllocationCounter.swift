import Foundation

/// The heap allocation count kept by `scripts/malloc-counter.c` when it is preloaded; nil otherwise.
enum AllocationCounter {
    private typealias CountFunction = @convention(c) () -> UInt

    /// The number of allocations so far, if the counter is loaded.
    static var count: UInt? {
        // RTLD_DEFAULT is a null handle on glibc: search every loaded object.
        guard let symbol = dlsym(nil, "carillon_malloc_count") else { return nil }
        return unsafeBitCast(symbol, to: CountFunction.self)()
    }
}
