/// Why a SUBSCRIBE's offer was not answered, as SUBSCRIBE_ACK's `error` carries it.
public struct SubscribeRefusal: Error, Sendable, Equatable {
    /// The status the client evaluates (400: the offer cannot be answered; 501: this server serves no media).
    public var status: UInt32
    /// What went wrong, for people.
    public var message: String

    /// Creates a refusal.
    public init(status: UInt32, message: String) {
        self.status = status
        self.message = message
    }
}
