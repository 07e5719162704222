import CarillonRTC

/// The client's reading of the server's SDP answer, sans-IO: the peer connection to run (a controlling ICE agent
/// towards the answer's candidates, DTLS as negotiated from this side's `actpass`) and what the audio needs.
struct SessionMediaAnswer {
    /// The peer connection to run.
    let configuration: PeerConnectionConfiguration
    /// The Opus payload type the answer kept.
    let opusPayloadType: UInt8
    /// The negotiated id of the `ssrc-audio-level` extension, nil when the answer dropped it.
    let audioLevelExtensionId: UInt8?

    /// Reads `answer` to the offer made with `local`; throws a typed SDP or negotiation error when it is unusable.
    init(answer text: String, local: TransportDescription, certificate: DTLSCertificate) throws {
        let answer = try SessionDescription(parsing: text)
        let remote = try TransportDescription(remote: answer)
        opusPayloadType = try AudioSessionDescription.opusPayloadType(in: answer)
        audioLevelExtensionId = answer.media.first { $0.kind == "audio" && $0.port != 0 }?
            .extensionId(for: SDPExtension.audioLevelURI)
        configuration = PeerConnectionConfiguration(
            iceRole: .controlling(remoteCandidates: remote.udpAddresses()), localICE: local.ice,
            remoteICE: remote.ice, dtlsRole: TransportDescription.dtlsRole(local: .actpass, remote: remote.setup),
            certificate: certificate, remoteFingerprint: remote.fingerprint)
    }
}
