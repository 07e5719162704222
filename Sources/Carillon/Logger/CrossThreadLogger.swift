/// An app's ``Logger`` carried into a closure that runs on another thread.
///
/// `Logger` is not `Sendable` (so apps' own logger classes conform as they are), but its contract is that it accepts
/// calls from any thread; this box states that where the compiler needs it, and nowhere else.
struct CrossThreadLogger: @unchecked Sendable {
    let logger: any Logger

    init(_ logger: any Logger) { self.logger = logger }
}
