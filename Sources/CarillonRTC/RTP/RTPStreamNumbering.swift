/// The numbering of one RTP stream a sender originates (RFC 3550 §5.1): sequence number and timestamp start at random
/// values; the sequence number advances by one per packet sent, the timestamp by the media time each packet covers,
/// and also by media time that passes without a packet (muted, or frames skipped after a stall), so a receiver sees a
/// gap in media time, not a loss. The SDK's audio send pipeline and the server's mixed downlinks number with it.
///
/// Threading: a value; its owner keeps it.
public struct RTPStreamNumbering: Sendable, Equatable {
    /// The sequence number of the next packet.
    public private(set) var nextSequenceNumber: UInt16
    /// The timestamp of the next packet: what a sender report pairs with the wall clock now.
    public private(set) var nextTimestamp: UInt32

    /// A numbering from `sequenceNumber` and `timestamp` (random by default, as RFC 3550 asks; fixed by tests).
    public init(sequenceNumber: UInt16 = .random(in: .min ... .max), timestamp: UInt32 = .random(in: .min ... .max)) {
        nextSequenceNumber = sequenceNumber
        nextTimestamp = timestamp
    }

    /// The numbers of the next packet, which covers `samples` of media time at the stream's clock rate.
    public mutating func take(samples: UInt32) -> (sequenceNumber: UInt16, timestamp: UInt32) {
        defer {
            nextSequenceNumber &+= 1
            nextTimestamp &+= samples
        }
        return (nextSequenceNumber, nextTimestamp)
    }

    /// `samples` of media time pass without a packet.
    public mutating func skip(samples: UInt32) {
        nextTimestamp &+= samples
    }
}
