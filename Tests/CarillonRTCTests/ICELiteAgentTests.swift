import CarillonRTC
import NIOCore
import Testing

@Suite struct ICELiteAgentTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
    let peer = STUNAddress(address: [127, 0, 0, 1], port: 50_000)!
    let moved = STUNAddress(address: [127, 0, 0, 2], port: 50_001)!

    func agent() -> ICELiteAgent {
        ICELiteAgent(localUsernameFragment: "srv1", localPassword: "server-password-123456", remoteUsernameFragment: "cli9")
    }

    func check(username: String = "srv1:cli9", password: String = "server-password-123456", nominate: Bool = false,
               controlled: Bool = false, id: UInt8 = 1) -> [UInt8] {
        var attributes: [STUNAttribute] = [.username(username), .priority(1_853_817_087)]
        attributes.append(controlled ? .iceControlled(7) : .iceControlling(7))
        if nominate { attributes.append(.useCandidate) }
        return STUNMessage(messageClass: .request, transactionID: [UInt8](repeating: id, count: 12), attributes: attributes)
            .encoded(integrityKey: Array(password.utf8), fingerprint: true)
    }

    @Test func answersValidChecksWithTheMappedAddress() throws {
        var agent = agent()
        let (reply, events) = agent.receive(check(), from: peer, now: start)
        let response = try STUNMessage(parsing: try #require(reply))
        #expect(response.messageClass == .successResponse)
        #expect(response.transactionID == [UInt8](repeating: 1, count: 12))
        #expect(response.attributes.contains(.xorMappedAddress(peer)))
        #expect(STUNMessage.verifyIntegrity(reply!, key: Array("server-password-123456".utf8)))
        #expect(STUNMessage.verifyFingerprint(reply!))
        #expect(events.isEmpty)
        #expect(agent.selectedAddress == nil)
    }

    @Test func badCredentialsAreIgnored() {
        var agent = agent()
        #expect(agent.receive(check(username: "srv1:other"), from: peer, now: start).reply == nil)
        #expect(agent.receive(check(password: "guess"), from: peer, now: start).reply == nil)
        #expect(agent.receive([0, 1, 2, 3], from: peer, now: start).reply == nil)
    }

    @Test func nominationSelectsAndAMoveMigrates() {
        var agent = agent()
        #expect(agent.receive(check(nominate: true), from: peer, now: start).events == [.selected(peer)])
        #expect(agent.receive(check(nominate: true, id: 2), from: peer, now: start).events.isEmpty)
        #expect(agent.receive(check(nominate: true, id: 3), from: moved, now: start).events == [.migrated(from: peer, to: moved)])
        #expect(agent.selectedAddress == moved)
    }

    @Test func consentExpiresWithoutChecksAndIsRenewedByThem() {
        var agent = agent()
        _ = agent.receive(check(nominate: true), from: peer, now: start)
        _ = agent.receive(check(id: 2), from: peer, now: start + .seconds(20))
        #expect(agent.tick(now: start + .seconds(49)).isEmpty)
        #expect(agent.tick(now: start + .seconds(50)) == [.consentExpired])
        #expect(agent.selectedAddress == nil)
        #expect(agent.nextDeadline == nil)
    }

    @Test func aPeerClaimingTheControlledRoleGetsARoleConflict() throws {
        var agent = agent()
        let reply = try #require(agent.receive(check(controlled: true), from: peer, now: start).reply)
        let response = try STUNMessage(parsing: reply)
        #expect(response.messageClass == .errorResponse)
        #expect(response.attributes.contains(.errorCode(code: 487, reason: "Role Conflict")))
    }
}
