/// Carries a non-Sendable value to the event loop that will own it from then on.
///
/// Use only for a hand-over: the sender must not touch the value after creating the transfer.
struct UncheckedTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
