import CarillonMeasurement
import CarillonRTC
import NIOCore
import Testing

/// A client (controlling ICE) and a server (ICE-lite) peer connection over simulated links, in virtual time.
@Suite struct PeerConnectionTests {
    static let clientCertificate = try! DTLSCertificate.generate(commonName: "client")
    static let serverCertificate = try! DTLSCertificate.generate(commonName: "server")
    let start = NIODeadline.uptimeNanoseconds(7_000_000_000_000)
    let clientAddress = STUNAddress(address: [127, 0, 0, 1], port: 50_000)!
    let serverAddress = STUNAddress(address: [127, 0, 0, 1], port: 3478)!

    /// Two connected endpoints, the links between them and a virtual clock.
    final class Pair {
        let client: PeerConnection
        let server: PeerConnection
        var up: SimulatedLink
        var down: SimulatedLink
        var now: NIODeadline
        var clientAddress: STUNAddress
        let serverAddress: STUNAddress
        var clientEvents: [PeerConnectionEvent] = []
        var serverEvents: [PeerConnectionEvent] = []
        /// Drops the n-th DTLS datagram each way (1-based) when listed.
        var dropUpDTLS: Set<Int> = []
        var dropDownDTLS: Set<Int> = []
        private var upDTLS = 0
        private var downDTLS = 0

        init(client: PeerConnection, server: PeerConnection, conditions: LinkConditions, seed: UInt64,
             now: NIODeadline, clientAddress: STUNAddress, serverAddress: STUNAddress) {
            self.client = client
            self.server = server
            up = SimulatedLink(conditions: conditions, seed: seed)
            down = SimulatedLink(conditions: conditions, seed: seed &+ 101)
            self.now = now
            self.clientAddress = clientAddress
            self.serverAddress = serverAddress
        }

        func fromClient(_ output: PeerConnectionOutput) {
            clientEvents += output.events
            for (datagram, target) in output.datagrams where target == serverAddress {
                if (20...63).contains(datagram[0]) {
                    upDTLS += 1
                    if dropUpDTLS.contains(upDTLS) { continue }
                }
                up.send(datagram, now: now)
            }
        }

        func fromServer(_ output: PeerConnectionOutput) {
            serverEvents += output.events
            for (datagram, target) in output.datagrams where target == clientAddress {
                if (20...63).contains(datagram[0]) {
                    downDTLS += 1
                    if dropDownDTLS.contains(downDTLS) { continue }
                }
                down.send(datagram, now: now)
            }
        }

        /// Runs until `done` holds or `limit` of virtual time passes.
        func run(for limit: TimeAmount, until done: (Pair) -> Bool = { _ in false }) {
            let end = now + limit
            while now < end, !done(self) {
                let deadlines = [client.nextDeadline, server.nextDeadline, up.nextArrival, down.nextArrival]
                now = min(end, max(now, deadlines.compactMap { $0 }.min() ?? end))
                for datagram in up.receive(now: now) { fromServer(server.receive(datagram, from: clientAddress, now: now)) }
                for datagram in down.receive(now: now) { fromClient(client.receive(datagram, from: serverAddress, now: now)) }
                fromClient(client.tick(now: now))
                fromServer(server.tick(now: now))
            }
        }

        var bothConnected: Bool { client.isConnected && server.isConnected }
    }

    func makePair(conditions: LinkConditions = LinkConditions(delay: .milliseconds(10)), seed: UInt64 = 1,
                  clientDTLS: DTLSRole = .client, serverFingerprint: DTLSFingerprint? = nil,
                  serverProfiles: [SRTPProfile] = SRTPProfile.allCases) throws -> Pair {
        let clientICE = ICECredentials(usernameFragment: "cli\(seed)", password: "client-password-000000000000")
        let serverICE = ICECredentials(usernameFragment: "srv\(seed)", password: "server-password-000000000000")
        let client = try PeerConnection(configuration: PeerConnectionConfiguration(
            iceRole: .controlling(remoteCandidates: [serverAddress]), localICE: clientICE, remoteICE: serverICE,
            dtlsRole: clientDTLS, certificate: Self.clientCertificate,
            remoteFingerprint: serverFingerprint ?? Self.serverCertificate.fingerprint, tieBreaker: seed))
        let server = try PeerConnection(configuration: PeerConnectionConfiguration(
            iceRole: .lite, localICE: serverICE, remoteICE: clientICE, dtlsRole: clientDTLS == .client ? .server : .client,
            certificate: Self.serverCertificate, remoteFingerprint: Self.clientCertificate.fingerprint,
            srtpProfiles: serverProfiles))
        let pair = Pair(client: client, server: server, conditions: conditions, seed: seed, now: start,
                        clientAddress: clientAddress, serverAddress: serverAddress)
        pair.fromClient(client.start(now: start))
        pair.fromServer(server.start(now: start))
        return pair
    }

    func rtp(ssrc: UInt32, sequence: UInt16) -> [UInt8] {
        RTPPacket(payloadType: 111, sequenceNumber: sequence, timestamp: UInt32(sequence) * 960, ssrc: ssrc,
                  payload: [0xF8, 0xFF, 0xFE, UInt8(truncatingIfNeeded: sequence)]).serialized()
    }

    /// Sends `count` packets each way, one every 20 ms, and returns how many of each arrived intact.
    func exchangeMedia(_ pair: Pair, count: Int) -> (atServer: Int, atClient: Int) {
        for index in 0..<count {
            let sequence = UInt16(index)
            if let (datagram, to) = pair.client.sendRTP(rtp(ssrc: 0x1111, sequence: sequence)), to == pair.serverAddress {
                pair.up.send(datagram, now: pair.now)
            }
            if let (datagram, to) = pair.server.sendRTP(rtp(ssrc: 0x2222, sequence: sequence)), to == pair.clientAddress {
                pair.down.send(datagram, now: pair.now)
            }
            pair.run(for: .milliseconds(20))
        }
        pair.run(for: .milliseconds(500))
        func received(_ events: [PeerConnectionEvent], ssrc: UInt32) -> Int {
            events.filter {
                if case .rtp(let packet) = $0 { packet.ssrc == ssrc && packet.payload.prefix(3).elementsEqual([0xF8, 0xFF, 0xFE]) }
                else { false }
            }.count
        }
        return (received(pair.serverEvents, ssrc: 0x1111), received(pair.clientEvents, ssrc: 0x2222))
    }

    @Test(arguments: [0.0, 0.05, 0.2])
    func connectsAndCarriesMediaBothWays(loss: Double) throws {
        for seed: UInt64 in 1...4 {
            let pair = try makePair(conditions: LinkConditions(lossRate: loss, delay: .milliseconds(15)), seed: seed)
            pair.run(for: .seconds(30)) { $0.bothConnected }
            #expect(pair.bothConnected, "loss \(loss) seed \(seed)")
            #expect(pair.client.srtpProfile == .aeadAES128GCM)
            #expect(pair.clientEvents.contains(.iceConnected(serverAddress)))
            #expect(pair.serverEvents.contains(.iceConnected(clientAddress)))
            let (atServer, atClient) = exchangeMedia(pair, count: 100)
            let expected = 100.0 * (1 - loss)
            // Loss is random per datagram: allow a wide band around the expectation, but no more than was sent.
            #expect(Double(atServer) > expected * 0.7 && atServer <= 100, "server got \(atServer)")
            #expect(Double(atClient) > expected * 0.7 && atClient <= 100, "client got \(atClient)")
            if loss == 0 {
                #expect(atServer == 100 && atClient == 100)
                #expect(pair.server.statistics.rtpPacketsReceived == 100)
                #expect(pair.client.statistics.datagramsDropped == 0)
            }
        }
    }

    @Test(arguments: [[1], [2], [1, 2, 3], [3, 4]])
    func survivesLostDTLSFlights(dropped: [Int]) throws {
        let pair = try makePair()
        pair.dropUpDTLS = Set(dropped)
        pair.dropDownDTLS = Set(dropped)
        pair.run(for: .seconds(30)) { $0.bothConnected }
        #expect(pair.bothConnected)
        // A short first retransmission timer: lost flights cost well under a second each, not the default 1 s.
        #expect(pair.now - start < .seconds(Int64(2 * dropped.count)))
        let (atServer, atClient) = exchangeMedia(pair, count: 10)
        #expect(atServer == 10 && atClient == 10)
    }

    @Test func theControllingSideCanBeTheDTLSServer() throws {
        let pair = try makePair(clientDTLS: .server)
        pair.run(for: .seconds(10)) { $0.bothConnected }
        #expect(pair.bothConnected)
        let (atServer, atClient) = exchangeMedia(pair, count: 10)
        #expect(atServer == 10 && atClient == 10)
    }

    @Test func aWrongFingerprintFailsTheConnection() throws {
        let pair = try makePair(serverFingerprint: Self.clientCertificate.fingerprint)
        pair.run(for: .seconds(40)) { $0.client.state != .checking && $0.client.state != .securing }
        guard case .failed(.dtls) = pair.client.state else {
            Issue.record("client state \(pair.client.state)")
            return
        }
        #expect(!pair.server.isConnected || pair.serverEvents.contains { if case .failed = $0 { true } else { false } })
        #expect(pair.client.sendRTP(rtp(ssrc: 1, sequence: 1)) == nil)
    }

    @Test(arguments: SRTPProfile.allCases)
    func negotiatesEachSRTPProfile(profile: SRTPProfile) throws {
        let pair = try makePair(serverProfiles: [profile])
        pair.run(for: .seconds(10)) { $0.bothConnected }
        #expect(pair.client.srtpProfile == profile && pair.server.srtpProfile == profile)
        let (atServer, atClient) = exchangeMedia(pair, count: 5)
        #expect(atServer == 5 && atClient == 5)
    }

    @Test func rtcpTravelsBothWays() throws {
        let pair = try makePair()
        pair.run(for: .seconds(10)) { $0.bothConnected }
        let report = RTCPPacket.receiverReport(ssrc: 0x1111, reports: []).serialized()
        if let (datagram, _) = pair.client.sendRTCP(report) { pair.up.send(datagram, now: pair.now) }
        if let (datagram, _) = pair.server.sendRTCP(report) { pair.down.send(datagram, now: pair.now) }
        pair.run(for: .milliseconds(100))
        #expect(pair.serverEvents.contains(.rtcp([.receiverReport(ssrc: 0x1111, reports: [])])))
        #expect(pair.clientEvents.contains(.rtcp([.receiverReport(ssrc: 0x1111, reports: [])])))
    }

    @Test func receivedMediaIsDecryptedInPlaceWithoutACopy() throws {
        let pair = try makePair()
        pair.run(for: .seconds(10)) { $0.bothConnected }
        let (datagram, _) = try #require(pair.client.sendRTP(rtp(ssrc: 0x2222, sequence: 7)))
        let start = datagram.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        let end = start + UInt(datagram.count)
        let output = pair.server.receive(consume datagram, from: pair.clientAddress, now: pair.now)
        guard case .rtp(let packet)? = output.events.first else {
            Issue.record("expected an RTP event, got \(output.events)")
            return
        }
        // The payload is a slice of the very buffer that arrived: SRTP decrypted it in place.
        let payload = packet.payload.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        #expect(payload > start && payload < end)
    }

    @Test func aPacketHandedOverWithRoomForTheTagIsProtectedInPlace() throws {
        let pair = try makePair()
        pair.run(for: .seconds(10)) { $0.bothConnected }
        var packet = rtp(ssrc: 0x1111, sequence: 9)
        packet.reserveCapacity(packet.count + SRTPProfile.aeadAES128GCM.rtpTrailerLength)
        let start = packet.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        // Outside #require, whose expansion would keep a reference of its own.
        let sent = pair.client.sendRTP(consume packet)
        let (datagram, _) = try #require(sent)
        #expect(datagram.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == start)
        // A packet the caller keeps is copied, and stays as it was.
        let kept = rtp(ssrc: 0x1111, sequence: 10)
        let (copy, _) = try #require(pair.client.sendRTP(kept))
        #expect(kept == rtp(ssrc: 0x1111, sequence: 10))
        #expect(copy.count == kept.count + SRTPProfile.aeadAES128GCM.rtpTrailerLength)
        for datagram in [datagram, copy] {
            let output = pair.server.receive(datagram, from: pair.clientAddress, now: pair.now)
            guard case .rtp(let received)? = output.events.first else {
                Issue.record("expected an RTP event, got \(output.events)")
                continue
            }
            #expect(received.ssrc == 0x1111)
        }
    }

    @Test func receivingIntoAnOutputAppendsToIt() throws {
        let pair = try makePair()
        pair.run(for: .seconds(10)) { $0.bothConnected }
        let (first, _) = try #require(pair.client.sendRTP(rtp(ssrc: 0x1111, sequence: 1)))
        let (second, _) = try #require(pair.client.sendRTP(rtp(ssrc: 0x1111, sequence: 2)))
        var output = PeerConnectionOutput()
        pair.server.receive(first, from: pair.clientAddress, now: pair.now, into: &output)
        pair.server.receive(second, from: pair.clientAddress, now: pair.now, into: &output)
        let sequences = output.events.compactMap { event -> UInt16? in
            if case .rtp(let packet) = event { packet.sequenceNumber } else { nil }
        }
        #expect(sequences == [1, 2])
        #expect(output.datagrams.isEmpty)
    }

    @Test func mediaFromAnUnauthenticatedAddressIsDropped() throws {
        let pair = try makePair()
        pair.run(for: .seconds(10)) { $0.bothConnected }
        guard let (datagram, _) = pair.client.sendRTP(rtp(ssrc: 0x1111, sequence: 1)) else {
            Issue.record("not connected")
            return
        }
        let stranger = STUNAddress(address: [127, 0, 0, 66], port: 9)!
        let before = pair.server.statistics.datagramsDropped
        #expect(pair.server.receive(datagram, from: stranger, now: pair.now).events.isEmpty)
        #expect(pair.server.statistics.datagramsDropped == before + 1)
        // Garbage from the right address is dropped and counted, and the connection stays up.
        #expect(pair.server.receive([0x90, 0xC8, 1, 2], from: clientAddress, now: pair.now).events.isEmpty)
        #expect(pair.server.receive([], from: clientAddress, now: pair.now).events.isEmpty)
        #expect(pair.server.isConnected)
    }

    @Test func anICERestartMovesThePathAndKeepsDTLS() throws {
        let pair = try makePair()
        pair.run(for: .seconds(10)) { $0.bothConnected }
        // The client's network changes: a new local address, new credentials on both sides.
        pair.clientAddress = STUNAddress(address: [127, 0, 0, 2], port: 50_002)!
        let clientICE = ICECredentials(usernameFragment: "cli-new", password: "client-password-111111111111")
        let serverICE = ICECredentials(usernameFragment: "srv-new", password: "server-password-111111111111")
        pair.fromServer(pair.server.restartICE(localICE: serverICE, remoteICE: clientICE, remoteCandidates: nil, now: pair.now))
        pair.fromClient(pair.client.restartICE(localICE: clientICE, remoteICE: serverICE, remoteCandidates: [serverAddress],
                                               now: pair.now))
        pair.run(for: .seconds(5)) { $0.serverEvents.contains(.pathChanged($0.clientAddress)) }
        #expect(pair.serverEvents.contains(.pathChanged(pair.clientAddress)))
        #expect(pair.bothConnected)
        let (atServer, atClient) = exchangeMedia(pair, count: 10)
        #expect(atServer == 10 && atClient == 10)
    }

    @Test func closeIsReportedToThePeer() throws {
        let pair = try makePair()
        pair.run(for: .seconds(10)) { $0.bothConnected }
        pair.fromClient(pair.client.close())
        pair.run(for: .milliseconds(200))
        #expect(pair.serverEvents.contains(.closed))
        #expect(pair.server.state == .closed)
    }
}
