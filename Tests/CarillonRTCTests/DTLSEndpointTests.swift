@testable import CarillonRTC
import CarillonMeasurement
import NIOCore
import Testing

@Suite struct DTLSEndpointTests {
    func rtp(sequence: UInt16, ssrc: UInt32) -> [UInt8] {
        [0x80, 111, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x03, 0xC0,
         UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)] + Array(0..<100)
    }

    /// Both sides connected with mirrored keys that protect and unprotect real SRTP both ways.
    func expectWorkingKeys(_ network: DTLSTestNetwork, profile: SRTPProfile? = nil,
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(network.client.state == .connected, sourceLocation: sourceLocation)
        #expect(network.server.state == .connected, sourceLocation: sourceLocation)
        let client = try #require(network.clientKeys, sourceLocation: sourceLocation)
        let server = try #require(network.serverKeys, sourceLocation: sourceLocation)
        if let profile { #expect(client.profile == profile, sourceLocation: sourceLocation) }
        #expect(client.profile == server.profile, sourceLocation: sourceLocation)
        #expect(client.localMasterKey == server.remoteMasterKey, sourceLocation: sourceLocation)
        #expect(client.localMasterSalt == server.remoteMasterSalt, sourceLocation: sourceLocation)
        #expect(client.remoteMasterKey == server.localMasterKey, sourceLocation: sourceLocation)
        #expect(client.remoteMasterSalt == server.localMasterSalt, sourceLocation: sourceLocation)
        #expect(client.localMasterKey != client.remoteMasterKey, sourceLocation: sourceLocation)
        #expect(client.localMasterKey.count == client.profile.keyLength, sourceLocation: sourceLocation)
        #expect(client.localMasterSalt.count == client.profile.saltLength, sourceLocation: sourceLocation)
        #expect(network.client.keyingMaterial == client, sourceLocation: sourceLocation)

        for (sender, receiver, ssrc) in [(client, server, UInt32(0x1111_1111)), (server, client, 0x2222_2222)] {
            let protect = try LibSRTPContext(profile: sender.profile, masterKey: sender.localMasterKey,
                                             masterSalt: sender.localMasterSalt, direction: .outbound)
            let unprotect = try LibSRTPContext(profile: receiver.profile, masterKey: receiver.remoteMasterKey,
                                               masterSalt: receiver.remoteMasterSalt, direction: .inbound)
            let original = rtp(sequence: 7, ssrc: ssrc)
            var packet = original
            try protect.protectRTP(&packet)
            #expect(packet != original, sourceLocation: sourceLocation)
            try unprotect.unprotectRTP(&packet)
            #expect(packet == original, sourceLocation: sourceLocation)
        }
    }

    func failure(_ events: [(NIODeadline, DTLSEvent)]) -> DTLSError? {
        for (_, event) in events { if case .failed(let error) = event { return error } }
        return nil
    }

    @Test func handshakeConnectsAndExportsWorkingSRTPKeys() throws {
        let network = try DTLSTestNetwork()
        #expect(network.client.state == .new)
        network.start()
        #expect(network.client.state == .handshaking)
        #expect(network.sentToServer.count == 1)
        #expect(network.sentToClient.isEmpty)
        #expect(network.server.state == .handshaking)
        #expect(network.server.nextDeadline == nil)
        #expect(network.client.start(now: network.now).isEmpty)
        network.run()
        try expectWorkingKeys(network, profile: .aeadAES128GCM)
        // One datagram per flight and no retransmission: OpenSSL's real-clock timer stays quiet.
        #expect(network.sentToServer.count == 2)
        #expect(network.sentToClient.count == 2)
        // Two round trips on a 10 ms link, no retransmission.
        #expect(network.clientConnectedAt == DTLSTestNetwork.epoch + .milliseconds(40))
        #expect(network.serverConnectedAt == DTLSTestNetwork.epoch + .milliseconds(30))
        #expect(network.clientEvents.count == 1)
        #expect(network.serverEvents.count == 1)
        #expect((network.sentToServer + network.sentToClient).allSatisfy { $0.count <= 1200 })
        #expect(network.client.nextDeadline == nil)
        #expect(network.server.nextDeadline == nil)
    }

    @Test func smallerMTUSplitsFlights() throws {
        let clientCertificate = try DTLSCertificate.generate()
        let serverCertificate = try DTLSCertificate.generate()
        let client = try DTLSEndpoint(role: .client, certificate: clientCertificate,
                                      remoteFingerprint: serverCertificate.fingerprint, mtu: 400)
        let server = try DTLSEndpoint(role: .server, certificate: serverCertificate,
                                      remoteFingerprint: clientCertificate.fingerprint, mtu: 400)
        let now = DTLSTestNetwork.epoch
        var toServer = client.start(now: now)
        var sizes: [Int] = []
        while !toServer.isEmpty {
            var toClient: [[UInt8]] = []
            for datagram in toServer {
                sizes.append(datagram.count)
                toClient += server.receive(datagram, now: now).datagrams
            }
            toServer = []
            for datagram in toClient {
                sizes.append(datagram.count)
                toServer += client.receive(datagram, now: now).datagrams
            }
        }
        #expect(client.state == .connected)
        #expect(server.state == .connected)
        #expect(sizes.allSatisfy { $0 <= 400 })
        #expect(sizes.count > 4)
    }

    @Test(arguments: SRTPProfile.allCases)
    func eachProfileIsNegotiatedWhenItIsTheOnlyOne(profile: SRTPProfile) throws {
        let network = try DTLSTestNetwork(clientProfiles: [profile], serverProfiles: [profile])
        network.start()
        network.run()
        try expectWorkingKeys(network, profile: profile)
    }

    @Test func theServersPreferenceOrderDecides() throws {
        let reversed = try DTLSTestNetwork(serverProfiles: SRTPProfile.allCases.reversed())
        reversed.start()
        reversed.run()
        try expectWorkingKeys(reversed, profile: .aes128CMHMACSHA1_80)

        let subset = try DTLSTestNetwork(clientProfiles: [.aes128CMHMACSHA1_80, .aeadAES256GCM])
        subset.start()
        subset.run()
        try expectWorkingKeys(subset, profile: .aeadAES256GCM)
    }

    @Test func noCommonProfileFailsBothSides() throws {
        let network = try DTLSTestNetwork(clientProfiles: [.aeadAES128GCM], serverProfiles: [.aes128CMHMACSHA1_80])
        network.start()
        network.run()
        #expect(network.client.state == .failed)
        #expect(network.server.state == .failed)
        #expect(failure(network.clientEvents) == .noSRTPProfile)
        #expect(failure(network.serverEvents) == .noSRTPProfile)
        #expect(network.clientKeys == nil)
        #expect(network.serverKeys == nil)
    }

    @Test func emptyProfileListIsRejected() throws {
        let certificate = try DTLSCertificate.generate()
        #expect(throws: DTLSError.noSRTPProfile) {
            try DTLSEndpoint(role: .client, certificate: certificate, remoteFingerprint: certificate.fingerprint,
                             profiles: [])
        }
        #expect(throws: DTLSError.unsupportedFingerprintAlgorithm("md5")) {
            try DTLSEndpoint(role: .client, certificate: certificate,
                             remoteFingerprint: DTLSFingerprint(algorithm: "md5", bytes: [1, 2, 3]))
        }
    }

    // MARK: - Loss

    @Test func lostClientHelloIsRetransmittedAfter100Milliseconds() throws {
        let network = try DTLSTestNetwork()
        network.dropToServer = { flight, _ in flight == 0 }
        network.start()
        #expect(network.client.nextDeadline == DTLSTestNetwork.epoch + .milliseconds(100))
        network.run()
        try expectWorkingKeys(network)
        #expect(network.clientConnectedAt == DTLSTestNetwork.epoch + .milliseconds(140))
    }

    @Test func lostServerFirstFlightIsRetransmitted() throws {
        let network = try DTLSTestNetwork()
        network.dropToClient = { flight, _ in flight == 0 }
        network.start()
        network.run()
        try expectWorkingKeys(network)
        // The server resends 100 ms after its first flight (sent at 10 ms).
        #expect(network.clientConnectedAt == DTLSTestNetwork.epoch + .milliseconds(140))
    }

    @Test func lostClientFinishedFlightIsRetransmitted() throws {
        let network = try DTLSTestNetwork()
        network.dropToServer = { flight, _ in flight == 1 }
        network.start()
        network.run()
        try expectWorkingKeys(network)
        #expect(network.serverConnectedAt == DTLSTestNetwork.epoch + .milliseconds(130))
        #expect(network.clientConnectedAt == DTLSTestNetwork.epoch + .milliseconds(140))
    }

    @Test func lostServerFinishedFlightIsResentWhenTheClientRetransmits() throws {
        let network = try DTLSTestNetwork()
        network.dropToClient = { flight, _ in flight == 1 }
        network.start()
        network.run()
        try expectWorkingKeys(network)
        #expect(network.serverConnectedAt == DTLSTestNetwork.epoch + .milliseconds(30))
        // The client resends its flight at 120 ms; the connected server answers with its last flight again.
        #expect(network.clientConnectedAt == DTLSTestNetwork.epoch + .milliseconds(140))
    }

    @Test func repeatedLossBacksOffExponentially() throws {
        let network = try DTLSTestNetwork()
        network.dropToServer = { flight, _ in flight < 4 }  // ClientHello and its first three retransmissions
        network.start()
        network.run()
        try expectWorkingKeys(network)
        // Sent at 0, 100, 300, 700, 1500 ms; the fifth copy gets through.
        #expect(network.clientConnectedAt == DTLSTestNetwork.epoch + .milliseconds(1540))
    }

    @Test(arguments: 1...8)
    func randomLossBothWaysStillConnects(seed: Int) throws {
        let conditions = LinkConditions(lossRate: 0.2, delay: .milliseconds(25), jitter: .milliseconds(10))
        let network = try DTLSTestNetwork(conditions: conditions, seed: UInt64(seed))
        network.start()
        network.run()
        try expectWorkingKeys(network)
        let elapsed = try #require(network.clientConnectedAt) - DTLSTestNetwork.epoch
        #expect(elapsed < .seconds(20))
    }

    @Test func duplicatedAndReorderedDatagramsAreHarmless() throws {
        let conditions = LinkConditions(delay: .milliseconds(20), jitter: .milliseconds(30), allowsReordering: true,
                                        duplicationRate: 0.5)
        let network = try DTLSTestNetwork(conditions: conditions, seed: 42)
        network.start()
        network.run()
        try expectWorkingKeys(network)
    }

    // MARK: - Failures

    @Test func clientRejectsAServerWithTheWrongFingerprint() throws {
        let wrong = try DTLSCertificate.generate().fingerprint
        let network = try DTLSTestNetwork(clientExpects: wrong)
        network.start()
        network.run()
        #expect(network.client.state == .failed)
        #expect(failure(network.clientEvents) == .fingerprintMismatch)
        #expect(network.server.state == .failed)
        #expect(failure(network.serverEvents) == .alert("bad certificate"))
    }

    @Test func serverRejectsAClientWithTheWrongFingerprint() throws {
        let wrong = DTLSFingerprint(algorithm: "sha-256", bytes: [UInt8](repeating: 0x5A, count: 32))
        let network = try DTLSTestNetwork(serverExpects: wrong)
        network.start()
        network.run()
        #expect(network.server.state == .failed)
        #expect(failure(network.serverEvents) == .fingerprintMismatch)
        #expect(network.client.state == .failed)
        #expect(failure(network.clientEvents) == .alert("bad certificate"))
        #expect(network.clientKeys == nil)
    }

    /// Runs a lossless handshake in lock step; returns each side's events.
    func handshake(client: DTLSEndpoint, server: DTLSEndpoint) -> (client: [DTLSEvent], server: [DTLSEvent]) {
        let now = DTLSTestNetwork.epoch
        var clientEvents: [DTLSEvent] = []
        var serverEvents: [DTLSEvent] = []
        var toServer = client.start(now: now)
        while !toServer.isEmpty {
            var toClient: [[UInt8]] = []
            for datagram in toServer {
                let (out, events) = server.receive(datagram, now: now)
                toClient += out
                serverEvents += events
            }
            toServer = []
            for datagram in toClient {
                let (out, events) = client.receive(datagram, now: now)
                toServer += out
                clientEvents += events
            }
        }
        return (clientEvents, serverEvents)
    }

    @Test(arguments: ["sha-1", "sha-224", "sha-384", "sha-512"])
    func fingerprintsWithOtherHashesAreChecked(algorithm: String) throws {
        let clientCertificate = try DTLSCertificate.generate()
        let serverCertificate = try DTLSCertificate.generate()
        let serverFingerprint = try serverCertificate.fingerprint(algorithm: algorithm)
        let clientFingerprint = try clientCertificate.fingerprint(algorithm: algorithm)
        #expect(serverFingerprint.algorithm == algorithm)
        #expect(serverFingerprint.bytes.count == DTLSFingerprint.supportedAlgorithms[algorithm])

        let good = handshake(
            client: try DTLSEndpoint(role: .client, certificate: clientCertificate, remoteFingerprint: serverFingerprint),
            server: try DTLSEndpoint(role: .server, certificate: serverCertificate, remoteFingerprint: clientFingerprint))
        #expect(good.client.count == 1 && good.server.count == 1)
        if case .connected(let keys)? = good.client.first, case .connected(let serverKeys)? = good.server.first {
            #expect(keys.localMasterKey == serverKeys.remoteMasterKey)
        } else {
            Issue.record("expected both connected: \(good)")
        }

        // Same length, other bytes: rejected.
        let wrong = DTLSFingerprint(algorithm: algorithm, bytes: serverFingerprint.bytes.map { $0 ^ 1 })
        let bad = handshake(
            client: try DTLSEndpoint(role: .client, certificate: clientCertificate, remoteFingerprint: wrong),
            server: try DTLSEndpoint(role: .server, certificate: serverCertificate, remoteFingerprint: clientFingerprint))
        #expect(bad.client == [.failed(.fingerprintMismatch)])
        #expect(bad.server == [.failed(.alert("bad certificate"))])
    }

    @Test func handshakeTimesOutWhenThePeerNeverAnswers() throws {
        let certificate = try DTLSCertificate.generate()
        let client = try DTLSEndpoint(role: .client, certificate: certificate, remoteFingerprint: certificate.fingerprint)
        var now = DTLSTestNetwork.epoch
        #expect(client.start(now: now).count == 1)
        var retransmissions: [NIODeadline] = []
        var events: [DTLSEvent] = []
        while let deadline = client.nextDeadline, deadline < DTLSTestNetwork.epoch + .seconds(60) {
            now = deadline
            let result = client.tick(now: now)
            if !result.datagrams.isEmpty { retransmissions.append(now) }
            events += result.events
        }
        #expect(events == [.failed(.timeout)])
        #expect(client.state == .failed)
        #expect(client.nextDeadline == nil)
        let offsets = retransmissions.map { ($0 - DTLSTestNetwork.epoch).nanoseconds / 1_000_000 }
        #expect(Array(offsets.prefix(6)) == [100, 300, 700, 1500, 3100, 6100])
        #expect(now - DTLSTestNetwork.epoch <= .seconds(30))
        #expect(now - DTLSTestNetwork.epoch >= .seconds(20))
        // Nothing more after failing.
        #expect(client.tick(now: now + .seconds(10)).datagrams.isEmpty)
    }

    @Test func serverTimesOutWhenTheClientVanishes() throws {
        let network = try DTLSTestNetwork()
        network.dropToServer = { flight, _ in flight >= 1 }
        network.start()
        network.run()
        #expect(failure(network.serverEvents) == .timeout)
        #expect(failure(network.clientEvents) == .timeout)
        let serverFailedAt = try #require(network.serverEvents.last?.0)
        #expect(serverFailedAt - DTLSTestNetwork.epoch <= .seconds(31))
    }

    // MARK: - Alerts, close, garbage

    @Test func closeSendsCloseNotifyThatThePeerReportsAsClosed() throws {
        let network = try DTLSTestNetwork()
        network.start()
        network.run()
        try expectWorkingKeys(network)
        let alert = network.client.close()
        #expect(network.client.state == .closed)
        #expect(alert.count == 1)
        #expect(alert.first?.first == 21)  // an alert record
        let (answer, events) = network.server.receive(alert[0], now: network.now)
        #expect(events == [.closed])
        #expect(network.server.state == .closed)
        #expect(network.server.close().isEmpty)
        #expect(network.client.close().isEmpty)
        // Later datagrams are ignored.
        #expect(network.client.receive(answer.first ?? alert[0], now: network.now).events.isEmpty)
    }

    @Test func closingDuringTheHandshakeSendsNothing() throws {
        let network = try DTLSTestNetwork()
        network.start()
        #expect(network.client.close().isEmpty)
        #expect(network.client.state == .closed)
        #expect(network.client.nextDeadline == nil)
    }

    @Test func garbageIsIgnoredDuringAndAfterTheHandshake() throws {
        let network = try DTLSTestNetwork()
        var random = SeededRandom(seed: 7)
        var garbage: [[UInt8]] = [[], [0], [22], [22, 0xFE, 0xFD], [23, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 9, 0, 4, 1, 2, 3, 4]]
        for length in [1, 13, 14, 60, 300, 1500] {
            for first in [20, 21, 22, 23, 63, 0, 128] as [UInt8] {
                garbage.append([first, 0xFE, 0xFD] + (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            }
        }
        network.start()
        for datagram in garbage {
            let result = network.server.receive(datagram, now: network.now)
            #expect(result.events.isEmpty)
            #expect(result.datagrams.isEmpty)
        }
        network.run()
        try expectWorkingKeys(network)
        for datagram in garbage + network.sentToServer + network.sentToClient {
            #expect(network.server.receive(datagram, now: network.now).events.isEmpty)
            #expect(network.client.receive(datagram, now: network.now).events.isEmpty)
        }
        #expect(network.client.state == .connected)
        #expect(network.server.state == .connected)
        // Still able to close properly.
        let alert = try #require(network.server.close().first)
        #expect(network.client.receive(alert, now: network.now).events == [.closed])
    }

    @Test func undersizedProtectedRecordsAfterTheHandshakeAreDropped() throws {
        // Records of epoch 1 shorter than any ciphertext the suite can make: OpenSSL 3.0.19 would fail the whole
        // association on one (no close_notify, no answers to retransmissions afterwards).
        var random = SeededRandom(seed: 11)
        do {
            let network = try DTLSTestNetwork()
            network.start()
            network.run()
            try expectWorkingKeys(network)
            for type in [20, 21, 22, 23] as [UInt8] {
                for length in [0, 1, 4, 16, 23] {
                    let body = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    let record = [type, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 9, 0, UInt8(length)] + body
                    // Alone, and ahead of a valid-looking epoch-0 record in the same datagram.
                    for datagram in [record, record + [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0]] {
                        #expect(network.server.receive(datagram, now: network.now).events.isEmpty)
                        #expect(network.client.receive(datagram, now: network.now).events.isEmpty)
                    }
                }
            }
            #expect(network.server.state == .connected && network.client.state == .connected)
            let alert = try #require(network.server.close().first)
            #expect(network.client.receive(alert, now: network.now).events == [.closed])
        }
    }

    @Test func theRecordScreenKeepsWholeRecordsAndDropsOnlyUndersizedProtectedOnes() {
        let screen = DTLSRecordScreen(minimumProtectedLength: 24)
        let plain: [UInt8] = [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 7, 8]
        let protectedHeader: [UInt8] = [23, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 2, 0, 24]
        let protected: [UInt8] = protectedHeader + [UInt8](repeating: 5, count: 24)
        let shortHeader: [UInt8] = [21, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 3, 0, 23]
        let short: [UInt8] = shortHeader + [UInt8](repeating: 6, count: 23)
        #expect(screen.screen(plain + protected) == plain + protected)
        #expect(screen.screen(plain + short + protected) == plain + protected)
        #expect(screen.screen(short) == nil)
        // A record running past the datagram ends the scan; whole records before it stay.
        #expect(screen.screen(plain + [22, 0xFE, 0xFD, 0, 0]) == plain)
        #expect(screen.screen(Array(protected.dropLast())) == nil)
    }

    @Test func fatalAlertFromThePeerFailsTheHandshake() throws {
        // A server that offers no SRTP profile the client knows still finishes; a client whose certificate is
        // rejected receives a fatal alert. Here the alert comes from the server during the handshake.
        let wrong = DTLSFingerprint(algorithm: "sha-256", bytes: [UInt8](repeating: 0, count: 32))
        let network = try DTLSTestNetwork(serverExpects: wrong)
        network.start()
        network.run()
        guard case .alert(let name)? = failure(network.clientEvents) else {
            Issue.record("expected an alert, got \(String(describing: failure(network.clientEvents)))")
            return
        }
        #expect(!name.isEmpty)
        // Datagrams after failure are ignored.
        for datagram in network.sentToClient {
            let result = network.client.receive(datagram, now: network.now)
            #expect(result.events.isEmpty && result.datagrams.isEmpty)
        }
    }
}
