import NIOCore

/// Judges a media connection from the audio it receives, once a second, with the constants of Chime's connection
/// health policies (`policies.md` §5.4 and §5.5), sans-IO.
///
/// * Poor and recovered (`UnusableAudioWarningConnectionHealthPolicy`): over the newest 15 one-second samples the
///   loss is `1 − received / (15 × 50)`; from 50 % the connection is poor. After it becomes poor the verdict is
///   frozen for 60 s, and it is reported poor at most twice per session (a third time it stays "fine"). The server
///   sends 50 packets a second whatever anyone says, so a quiet meeting is not a poor one.
/// * Reconnect (`ReconnectionHealthPolicy`): outside the first 10 s after (re)connecting, 25 consecutive seconds
///   with no packet at all (counted once traffic was seen) mean the path is dead.
///
/// A value type owned by the session's ``SessionMediaCore``; ``connected(at:)`` starts each media connection, keeping
/// the poor state and the warning count across reconnects.
struct AudioConnectionHealth: Sendable {
    /// A change to report.
    enum Change: Sendable, Equatable {
        /// `connectionDidBecomePoor`.
        case becamePoor
        /// `connectionDidRecover`.
        case recovered
        /// Reconnect with `connectionHealthReconnect`.
        case reconnect
    }

    static let samplesConsidered = 15
    static let packetsExpectedPerSecond = 50
    static let poorLossFraction = 0.5
    static let cooldown = TimeAmount.seconds(60)
    static let maximumWarnings = 2
    static let connectionWait = TimeAmount.seconds(10)
    static let silentSamplesBeforeReconnect = 25

    /// Whether the connection is reported poor now.
    private(set) var isPoor = false
    private var samples: [Int] = []
    private var silentSamples = 0
    private var trafficSeen = false
    private var warnings = 0
    private var frozenUntil: NIODeadline?
    private var connectedAt: NIODeadline

    /// Starts judging a connection made at `start`.
    init(connectedAt start: NIODeadline) {
        connectedAt = start
    }

    /// A new media connection at `now`: samples start over; the poor state and the warnings given stay.
    mutating func connected(at now: NIODeadline) {
        connectedAt = now
        samples.removeAll()
        silentSamples = 0
        trafficSeen = false
    }

    /// Takes one second's count of received audio packets and returns what changed, if anything.
    mutating func record(packetsReceived: Int, now: NIODeadline) -> Change? {
        if packetsReceived > 0 {
            trafficSeen = true
            silentSamples = 0
        } else if trafficSeen {
            silentSamples += 1
        }
        if silentSamples >= Self.silentSamplesBeforeReconnect, now - connectedAt >= Self.connectionWait {
            silentSamples = 0
            return .reconnect
        }
        samples.append(max(0, packetsReceived))
        if samples.count > Self.samplesConsidered { samples.removeFirst(samples.count - Self.samplesConsidered) }
        if let frozenUntil, now < frozenUntil { return nil }
        frozenUntil = nil
        guard samples.count == Self.samplesConsidered else { return nil }
        let expected = Double(Self.samplesConsidered * Self.packetsExpectedPerSecond)
        let loss = min(max(1 - Double(samples.reduce(0, +)) / expected, 0), 1)
        let unhealthy = loss >= Self.poorLossFraction
        if unhealthy, !isPoor, warnings < Self.maximumWarnings {
            warnings += 1
            isPoor = true
            frozenUntil = now + Self.cooldown
            return .becamePoor
        }
        if !unhealthy, isPoor {
            isPoor = false
            return .recovered
        }
        return nil
    }
}
