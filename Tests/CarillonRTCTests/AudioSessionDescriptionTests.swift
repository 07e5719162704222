import CarillonRTC
import Foundation
import Testing

/// Offers and answers against descriptions captured from Chromium 156 and aiortc 1.16 (the fuzz seed corpus).
@Suite struct AudioSessionDescriptionTests {
    static func captured(_ name: String) throws -> SessionDescription {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/corpus/sdp/\(name)")
        return try SessionDescription(parsing: String(contentsOf: url, encoding: .utf8))
    }

    static let certificate = try! DTLSCertificate.generate()

    func transport(setup: SDPSetupRole, lite: Bool) -> TransportDescription {
        TransportDescription(
            ice: ICECredentials(usernameFragment: "abcd", password: "0123456789abcdefghijklmn"),
            fingerprint: Self.certificate.fingerprint, setup: setup,
            candidates: [TransportDescription.hostCandidate(for: STUNAddress(address: [127, 0, 0, 1], port: 40_000)!)],
            iceLite: lite)
    }

    @Test func answersChromiumsSimulcastOfferWithAudioOnly() throws {
        let offer = try Self.captured("chromium-offer-simulcast")
        #expect(offer.media.map(\.kind) == ["audio", "video", "video"])
        let answer = try AudioSessionDescription.answer(to: offer, transport: transport(setup: .passive, lite: true), ssrc: 42)
        #expect(answer.media.count == 3)
        #expect(answer.media.map(\.mid) == offer.media.map(\.mid))
        #expect(answer.media[0].port == 40_000 && answer.media[1].port == 0 && answer.media[2].port == 0)
        #expect(answer.media[0].codecs.map(\.payloadType) == [111])
        #expect(answer.media[0].codecs[0].parameter("useinbandfec") == "1")
        #expect(answer.bundleGroups == [["0"]])
        #expect(answer.iceLite)
        #expect(answer.media[0].setup == .passive && answer.media[0].direction == .sendrecv)
        #expect(answer.media[0].ssrcs.map(\.ssrc) == [42])
        // Only the extensions this side understands, with the offer's ids.
        #expect(answer.media[0].extensions.map(\.id) == [1, 4])
        // What this side emits parses back to the same thing.
        #expect(try SessionDescription(parsing: answer.serialized) == answer)
        #expect(try AudioSessionDescription.opusPayloadType(in: answer) == 111)
    }

    @Test func readsTheRemoteTransportOfChromiumAndAiortc() throws {
        let chromium = try TransportDescription(remote: Self.captured("chromium-offer-simulcast"))
        #expect(chromium.setup == .actpass)
        #expect(chromium.fingerprint.algorithm == "sha-256" && chromium.fingerprint.bytes.count == 32)
        #expect(!chromium.iceLite)
        let aiortc = try TransportDescription(remote: Self.captured("aiortc-offer"))
        #expect(aiortc.setup == .actpass)
        #expect(aiortc.udpAddresses() == [STUNAddress(address: [127, 0, 0, 1], port: aiortc.candidates[0].port)!])
    }

    @Test func anOfferWithoutOpusCannotBeAnswered() throws {
        var offer = try Self.captured("aiortc-offer")
        for index in offer.media.indices where offer.media[index].kind == "audio" {
            offer.media[index].codecs.removeAll { $0.name.lowercased() == "opus" }
        }
        #expect(throws: SDPNegotiationError.self) {
            try AudioSessionDescription.answer(to: offer, transport: transport(setup: .passive, lite: true), ssrc: 1)
        }
    }

    @Test func theOfferAnnouncesItsTransportAndParsesBack() throws {
        let offer = AudioSessionDescription.offer(transport: transport(setup: .actpass, lite: false), ssrc: 7)
        let parsed = try SessionDescription(parsing: offer.serialized)
        let remote = try TransportDescription(remote: parsed)
        #expect(remote.ice.usernameFragment == "abcd")
        #expect(remote.fingerprint == Self.certificate.fingerprint)
        #expect(remote.udpAddresses() == [STUNAddress(address: [127, 0, 0, 1], port: 40_000)!])
        #expect(remote.setup == .actpass)
    }

    @Test func setupRolesFollowRFC8842() {
        #expect(TransportDescription.dtlsRole(local: .actpass, remote: .active) == .server)
        #expect(TransportDescription.dtlsRole(local: .actpass, remote: .passive) == .client)
        #expect(TransportDescription.dtlsRole(local: .passive, remote: .actpass) == .server)
        #expect(TransportDescription.dtlsRole(local: .active, remote: .actpass) == .client)
    }
}
