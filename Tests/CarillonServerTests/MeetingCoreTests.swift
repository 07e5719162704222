import CarillonProtocol
import CarillonRTC
import Logging
import NIOCore
import Testing

@testable import CarillonServer

/// The server's composition of one meeting (``MeetingCore``): a SUBSCRIBE's offer becomes a transport for the shell
/// to run (kept on a re-offer of the same transport, replaced on a new one), a socket's end ends its transport, and
/// mute reaches the mixer from the signaling core alone. The whole-meeting virtual-time tests drive it end to end.
@Suite struct MeetingCoreTests {
    let start = ClockReading(monotonic: NIODeadline.uptimeNanoseconds(1_000_000_000), unixNanoseconds: 1_700_000_000_000_000_000)
    let alice = AttendeeIdentity(attendeeId: "a-1", externalUserId: "alice")
    let c1 = SignalingConnectionID(1)
    let certificate = try! DTLSCertificate.generate()

    func core(media: Bool = true) -> MeetingCore {
        MeetingCore(meetingId: "m", configuration: .init(),
                    media: media ? .init(certificate: certificate,
                                         candidateAddress: STUNAddress(address: [127, 0, 0, 1], port: 4000)!) : nil,
                    logger: Logger(label: "test"), now: start.monotonic)
    }

    func frame(_ type: SdkSignalFrame.TypeEnum, _ build: (inout SdkSignalFrame) -> Void = { _ in }) -> SdkSignalFrame {
        SdkSignalFrame.with { $0.type = type; build(&$0) }
    }

    func joined(_ core: MeetingCore) {
        _ = core.accept(c1, identity: alice, now: start)
        _ = core.receive(frame(.join) { $0.join.audioSessionID = 7; $0.join.protocolVersion = 2 }, from: c1, now: start)
    }

    func subscribe(_ core: MeetingCore, ufrag: String = "Fq3z") -> [MeetingCoreEffect] {
        core.receive(frame(.subscribe) { $0.sub.sdpOffer = VideoOffer.make(ufrag: ufrag, receiveMids: []) }, from: c1,
                     now: start)
    }

    /// Each effect in a word: `start`, `end`, `ack` (SUBSCRIBE_ACK with an answer), `ack:<status>`, `frame`, `close`,
    /// `rtp`, `rtcp`, `activity`.
    func summary(_ effects: [MeetingCoreEffect]) -> [String] {
        effects.map {
            switch $0 {
            case .startTransport: "start"
            case .endTransport: "end"
            case .send(_, let frame) where frame.type == .subscribeAck:
                frame.hasError ? "ack:\(frame.error.status)" : (frame.suback.sdpAnswer.isEmpty ? "ack:empty" : "ack")
            case .send: "frame"
            case .close: "close"
            case .rtp: "rtp"
            case .recording: "recording"
            case .recordingEnded: "recordingEnded"
            case .rtcp: "rtcp"
            case .activity: "activity"
            }
        }
    }

    @Test func anOfferStartsATransportAReOfferKeepsItAndANewTransportReplacesIt() throws {
        let core = core()
        joined(core)
        let first = summary(subscribe(core))
        #expect(first.filter { $0 == "start" || $0 == "end" || $0.hasPrefix("ack") } == ["start", "ack"])
        #expect(core.attendeeId(of: c1) == "a-1")
        // The same ICE credentials again: a renegotiation on the running transport.
        let again = summary(subscribe(core))
        #expect(again.filter { $0 == "start" || $0 == "end" || $0.hasPrefix("ack") } == ["ack"])
        // New credentials: the old transport ends before the new one starts.
        let replaced = summary(subscribe(core, ufrag: "New1"))
        #expect(replaced.filter { $0 == "start" || $0 == "end" || $0.hasPrefix("ack") } == ["end", "start", "ack"])
        // The socket's end ends the transport, once.
        #expect(summary(core.disconnected(c1, now: start)).filter { $0 == "end" } == ["end"])
        #expect(core.attendeeId(of: c1) == nil)
        #expect(summary(core.transportEnded(c1, now: start)).isEmpty)
    }

    @Test func withoutMediaASubscribeIsRefusedWith501AndNoTransport() {
        let core = core(media: false)
        #expect(core.nextDeadline == nil)
        joined(core)
        // The signaling core's deadline, read after its step: the joined socket's idle timeout.
        #expect(core.nextDeadline == start.monotonic + MeetingSignalingCore.Configuration().idleTimeout)
        let effects = summary(subscribe(core))
        #expect(effects.contains("ack:501") && !effects.contains("start"))
    }

    @Test func anOfferThatCannotBeAnsweredIsRefusedWith400() {
        let core = core()
        joined(core)
        let effects = summary(core.receive(frame(.subscribe) { $0.sub.sdpOffer = "v=0\r\n" }, from: c1, now: start))
        #expect(effects.contains("ack:400") && !effects.contains("start"))
    }

    /// Mute is the signaling core's: a session that connects muted is left out of the mix at once, and AUDIO_CONTROL
    /// reaches the mixer as it changes.
    @Test func theMixerFollowsTheSignalingCoresMute() throws {
        let core = core()
        joined(core)
        _ = core.receive(frame(.audioControl) { $0.audioControl.muted = true }, from: c1, now: start)
        _ = subscribe(core)
        _ = core.transportConnected(c1, now: start)
        let participant = c1
        let mixer = try #require(core.media?.mixer)
        #expect(mixer.isMuted(participant) == true)
        _ = core.receive(frame(.audioControl) { $0.audioControl.muted = false }, from: c1, now: start)
        #expect(mixer.isMuted(participant) == false)
        // The connected session gets the mix every 20 ms: the core's deadline is the media's.
        let due = try #require(core.nextDeadline)
        #expect(core.isMediaDue(now: due))
        #expect(summary(core.tick(now: start.advanced(by: due - start.monotonic))).contains("rtp"))
    }
}
