/// Packets expected, received and lost on a receive stream over one reporting interval, counted as RFC 3550 §6.4.1
/// does: expected from the extended highest sequence number, lost as expected minus received (never below zero,
/// since duplicates count as received).
///
/// A plain value, safe to share.
struct PacketLossInterval: Sendable, Equatable {
    /// Packets the sequence numbers say were sent in the interval.
    var expected: Int
    /// Packets that arrived in the interval (duplicates included).
    var received: Int

    /// Packets missing: expected minus received, at least zero.
    var lost: Int { max(0, expected - received) }

    /// ``lost`` as a percentage of ``expected`` (0 when nothing was expected): `audioReceivePacketLossPercent`.
    var lossPercent: Double { expected > 0 ? 100 * Double(lost) / Double(expected) : 0 }
}
