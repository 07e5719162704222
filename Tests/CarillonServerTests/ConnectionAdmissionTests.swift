import NIOCore
import Testing

@testable import CarillonServer

@Suite struct ConnectionAdmissionTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    func admission(perAddress: Int = 3, budget: Int = 100) -> ConnectionAdmission<Int> {
        ConnectionAdmission(limits: ConnectionLimits(preJoinPerAddress: perAddress, requestHeadTimeout: .seconds(10)),
                            budget: budget)
    }

    /// An address at its pre-join cap is refused; a connection that sends its request head frees its place, and one
    /// whose WebSocket is not yet authenticated takes it again until its token is accepted.
    @Test func theCapCountsOnlyConnectionsThatHaveNotJoined() {
        var policy = admission(perAddress: 2)
        #expect(policy.open(1, address: "10.0.0.1", now: start) == .admitted(deadline: start + .seconds(10), shed: []))
        #expect(policy.open(2, address: "10.0.0.1", now: start) == .admitted(deadline: start + .seconds(10), shed: []))
        #expect(policy.open(3, address: "10.0.0.1", now: start) == .refused(.addressAtPreJoinCap))
        #expect(policy.open(4, address: "10.0.0.2", now: start) == .admitted(deadline: start + .seconds(10), shed: []))

        policy.requestReceived(1)
        #expect(policy.preJoinCount(from: "10.0.0.1") == 1)
        policy.awaitingJoin(1)
        #expect(policy.preJoinCount(from: "10.0.0.1") == 2)
        #expect(policy.open(5, address: "10.0.0.1", now: start) == .refused(.addressAtPreJoinCap))
        policy.joined(1)
        #expect(policy.phase(of: 1) == .settled)
        #expect(policy.open(5, address: "10.0.0.1", now: start) == .admitted(deadline: start + .seconds(10), shed: []))

        // A settled connection that closes leaves the count alone; a pre-join one frees its place.
        policy.close(1)
        #expect(policy.preJoinCount(from: "10.0.0.1") == 2)
        policy.close(2)
        #expect(policy.preJoinCount(from: "10.0.0.1") == 1)
        policy.close(2)
        #expect(policy.preJoinCount(from: "10.0.0.1") == 1)
        #expect(policy.count == 2)
    }

    /// With the budget full, the oldest pre-join connection makes way (not an older settled one); with only
    /// settled connections left, the new one is refused.
    @Test func aFullBudgetShedsTheOldestPreJoinConnection() {
        var policy = admission(perAddress: 10, budget: 3)
        _ = policy.open(1, address: "a", now: start)
        _ = policy.open(2, address: "b", now: start)
        _ = policy.open(3, address: "b", now: start)
        policy.requestReceived(1)
        #expect(policy.open(4, address: "c", now: start) == .admitted(deadline: start + .seconds(10), shed: [2]))
        #expect(policy.phase(of: 2) == nil && policy.preJoinCount(from: "b") == 1)
        #expect(policy.open(5, address: "c", now: start) == .admitted(deadline: start + .seconds(10), shed: [3]))
        policy.requestReceived(4)
        policy.requestReceived(5)
        #expect(policy.open(6, address: "d", now: start) == .refused(.budgetFull))
        #expect(policy.count == 3)
    }

    /// Only a connection still without a request head is overdue, and only from its deadline on.
    @Test func onlyAConnectionWithoutItsHeadIsOverdue() {
        var policy = admission()
        _ = policy.open(1, address: "a", now: start)
        _ = policy.open(2, address: "a", now: start + .seconds(1))
        policy.requestReceived(2)
        #expect(!policy.isOverdue(1, now: start + .seconds(10) - .nanoseconds(1)))
        #expect(policy.isOverdue(1, now: start + .seconds(10)))
        #expect(!policy.isOverdue(2, now: start + .seconds(60)))
        policy.awaitingJoin(2)
        #expect(!policy.isOverdue(2, now: start + .seconds(60)), "a WebSocket waits for its JOIN under the endpoint's own wait")
        policy.close(1)
        #expect(!policy.isOverdue(1, now: start + .seconds(60)))
    }

    /// Refusals are reported at most once per interval, with what happened since the last report.
    @Test func refusalsAreReportedOncePerInterval() {
        var policy = admission(perAddress: 1, budget: 2)
        #expect(policy.report(now: start) == nil)
        _ = policy.open(1, address: "a", now: start)
        _ = policy.open(2, address: "a", now: start)
        _ = policy.open(3, address: "b", now: start)
        _ = policy.open(4, address: "c", now: start)
        #expect(policy.report(now: start) == "connection limits: refused 1 over the pre-join cap of 1 per address, refused 0 with all 2 connections in use, closed 1 oldest pre-join to make room")
        _ = policy.open(5, address: "a", now: start)
        #expect(policy.report(now: start + .seconds(9)) == nil)
        #expect(policy.report(now: start + .seconds(10)) == "connection limits: refused 0 over the pre-join cap of 1 per address, refused 0 with all 2 connections in use, closed 1 oldest pre-join to make room")
        #expect(policy.report(now: start + .seconds(30)) == nil)
    }

    /// The first failed TLS handshake is named at once; a flood of them costs one line per interval.
    @Test func failedTLSHandshakesAreReportedOncePerInterval() {
        var policy = admission()
        #expect(policy.tlsFailed(address: "10.0.0.9", reason: "bad certificate", now: start)
                == "TLS handshake from 10.0.0.9 failed: bad certificate")
        for _ in 0..<100 { #expect(policy.tlsFailed(address: "10.0.0.8", reason: "x", now: start + .seconds(1)) == nil) }
        #expect(policy.tlsFailed(address: "10.0.0.7", reason: "unknown CA", now: start + .seconds(10))
                == "TLS handshake from 10.0.0.7 failed: unknown CA (101 failed handshakes since the last report)")
    }

    /// The budget leaves an eighth of the descriptor limit, and at least 64, for everything else.
    @Test func theBudgetKeepsAReserve() {
        #expect(ConnectionLimits.connectionBudget(descriptorLimit: 1024) == 896)
        #expect(ConnectionLimits.connectionBudget(descriptorLimit: 256) == 192)
        #expect(ConnectionLimits.connectionBudget(descriptorLimit: 20) == 1)
    }
}
