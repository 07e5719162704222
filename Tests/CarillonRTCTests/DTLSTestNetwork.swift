import CarillonMeasurement
import CarillonRTC
import NIOCore

/// A client and a server endpoint joined by two simulated links, run on a virtual clock far from real time.
final class DTLSTestNetwork {
    /// A virtual start time about 58 days after boot: far from the real uptime clock.
    static let epoch = NIODeadline.uptimeNanoseconds(5_000_000_000_000)

    let client: DTLSEndpoint
    let server: DTLSEndpoint
    var toServer: SimulatedLink
    var toClient: SimulatedLink
    var now = DTLSTestNetwork.epoch
    var clientEvents: [(NIODeadline, DTLSEvent)] = []
    var serverEvents: [(NIODeadline, DTLSEvent)] = []
    /// Every datagram either side sent, by direction.
    var sentToServer: [[UInt8]] = []
    var sentToClient: [[UInt8]] = []
    /// Decides, by flight number (each call that returned datagrams) and datagram, whether a datagram is lost on
    /// its way to the server.
    var dropToServer: (_ flight: Int, _ datagram: [UInt8]) -> Bool = { _, _ in false }
    /// The same on the way to the client.
    var dropToClient: (_ flight: Int, _ datagram: [UInt8]) -> Bool = { _, _ in false }
    private var clientFlights = 0
    private var serverFlights = 0

    init(clientProfiles: [SRTPProfile] = SRTPProfile.allCases, serverProfiles: [SRTPProfile] = SRTPProfile.allCases,
         clientExpects: DTLSFingerprint? = nil, serverExpects: DTLSFingerprint? = nil,
         conditions: LinkConditions = LinkConditions(delay: .milliseconds(10)), seed: UInt64 = 1) throws {
        let clientCertificate = try DTLSCertificate.generate(commonName: "client")
        let serverCertificate = try DTLSCertificate.generate(commonName: "server")
        client = try DTLSEndpoint(role: .client, certificate: clientCertificate,
                                  remoteFingerprint: clientExpects ?? serverCertificate.fingerprint,
                                  profiles: clientProfiles)
        server = try DTLSEndpoint(role: .server, certificate: serverCertificate,
                                  remoteFingerprint: serverExpects ?? clientCertificate.fingerprint,
                                  profiles: serverProfiles)
        toServer = SimulatedLink(conditions: conditions, seed: seed)
        toClient = SimulatedLink(conditions: conditions, seed: seed &+ 1000)
    }

    /// The time the client (or server) reported `connected`, if it did.
    var clientConnectedAt: NIODeadline? { clientEvents.first { if case .connected = $0.1 { true } else { false } }?.0 }
    var serverConnectedAt: NIODeadline? { serverEvents.first { if case .connected = $0.1 { true } else { false } }?.0 }

    /// The keying material each side reported.
    var clientKeys: DTLSKeyingMaterial? {
        for (_, event) in clientEvents { if case .connected(let keys) = event { return keys } }
        return nil
    }
    var serverKeys: DTLSKeyingMaterial? {
        for (_, event) in serverEvents { if case .connected(let keys) = event { return keys } }
        return nil
    }

    /// Starts both sides.
    func start() {
        sendFromServer(server.start(now: now))
        sendFromClient(client.start(now: now))
    }

    /// Runs the event loop until nothing is left to do or `limit` of virtual time has passed.
    func run(for limit: TimeAmount = .seconds(60)) {
        let end = now + limit
        while true {
            deliver()
            let deadlines = [toServer.nextArrival, toClient.nextArrival, client.nextDeadline, server.nextDeadline]
            guard let next = deadlines.compactMap({ $0 }).min(), next <= end else { return }
            now = max(now, next)
            deliver()
            if let deadline = client.nextDeadline, deadline <= now {
                let (datagrams, events) = client.tick(now: now)
                clientEvents += events.map { (now, $0) }
                sendFromClient(datagrams)
            }
            if let deadline = server.nextDeadline, deadline <= now {
                let (datagrams, events) = server.tick(now: now)
                serverEvents += events.map { (now, $0) }
                sendFromServer(datagrams)
            }
        }
    }

    /// Hands every arrived datagram to its endpoint, sending the answers.
    func deliver() {
        var progress = true
        while progress {
            progress = false
            for datagram in toServer.receive(now: now) {
                progress = true
                let (datagrams, events) = server.receive(datagram, now: now)
                serverEvents += events.map { (now, $0) }
                sendFromServer(datagrams)
            }
            for datagram in toClient.receive(now: now) {
                progress = true
                let (datagrams, events) = client.receive(datagram, now: now)
                clientEvents += events.map { (now, $0) }
                sendFromClient(datagrams)
            }
        }
    }

    func sendFromClient(_ datagrams: [[UInt8]]) {
        guard !datagrams.isEmpty else { return }
        for datagram in datagrams {
            sentToServer.append(datagram)
            if !dropToServer(clientFlights, datagram) { toServer.send(datagram, now: now) }
        }
        clientFlights += 1
    }

    func sendFromServer(_ datagrams: [[UInt8]]) {
        guard !datagrams.isEmpty else { return }
        for datagram in datagrams {
            sentToClient.append(datagram)
            if !dropToClient(serverFlights, datagram) { toClient.send(datagram, now: now) }
        }
        serverFlights += 1
    }
}
