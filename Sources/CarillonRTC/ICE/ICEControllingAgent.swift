import CarillonCrypto
import NIOCore

/// The client's full ICE agent in the controlling role (RFC 8445) against an ICE-lite server, with consent
/// freshness (RFC 7675), sans-IO.
///
/// It checks each remote candidate (one new check every `pacing`, retransmitting unanswered ones with a doubling
/// timeout), nominates the first pair that answers by repeating the check with USE-CANDIDATE, and once connected
/// sends a consent check every `consentInterval`; without a valid answer for `consentTimeout` the connection has
/// failed. It answers the peer's own authenticated checks (a full peer in the controlled role checks too), and a
/// check from an address it does not know yet becomes a peer-reflexive candidate that is checked next (RFC 8445
/// §7.3.1.3-4). A peer that also claims the controlling role is told 487 (Role Conflict): this agent never switches
/// roles. An ICE restart is a new agent with new credentials.
public struct ICEControllingAgent: Sendable {
    /// What the agent reports.
    public enum Event: Sendable, Equatable {
        /// A pair was nominated: media goes to this remote address.
        case connected(STUNAddress)
        /// No candidate answered, or consent was lost.
        case failed
    }

    /// Where the agent stands.
    public enum State: Sendable, Equatable {
        case idle, checking, nominating(STUNAddress), connected(STUNAddress), failed
    }

    private struct Transaction {
        var target: STUNAddress
        var datagram: [UInt8]
        var sentAt: NIODeadline
        var timeout: TimeAmount
        var attempts: Int
        var nominating: Bool
    }

    /// Local ICE credentials (the offer's `a=ice-ufrag` / `a=ice-pwd`).
    public let localUsernameFragment: String
    /// The remote side's username fragment.
    public let remoteUsernameFragment: String
    private let localPassword: [UInt8]
    private let remotePassword: [UInt8]
    private let tieBreaker: UInt64
    private let priority: UInt32
    /// Time between two new checks.
    public var pacing: TimeAmount = .milliseconds(50)
    /// First retransmission timeout; doubles per attempt.
    public var initialTimeout: TimeAmount = .milliseconds(100)
    /// Attempts per check before the candidate is given up.
    public var maximumAttempts = 7
    /// Interval of consent checks once connected.
    public var consentInterval: TimeAmount = .seconds(5)
    /// Time without a valid consent answer after which the connection has failed.
    public var consentTimeout: TimeAmount = .seconds(30)

    /// The agent's state.
    public private(set) var state: State = .idle
    private var pending: [STUNAddress]
    private var known: Set<STUNAddress>
    private var transactions: [[UInt8]: Transaction] = [:]
    private var nextCheck: NIODeadline?
    private var nextConsent: NIODeadline?
    private var lastConsent: NIODeadline?
    private var transactionCounter: UInt64 = 0
    private var random: SeededRandom

    /// Creates an agent for the remote candidates of an answer.
    public init(localUsernameFragment: String, localPassword: String, remoteUsernameFragment: String,
                remotePassword: String, remoteCandidates: [STUNAddress], tieBreaker: UInt64,
                priority: UInt32 = 2_130_706_431, seed: UInt64 = 1) {
        self.localUsernameFragment = localUsernameFragment
        self.localPassword = Array(localPassword.utf8)
        self.remoteUsernameFragment = remoteUsernameFragment
        self.remotePassword = Array(remotePassword.utf8)
        self.pending = remoteCandidates
        self.known = Set(remoteCandidates)
        self.tieBreaker = tieBreaker
        self.priority = priority
        self.random = SeededRandom(seed: seed)
    }

    /// When ``tick(now:)`` must run next.
    public var nextDeadline: NIODeadline? {
        let retransmits = transactions.values.map { $0.sentAt + $0.timeout }
        return ([nextCheck, nextConsent].compactMap { $0 } + retransmits).min()
    }

    /// Starts checking; returns the first datagrams to send.
    public mutating func start(now: NIODeadline) -> [(datagram: [UInt8], to: STUNAddress)] {
        guard state == .idle else { return [] }
        guard !pending.isEmpty else {
            state = .failed
            return []
        }
        state = .checking
        nextCheck = now
        return tick(now: now).datagrams
    }

    /// Runs timers: paced new checks, retransmissions, consent checks and consent expiry.
    public mutating func tick(now: NIODeadline) -> (datagrams: [(datagram: [UInt8], to: STUNAddress)], events: [Event]) {
        var out: [(datagram: [UInt8], to: STUNAddress)] = []
        var events: [Event] = []
        if let due = nextCheck, due <= now, state == .checking {
            if pending.isEmpty {
                nextCheck = nil
            } else {
                out.append(send(to: pending.removeFirst(), nominating: false, now: now))
                nextCheck = pending.isEmpty ? nil : now + pacing
            }
        }
        for (id, transaction) in transactions where transaction.sentAt + transaction.timeout <= now {
            if transaction.attempts >= maximumAttempts {
                transactions[id] = nil
                continue
            }
            var retry = transaction
            retry.attempts += 1
            retry.sentAt = now
            retry.timeout = retry.timeout * 2
            transactions[id] = retry
            out.append((retry.datagram, retry.target))
        }
        if case .connected(let remote) = state {
            if let last = lastConsent, now - last >= consentTimeout {
                state = .failed
                transactions.removeAll()
                nextConsent = nil
                events.append(.failed)
            } else if let due = nextConsent, due <= now {
                out.append(send(to: remote, nominating: false, now: now))
                // RFC 7675: randomise the interval by ±20 % so checks do not synchronise.
                nextConsent = now + .nanoseconds(Int64(Double(consentInterval.nanoseconds) * (0.8 + 0.4 * random.unit())))
            }
        }
        if (state == .checking || isNominating) && transactions.isEmpty && pending.isEmpty {
            state = .failed
            events.append(.failed)
        }
        return (out, events)
    }

    /// Handles a STUN datagram from the network: answers to this agent's checks and the peer's own checks.
    public mutating func receive(_ datagram: [UInt8], from source: STUNAddress, now: NIODeadline)
        -> (datagrams: [(datagram: [UInt8], to: STUNAddress)], events: [Event])
    {
        guard let message = try? STUNMessage(parsing: datagram), message.method == STUNMessage.bindingMethod else {
            return ([], [])
        }
        if message.messageClass == .request { return answer(message, datagram: datagram, from: source, now: now) }
        let response = message
        guard response.messageClass == .successResponse || response.messageClass == .errorResponse,
              let transaction = transactions[response.transactionID], transaction.target == source,
              STUNMessage.verifyIntegrity(datagram, key: remotePassword)
        else { return ([], []) }
        transactions[response.transactionID] = nil
        guard response.messageClass == .successResponse else { return ([], []) }
        switch state {
        case .checking where !transaction.nominating:
            state = .nominating(source)
            transactions.removeAll()
            pending.removeAll()
            nextCheck = nil
            return ([send(to: source, nominating: true, now: now)], [])
        case .nominating(let remote) where transaction.nominating && remote == source:
            state = .connected(source)
            lastConsent = now
            nextConsent = now + consentInterval
            return ([], [.connected(source)])
        case .connected(let remote) where remote == source:
            lastConsent = now
            return ([], [])
        default:
            return ([], [])
        }
    }

    /// Answers an authenticated check of the peer; an unknown source becomes a peer-reflexive candidate.
    private mutating func answer(_ request: STUNMessage, datagram: [UInt8], from source: STUNAddress, now: NIODeadline)
        -> (datagrams: [(datagram: [UInt8], to: STUNAddress)], events: [Event])
    {
        guard request.username == "\(localUsernameFragment):\(remoteUsernameFragment)",
              STUNMessage.verifyIntegrity(datagram, key: localPassword),
              STUNMessage.verifyFingerprint(datagram)
        else { return ([], []) }
        if request.attributes.contains(where: { if case .iceControlling = $0 { true } else { false } }) {
            let conflict = STUNMessage(messageClass: .errorResponse, transactionID: request.transactionID,
                                       attributes: [.errorCode(code: 487, reason: "Role Conflict")])
            return ([(conflict.encoded(integrityKey: localPassword, fingerprint: true), source)], [])
        }
        let success = STUNMessage(messageClass: .successResponse, transactionID: request.transactionID,
                                  attributes: [.xorMappedAddress(source)])
        var out = [(datagram: success.encoded(integrityKey: localPassword, fingerprint: true), to: source)]
        if state == .checking, !known.contains(source), known.count < 64 {
            // Peer-reflexive: the peer reaches us from an address it did not announce (e.g. behind an mDNS name).
            known.insert(source)
            out.append(send(to: source, nominating: false, now: now))
        }
        return (out, [])
    }

    private var isNominating: Bool {
        if case .nominating = state { return true }
        return false
    }

    private mutating func send(to target: STUNAddress, nominating: Bool, now: NIODeadline) -> (datagram: [UInt8], to: STUNAddress) {
        transactionCounter += 1
        var id = [UInt8](repeating: 0, count: 12)
        let counter = transactionCounter, salt = random.next()
        for index in 0..<4 { id[index] = UInt8(truncatingIfNeeded: salt >> (8 * index)) }
        for index in 0..<8 { id[4 + index] = UInt8(truncatingIfNeeded: counter >> (8 * index)) }
        var attributes: [STUNAttribute] = [
            .username("\(remoteUsernameFragment):\(localUsernameFragment)"),
            .priority(priority),
            .iceControlling(tieBreaker),
        ]
        if nominating { attributes.append(.useCandidate) }
        let datagram = STUNMessage(messageClass: .request, transactionID: id, attributes: attributes)
            .encoded(integrityKey: remotePassword, fingerprint: true)
        transactions[id] = Transaction(target: target, datagram: datagram, sentAt: now, timeout: initialTimeout,
                                       attempts: 1, nominating: nominating)
        return (datagram, target)
    }
}
