import CarillonProtocol
import CarillonRTC
import NIOCore
import Testing

@testable import Carillon

/// The wiring of ``SessionCore`` itself (the whole-meeting virtual-time tests drive it end to end): the media socket
/// and its generations, the offer made for the bound address with the drawn identifiers, the answer that cannot be
/// used, and a session without a DTLS certificate.
@Suite struct SessionCoreTests {
    let start = SessionTime(monotonic: .uptimeNanoseconds(5_000_000_000), unixMilliseconds: 1_700_000_000_000)
    let credentials = MeetingSessionCredentials(attendeeId: "self-id", externalUserId: "me", joinToken: "token")
    let address = STUNAddress(address: [127, 0, 0, 5], port: 41_000)!
    let identifiers = SessionCore.MediaIdentifiers(audioSSRC: 0xA0D10, videoSSRC: 0xC0FFEE, rtxSSRC: 0xBEEF,
                                                   tieBreaker: 7, firstSequenceNumber: 1, firstTimestamp: 2)

    func session(certificate: Bool = true) throws -> SessionCore {
        let identifiers = self.identifiers
        return SessionCore(credentials: credentials, audioHost: "udp://127.0.0.1:3478", audioSessionId: 4242,
                           certificate: certificate ? try DTLSCertificate.generate(commonName: "test") : nil,
                           logger: ConsoleLogger(name: "test", level: .OFF), makeIdentifiers: { identifiers },
                           random: { 0 })
    }

    func frame(_ type: SdkSignalFrame.TypeEnum, _ build: (inout SdkSignalFrame) -> Void = { _ in }) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.timestampMs = 1
        frame.type = type
        build(&frame)
        return frame
    }

    /// Each effect in a word: `open`, `send:<frame type>`, `close`, `bind:<generation>`, `datagram`,
    /// `closeMedia`, `event`, `media`.
    func summary(_ effects: [SessionCoreEffect]) -> [String] {
        effects.map {
            switch $0 {
            case .openSignaling: "open"
            case .sendSignaling(let frame): "send:\(frame.type)"
            case .closeSignaling: "close"
            case .bindMediaSocket(let generation): "bind:\(generation)"
            case .sendDatagram: "datagram"
            case .closeMediaSocket: "closeMedia"
            case .event: "event"
            case .media: "media"
            }
        }
    }

    /// Started, signaling open, JOIN_ACK and INDEX received: the effects of the INDEX step.
    func joined(_ core: SessionCore) -> [SessionCoreEffect] {
        #expect(summary(core.start(configuration: AudioVideoConfiguration(), reconnectBudget: .seconds(60), now: start))
                    .contains("open"))
        _ = core.signalingOpened(now: start)
        _ = core.signalingReceived(frame(.joinAck), now: start)
        return core.signalingReceived(frame(.index), now: start)
    }

    @Test func theOfferIsMadeForTheBoundSocketAndALateBindIsIgnored() throws {
        let core = try session()
        let step = summary(joined(core))
        let generation = core.mediaGeneration
        #expect(step.contains("bind:\(generation)"))
        // A bind that completes for an abandoned generation makes no offer.
        #expect(core.mediaSocketBound(address, generation: generation - 1, now: start).isEmpty)
        let bound = core.mediaSocketBound(address, generation: generation, now: start)
        let subscribe = try #require(bound.compactMap { if case .sendSignaling(let f) = $0, f.type == .subscribe { f } else { nil } }.first)
        // The offer names the bound address as its host candidate and the drawn SSRC for audio.
        #expect(subscribe.sub.sdpOffer.contains("127.0.0.5 41000 typ host"))
        #expect(subscribe.sub.sdpOffer.contains("a=ssrc:\(identifiers.audioSSRC) "))
        // The same generation bound twice makes no second offer.
        #expect(core.mediaSocketBound(address, generation: generation, now: start).isEmpty)
        // Datagrams before the answer (no peer yet), or of another generation, go nowhere.
        #expect(core.received(datagram: [0, 1, 2], from: address, generation: generation, now: start).isEmpty)
        #expect(core.received(datagram: [0, 1, 2], from: address, generation: generation + 1, now: start).isEmpty)
    }

    /// The receive m-lines of an app's session offer transport-wide congestion control (the server estimates the
    /// downlink); a session told not to (a benchmark bot) leaves it out there and keeps it for what it sends.
    @Test(arguments: [true, false])
    func receivedVideoOffersTransportWideFeedbackUnlessTurnedOff(feedback: Bool) throws {
        let core = try session()
        core.offersReceiveFeedback = feedback
        _ = core.start(configuration: AudioVideoConfiguration(), reconnectBudget: .seconds(60), now: start)
        _ = core.signalingOpened(now: start)
        _ = core.signalingReceived(frame(.joinAck), now: start)
        _ = core.startSendingVideo(maxBitRateKbps: 0, screenContent: false, simulcast: false, highResolution: false,
                                   now: start)
        _ = core.setReceivingVideo(true, now: start)
        var source = SdkStreamDescriptor()
        source.attendeeID = "remote-id"
        source.streamID = 3
        source.groupID = 1
        source.maxBitrateKbps = 600
        source.mediaType = .video
        _ = core.signalingReceived(frame(.index) { $0.index.sources = [source] }, now: start)
        let bound = core.mediaSocketBound(address, generation: core.mediaGeneration, now: start)
        let subscribe = try #require(bound.compactMap { if case .sendSignaling(let f) = $0, f.type == .subscribe { f } else { nil } }.first)
        let offer = try SessionDescription(parsing: subscribe.sub.sdpOffer)
        let receiving = offer.media.filter { $0.direction == .recvonly }
        let sending = offer.media.filter { $0.direction == .sendonly || $0.direction == .sendrecv }
        try #require(!receiving.isEmpty && sending.contains { $0.kind == "video" })
        func offersFeedback(_ media: MediaDescription) -> Bool {
            media.extensions.contains { $0.uri == SDPExtension.transportWideCCURI }
                && media.codecs.contains { $0.feedback.contains("transport-cc") }
        }
        #expect(receiving.allSatisfy { offersFeedback($0) == feedback })
        #expect(sending.filter { $0.kind == "video" }.allSatisfy(offersFeedback))
    }

    @Test func anAnswerThatCannotBeUsedFailsTheMediaStepAndClosesTheSocket() throws {
        let core = try session()
        _ = joined(core)
        _ = core.mediaSocketBound(address, generation: core.mediaGeneration, now: start)
        let before = core.mediaGeneration
        let effects = summary(core.signalingReceived(frame(.subscribeAck) { $0.suback.sdpAnswer = "v=0 not an answer" },
                                                     now: start))
        // Failed at once: the media connection is torn down (its socket closed) and signaling reconnects.
        #expect(effects.contains("closeMedia") && effects.contains("close"))
        #expect(core.mediaGeneration > before)
        #expect(!core.signaling.isInMeeting)
    }

    @Test func withoutACertificateNoSocketIsBoundAndTheStepFails() throws {
        let core = try session(certificate: false)
        let step = summary(joined(core))
        #expect(!step.contains { $0.hasPrefix("bind:") })
        #expect(step.contains("close"))
    }
}
