/// Carries app objects (observers, sinks, frames' states) to the callback queue or an event loop. Only for values
/// that are then touched on that one queue or loop, which is what makes the crossing safe.
struct CallbackBox<Value>: @unchecked Sendable {
    let value: Value
}
