import NIOCore

extension Optional where Wrapped == NIODeadline {
    /// The earlier of two optional deadlines (nil only when both are): how the cores fold their timers into one
    /// next deadline without building a list, since the shells read it after every packet.
    public func earlier(_ other: NIODeadline?) -> NIODeadline? {
        guard let self else { return other }
        guard let other else { return self }
        return Swift.min(self, other)
    }
}
