import CarillonMeasurement
import CarillonRTC
import NIOCore
import Testing

/// The client's controlling agent against the server's ICE-lite agent over simulated links, in virtual time.
@Suite struct ICEControllingAgentTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
    let client = STUNAddress(address: [127, 0, 0, 1], port: 40_000)!
    let server = STUNAddress(address: [127, 0, 0, 1], port: 3478)!
    let nowhere = STUNAddress(address: [127, 0, 0, 9], port: 9)!

    /// Runs both agents until the client reports something or `limit` passes; returns the client's events and time.
    func run(loss: Double, candidates: [STUNAddress], seed: UInt64, limit: TimeAmount = .seconds(10))
        -> (events: [ICEControllingAgent.Event], server: ICELiteAgent, elapsed: TimeAmount)
    {
        var lite = ICELiteAgent(localUsernameFragment: "srv", localPassword: "server-password-0123456789",
                                remoteUsernameFragment: "cli")
        var agent = ICEControllingAgent(localUsernameFragment: "cli", localPassword: "client-password-0123456789",
                                        remoteUsernameFragment: "srv",
                                        remotePassword: "server-password-0123456789", remoteCandidates: candidates,
                                        tieBreaker: 42, seed: seed)
        var up = SimulatedLink(conditions: LinkConditions(lossRate: loss, delay: .milliseconds(20)), seed: seed)
        var down = SimulatedLink(conditions: LinkConditions(lossRate: loss, delay: .milliseconds(20)), seed: seed &+ 1)
        var now = start
        var events: [ICEControllingAgent.Event] = []
        for (datagram, target) in agent.start(now: now) where target == server { up.send(datagram, now: now) }
        while events.isEmpty, now - start < limit {
            let next = [agent.nextDeadline, up.nextArrival, down.nextArrival].compactMap { $0 }.min() ?? now + .milliseconds(10)
            now = max(now, next)
            for datagram in up.receive(now: now) {
                let (reply, _) = lite.receive(datagram, from: client, now: now)
                if let reply { down.send(reply, now: now) }
            }
            for datagram in down.receive(now: now) {
                let output = agent.receive(datagram, from: server, now: now)
                events += output.events
                for (bytes, target) in output.datagrams where target == server { up.send(bytes, now: now) }
            }
            let output = agent.tick(now: now)
            events += output.events
            for (bytes, target) in output.datagrams where target == server { up.send(bytes, now: now) }
        }
        return (events, lite, now - start)
    }

    @Test(arguments: [0.0, 0.05, 0.2])
    func connectsThroughLossAndTheServerAgrees(loss: Double) {
        for seed: UInt64 in 1...5 {
            let (events, lite, elapsed) = run(loss: loss, candidates: [server], seed: seed)
            #expect(events == [.connected(server)])
            #expect(lite.selectedAddress == client)
            #expect(elapsed < .seconds(5))
        }
    }

    @Test func anUnreachableCandidateIsSkippedForAWorkingOne() {
        let (events, _, _) = run(loss: 0, candidates: [nowhere, server], seed: 3)
        #expect(events == [.connected(server)])
    }

    @Test func noAnswerAtAllFails() {
        let (events, _, elapsed) = run(loss: 1.0, candidates: [server], seed: 1, limit: .seconds(60))
        #expect(events == [.failed])
        // Seven attempts with a doubling 100 ms timeout give up after about 12.7 s.
        #expect(elapsed > .seconds(12) && elapsed < .seconds(14))
    }

    @Test func consentChecksKeepTheConnectionAndTheirLossFailsIt() {
        var agent = ICEControllingAgent(localUsernameFragment: "cli", localPassword: "client-password-0123456789",
                                        remoteUsernameFragment: "srv",
                                        remotePassword: "server-password-0123456789", remoteCandidates: [server], tieBreaker: 1)
        var lite = ICELiteAgent(localUsernameFragment: "srv", localPassword: "server-password-0123456789",
                                remoteUsernameFragment: "cli")
        var now = start
        func exchange(_ datagrams: [(datagram: [UInt8], to: STUNAddress)]) -> [ICEControllingAgent.Event] {
            var events: [ICEControllingAgent.Event] = []
            for (bytes, _) in datagrams {
                if let reply = lite.receive(bytes, from: client, now: now).reply {
                    let output = agent.receive(reply, from: server, now: now)
                    events += output.events + exchange(output.datagrams)
                }
            }
            return events
        }
        #expect(exchange(agent.start(now: now)) == [.connected(server)])
        // Answered consent checks for a minute: still connected.
        for _ in 0..<60 {
            now = now + .seconds(1)
            #expect(exchange(agent.tick(now: now).datagrams).isEmpty)
        }
        #expect(agent.state == .connected(server))
        // The server goes silent: consent is lost within 30 s plus one interval.
        var failed = false
        for _ in 0..<40 where !failed {
            now = now + .seconds(1)
            failed = agent.tick(now: now).events == [.failed]
        }
        #expect(failed)
        #expect(agent.state == .failed)
    }

    /// A check as a controlled full peer sends it to the client agent.
    func peerCheck(username: String = "cli:srv", password: String = "client-password-0123456789",
                   controlling: Bool = false, id: UInt8 = 7) -> [UInt8] {
        STUNMessage(messageClass: .request, transactionID: [UInt8](repeating: id, count: 12),
                    attributes: [.username(username), .priority(1),
                                 controlling ? .iceControlling(9) : .iceControlled(9)])
            .encoded(integrityKey: Array(password.utf8), fingerprint: true)
    }

    func makeAgent(candidates: [STUNAddress]) -> ICEControllingAgent {
        ICEControllingAgent(localUsernameFragment: "cli", localPassword: "client-password-0123456789",
                            remoteUsernameFragment: "srv", remotePassword: "server-password-0123456789",
                            remoteCandidates: candidates, tieBreaker: 5)
    }

    @Test func answersTheControlledPeersAuthenticatedChecks() throws {
        var agent = makeAgent(candidates: [server])
        _ = agent.start(now: start)
        let output = agent.receive(peerCheck(), from: server, now: start)
        let reply = try #require(output.datagrams.first)
        #expect(reply.to == server)
        let message = try STUNMessage(parsing: reply.datagram)
        #expect(message.messageClass == .successResponse)
        #expect(message.transactionID == [UInt8](repeating: 7, count: 12))
        #expect(message.attributes.contains(.xorMappedAddress(server)))
        #expect(STUNMessage.verifyIntegrity(reply.datagram, key: Array("client-password-0123456789".utf8)))
        // A known candidate is not checked twice.
        #expect(output.datagrams.count == 1)
    }

    @Test func dropsChecksWithWrongCredentials() {
        var agent = makeAgent(candidates: [server])
        _ = agent.start(now: start)
        #expect(agent.receive(peerCheck(username: "srv:cli"), from: server, now: start).datagrams.isEmpty)
        #expect(agent.receive(peerCheck(password: "wrong-password-000000000"), from: server, now: start).datagrams.isEmpty)
    }

    @Test func answersARoleConflictWithoutSwitching() throws {
        var agent = makeAgent(candidates: [server])
        _ = agent.start(now: start)
        let reply = try #require(agent.receive(peerCheck(controlling: true), from: server, now: start).datagrams.first)
        let message = try STUNMessage(parsing: reply.datagram)
        #expect(message.messageClass == .errorResponse)
        #expect(message.attributes.contains(.errorCode(code: 487, reason: "Role Conflict")))
    }

    @Test func aCheckFromAnUnknownAddressBecomesAPeerReflexiveCandidate() throws {
        // The announced candidate is unreachable (an mDNS name the client cannot resolve, say); the peer's own check
        // arrives from its real address, which is checked, nominated and connected.
        var agent = makeAgent(candidates: [nowhere])
        var lite = ICELiteAgent(localUsernameFragment: "srv", localPassword: "server-password-0123456789",
                                remoteUsernameFragment: "cli")
        _ = agent.start(now: start)
        let output = agent.receive(peerCheck(), from: server, now: start)
        #expect(output.datagrams.count == 2)
        var events: [ICEControllingAgent.Event] = []
        var queue = output.datagrams.filter { $0.to == server }.dropFirst().map(\.datagram)
        while let bytes = queue.popLast() {
            guard let reply = lite.receive(bytes, from: client, now: start).reply else { continue }
            let next = agent.receive(reply, from: server, now: start)
            events += next.events
            queue += next.datagrams.filter { $0.to == server }.map(\.datagram)
        }
        #expect(events == [.connected(server)])
    }
}
