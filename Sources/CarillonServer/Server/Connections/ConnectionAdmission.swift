import NIOCore

/// Decides which TCP connections the server keeps (sans-IO: fed connection events and `now`, returns what to close).
///
/// It enforces ``ConnectionLimits``: a per-address cap on pre-join connections, a deadline for the first request
/// head, and a total budget under which the oldest pre-join connections make way for new ones. It also counts what
/// it refused and says, at most every ``reportInterval``, what to log about it, so a flood costs one log line per
/// interval rather than one per connection.
///
/// Cost: O(1) per event, except when the budget is full, when finding the oldest pre-join connection is O(open).
struct ConnectionAdmission<Key: Hashable & Sendable>: Sendable {
    /// Where a connection stands.
    enum Phase: Equatable {
        /// Accepted; no complete request head yet.
        case awaitingRequest
        /// A signaling WebSocket whose join token is not accepted yet.
        case awaitingJoin
        /// Past pre-join: an HTTP connection that sent a request, or an authenticated signaling socket.
        case settled
    }

    /// Why a new connection was closed at once.
    enum Refusal: Equatable {
        /// Its address already has ``ConnectionLimits/preJoinPerAddress`` pre-join connections.
        case addressAtPreJoinCap
        /// The budget is full and every open connection is past pre-join.
        case budgetFull
    }

    /// What to do with a newly accepted connection.
    enum Admission: Equatable {
        /// Keep it; close it at `deadline` unless it has sent a request head by then; close `shed` (older pre-join
        /// connections that make room) now.
        case admitted(deadline: NIODeadline, shed: [Key])
        /// Close it now.
        case refused(Refusal)
    }

    private struct Entry {
        let address: String
        let sequence: UInt64
        let deadline: NIODeadline
        var phase: Phase
    }

    /// How often refusals are reported.
    static var reportInterval: TimeAmount { .seconds(10) }

    let limits: ConnectionLimits
    let budget: Int
    private var entries: [Key: Entry] = [:]
    private var preJoinByAddress: [String: Int] = [:]
    private var nextSequence: UInt64 = 0
    private var refusedSinceReport: [Refusal: Int] = [:]
    private var shedSinceReport = 0
    private var lastReport: NIODeadline?
    private var tlsFailuresSinceReport = 0
    private var lastTLSReport: NIODeadline?

    /// Creates the policy for `limits` with `budget` connections at most.
    init(limits: ConnectionLimits, budget: Int) {
        self.limits = limits
        self.budget = max(1, budget)
    }

    /// Open connections.
    var count: Int { entries.count }

    /// Pre-join connections from `address`.
    func preJoinCount(from address: String) -> Int { preJoinByAddress[address] ?? 0 }

    /// The phase of `key`, or nil once it is closed or shed.
    func phase(of key: Key) -> Phase? { entries[key]?.phase }

    /// A connection was accepted from `address`.
    mutating func open(_ key: Key, address: String, now: NIODeadline) -> Admission {
        if preJoinCount(from: address) >= limits.preJoinPerAddress {
            refusedSinceReport[.addressAtPreJoinCap, default: 0] += 1
            return .refused(.addressAtPreJoinCap)
        }
        var shed: [Key] = []
        if entries.count >= budget {
            guard let oldest = entries.filter({ $0.value.phase != .settled }).min(by: { $0.value.sequence < $1.value.sequence })
            else {
                refusedSinceReport[.budgetFull, default: 0] += 1
                return .refused(.budgetFull)
            }
            close(oldest.key)
            shed.append(oldest.key)
            shedSinceReport += 1
        }
        let deadline = now + limits.requestHeadTimeout
        entries[key] = Entry(address: address, sequence: nextSequence, deadline: deadline, phase: .awaitingRequest)
        nextSequence += 1
        preJoinByAddress[address, default: 0] += 1
        return .admitted(deadline: deadline, shed: shed)
    }

    /// `key` sent a complete request head: it is past pre-join unless it goes on to a WebSocket upgrade.
    mutating func requestReceived(_ key: Key) {
        move(key, from: .awaitingRequest, to: .settled)
    }

    /// `key` became a signaling WebSocket that has not been authenticated yet: pre-join again.
    mutating func awaitingJoin(_ key: Key) {
        move(key, from: .settled, to: .awaitingJoin)
    }

    /// `key`'s join token was accepted.
    mutating func joined(_ key: Key) {
        move(key, from: .awaitingJoin, to: .settled)
    }

    /// `key` closed (or was shed); does nothing for a key already gone.
    mutating func close(_ key: Key) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        if entry.phase != .settled { release(entry.address) }
    }

    /// Whether `key` is still waiting for its first request head at `now`, past its deadline: close it.
    func isOverdue(_ key: Key, now: NIODeadline) -> Bool {
        guard let entry = entries[key] else { return false }
        return entry.phase == .awaitingRequest && now >= entry.deadline
    }

    /// A line to log about refusals and sheds since the last report, when there were any and the interval has
    /// passed; resets the counts when it returns one.
    mutating func report(now: NIODeadline) -> String? {
        let refusedByCap = refusedSinceReport[.addressAtPreJoinCap] ?? 0
        let refusedByBudget = refusedSinceReport[.budgetFull] ?? 0
        guard refusedByCap + refusedByBudget + shedSinceReport > 0 else { return nil }
        if let lastReport, now < lastReport + Self.reportInterval { return nil }
        lastReport = now
        refusedSinceReport = [:]
        defer { shedSinceReport = 0 }
        return "connection limits: refused \(refusedByCap) over the pre-join cap of \(limits.preJoinPerAddress) per address"
            + ", refused \(refusedByBudget) with all \(budget) connections in use"
            + ", closed \(shedSinceReport) oldest pre-join to make room"
    }

    /// A TLS handshake from `address` failed for `reason`: a line to log for the first failure of an interval, and
    /// for the next one after it with how many there were since, so a client with the wrong certificate is named at
    /// once and a flood of bad handshakes costs one line per interval.
    mutating func tlsFailed(address: String, reason: String, now: NIODeadline) -> String? {
        tlsFailuresSinceReport += 1
        if let lastTLSReport, now < lastTLSReport + Self.reportInterval { return nil }
        lastTLSReport = now
        defer { tlsFailuresSinceReport = 0 }
        let others = tlsFailuresSinceReport > 1 ? " (\(tlsFailuresSinceReport) failed handshakes since the last report)" : ""
        return "TLS handshake from \(address) failed: \(reason)\(others)"
    }

    private mutating func move(_ key: Key, from: Phase, to: Phase) {
        guard let entry = entries[key], entry.phase == from else { return }
        entries[key]?.phase = to
        if to == .settled { release(entry.address) } else if from == .settled { preJoinByAddress[entry.address, default: 0] += 1 }
    }

    private mutating func release(_ address: String) {
        let remaining = (preJoinByAddress[address] ?? 1) - 1
        preJoinByAddress[address] = remaining > 0 ? remaining : nil
    }
}
