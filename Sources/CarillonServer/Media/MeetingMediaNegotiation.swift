import CarillonRTC

/// The server's side of one SUBSCRIBE offer/answer, sans-IO: the SDP answer and everything the session's peer
/// connection and the media core need from it.
///
/// The first Opus audio m-line is accepted and everything else rejected; the server is ICE-lite with the media port
/// as its only candidate, and the DTLS server unless the client insists on that role (it offers actpass).
struct MeetingMediaNegotiation {
    /// The SDP answer for SUBSCRIBE_ACK.
    let answer: String
    /// The peer connection to run for the session.
    let configuration: PeerConnectionConfiguration
    /// The SSRC this server sends the session's audio with.
    let ssrc: UInt32
    /// The Opus payload type the offer chose.
    let opusPayloadType: UInt8
    /// The negotiated id of the `ssrc-audio-level` extension, nil when the offer had none.
    let audioLevelExtensionId: UInt8?

    /// Answers `offer`; throws a typed SDP or negotiation error when it cannot be answered.
    init(offer text: String, certificate: DTLSCertificate, candidate: STUNAddress,
         ssrc: UInt32 = .random(in: 1...UInt32.max)) throws {
        let offer = try SessionDescription(parsing: text)
        let remote = try TransportDescription(remote: offer)
        let local = TransportDescription(
            ice: .random(), fingerprint: certificate.fingerprint,
            setup: remote.setup == .passive ? .active : .passive,
            candidates: [TransportDescription.hostCandidate(for: candidate)], iceLite: true)
        let answer = try AudioSessionDescription.answer(to: offer, transport: local, ssrc: ssrc, cname: "carillon")
        configuration = PeerConnectionConfiguration(
            iceRole: .lite, localICE: local.ice, remoteICE: remote.ice,
            dtlsRole: TransportDescription.dtlsRole(local: local.setup, remote: remote.setup),
            certificate: certificate, remoteFingerprint: remote.fingerprint)
        self.answer = answer.serialized
        self.ssrc = ssrc
        opusPayloadType = try AudioSessionDescription.opusPayloadType(in: answer)
        audioLevelExtensionId = answer.media.first { $0.kind == "audio" && $0.port != 0 }?
            .extensionId(for: SDPExtension.audioLevelURI)
    }
}
