import CarillonRTC
import NIOCore

/// A client and a server ``PeerConnection`` connected in process, sans-IO: their datagrams are handed to each other
/// directly and time is virtual, so a benchmark can time the media calls of a connection that is really keyed by
/// DTLS (no sockets, no event loop).
struct ConnectedPeerPair {
    /// What the pair could not do.
    struct SetupError: Error, CustomStringConvertible {
        let description: String
    }

    let client: PeerConnection
    let server: PeerConnection
    let clientAddress = STUNAddress(address: [127, 0, 0, 1], port: 50_000)!
    let serverAddress = STUNAddress(address: [127, 0, 0, 1], port: 3478)!
    private(set) var now: NIODeadline

    /// Connects a pair that negotiates `profile` (ICE, DTLS handshake, SRTP keys), in well under a second.
    init(profile: SRTPProfile) throws {
        let clientCertificate = try DTLSCertificate.generate(commonName: "bench-client")
        let serverCertificate = try DTLSCertificate.generate(commonName: "bench-server")
        let clientICE = ICECredentials.random(), serverICE = ICECredentials.random()
        client = try PeerConnection(configuration: PeerConnectionConfiguration(
            iceRole: .controlling(remoteCandidates: [serverAddress]), localICE: clientICE, remoteICE: serverICE,
            dtlsRole: .client, certificate: clientCertificate, remoteFingerprint: serverCertificate.fingerprint))
        server = try PeerConnection(configuration: PeerConnectionConfiguration(
            iceRole: .lite, localICE: serverICE, remoteICE: clientICE, dtlsRole: .server,
            certificate: serverCertificate, remoteFingerprint: clientCertificate.fingerprint, srtpProfiles: [profile]))
        now = .now()
        var pending = client.start(now: now).datagrams + server.start(now: now).datagrams
        for _ in 0..<10_000 where !(client.isConnected && server.isConnected) {
            if pending.isEmpty {
                // Nothing in flight: jump to the next timer.
                now = [client.nextDeadline, server.nextDeadline].compactMap { $0 }.min() ?? now + .milliseconds(10)
                pending = client.tick(now: now).datagrams + server.tick(now: now).datagrams
                continue
            }
            let (datagram, target) = pending.removeFirst()
            let output = target == serverAddress
                ? server.receive(datagram, from: clientAddress, now: now)
                : client.receive(datagram, from: serverAddress, now: now)
            pending += output.datagrams
        }
        guard client.isConnected, server.isConnected, server.srtpProfile == profile else {
            throw SetupError(description: "the in-process peer connections did not connect with \(profile)")
        }
    }
}
