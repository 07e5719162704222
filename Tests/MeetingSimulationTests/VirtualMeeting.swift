import CarillonCodecs
import CarillonMeasurement
import CarillonProtocol
import CarillonRTC
import Logging
import NIOCore

@testable import Carillon
@testable import CarillonServer

/// A whole meeting in virtual time: the SDK's own ``SessionCore`` for each attendee (signaling, audio, video and its
/// `PeerConnection`, wired as in the product), the server's signaling and media cores with real `PeerConnection`s
/// (ICE, DTLS, SRTP), over seeded `SimulatedLink`s. No socket, no thread, no real clock: the loop jumps from deadline
/// to deadline, so a minute of meeting takes seconds, and the same seed gives the same run.
///
/// The client side is the product's composition: this harness only does what `SessionEngine` does as a shell (moves
/// frames and datagrams, gives the clock, a tone for the microphone and a pattern for the camera, and records what
/// the app would see). The server side is the product's ``MeetingCore`` (signaling and media wired together, the
/// transports negotiated); this harness does what `MeetingRoom` and `MeetingMedia` do as its shell: runs the peer
/// connections it starts and moves their datagrams. Signaling frames travel reliably and in order after ``signalingDelay``, as over TCP.
final class VirtualMeeting {
    /// One attendee: its SDK session core, its microphone (a tone or silence), its camera and what it played and saw.
    final class Attendee {
        let name: String
        let identity: AttendeeIdentity
        /// The SDK's session, as the product composes it.
        let session: SessionCore
        /// Its parts, for the tests' questions.
        var signaling: SignalingSessionCore { session.signaling }
        var media: SessionMediaCore { session.media }
        var video: SessionVideoCore { session.video }
        let address: STUNAddress
        var tone: ToneGenerator?
        var audioConfiguration = AudioVideoConfiguration()
        /// The server's name for the attendee's current socket.
        var connection: SignalingConnectionID?
        /// The core's media generation the attendee's UDP socket is bound for (nil: none bound).
        var mediaSocket: Int?
        /// Conditions of the attendee's links, each way.
        var up: SimulatedLink
        var down: SimulatedLink
        /// What the attendee played, frame by frame (20 ms each), from its first frame.
        var played: [AudioFrame] = []
        var events: [SessionEvent] = []
        /// The volume updates among ``events``, with when they came (what an active-speaker detector is fed).
        var volumeUpdates: [(updates: [VolumeUpdate], at: NIODeadline)] = []
        var metrics: [[ObservableMetric: Double]] = []
        /// The CLIENT_METRIC frames the session sent.
        var clientMetrics: [SdkClientMetricFrame] = []
        var poor = 0
        var recovered = 0
        // Video.
        /// Every SUBSCRIBE the session sent, in order.
        var subscribes: [SdkSubscribeFrame] = []
        /// The attendee's camera: a pattern in its colour at 320x180, 15 fps, once it sends video.
        var camera: VideoTestPattern?
        var cameraFrame = 0
        var nextCameraFrame: NIODeadline?
        /// Every decoded remote frame: (attendee, counter read from the picture, colour distance, time).
        var receivedFrames: [(attendeeId: String, counter: Int?, color: VideoTestPattern.Color?, at: NIODeadline)] = []
        /// Remote videos that ended (nil frames), by attendee.
        var endedVideos: [String] = []
        /// The video ids (tile ids) each remote attendee's frames and announcements came under, in order of first use.
        var videoIds: [String: [Int]] = [:]
        /// Remote videos the server reported stopped at their sender (`pausedForPoorConnection`), by attendee.
        var pausedVideos: [(attendeeId: String, at: NIODeadline)] = []
        /// The camera stops giving pictures while this is set (the session keeps sending: a stalled source).
        var cameraStalled = false
        /// S→C PAUSE (true) and RESUME (false) frames the session received, with their group ids.
        var serverPauses: [(groupIds: [UInt32], paused: Bool, at: NIODeadline)] = []
        /// The newest measured bitrate (BITRATES, bit/s) of each stream, by stream id.
        var streamBitrates: [UInt32: UInt32] = [:]
        /// The size of every decoded remote frame, in the order of ``receivedFrames``.
        var receivedSizes: [(width: Int, height: Int)] = []
        /// BITRATES `server_available_outgoing_bitrate` values received, kbps.
        var serverEstimates: [(kbps: UInt32, at: NIODeadline)] = []

        func receivedVideo(_ image: I420Image?, videoId: Int, from attendeeId: String, at time: NIODeadline) {
            noteVideoId(videoId, of: attendeeId)
            guard let image else {
                endedVideos.append(attendeeId)
                return
            }
            let reading = VideoPatternReading(image)
            receivedSizes.append((image.width, image.height))
            receivedFrames.append((attendeeId, reading.counter, reading.nearestColor(in: VideoTestPattern.Color.palette, tolerance: 40), time))
        }

        func noteVideoId(_ videoId: Int, of attendeeId: String) {
            if videoIds[attendeeId]?.contains(videoId) != true { videoIds[attendeeId, default: []].append(videoId) }
        }

        init(name: String, index: Int, frequency: Double?, conditions: LinkConditions, seed: UInt64) throws {
            self.name = name
            identity = AttendeeIdentity(attendeeId: "attendee-\(name)", externalUserId: name)
            // The random parts of each media connection fixed by the attendee's index, so a seed gives one run.
            let ssrc = 0x1000 + UInt32(index)
            let identifiers = SessionCore.MediaIdentifiers(
                audioSSRC: ssrc, videoSSRC: 0x5000 + UInt32(index), rtxSSRC: 0x6000 + UInt32(index),
                tieBreaker: UInt64(ssrc) &* 0x9E37_79B9, firstSequenceNumber: UInt16(truncatingIfNeeded: ssrc &* 7_919),
                firstTimestamp: ssrc &* 104_729)
            session = SessionCore(
                credentials: MeetingSessionCredentials(attendeeId: identity.attendeeId, externalUserId: name, joinToken: "token-\(name)"),
                audioHost: "udp://127.0.0.1:3478", audioSessionId: UInt64(index + 1),
                certificate: try DTLSCertificate.generate(commonName: name), logger: ConsoleLogger(name: name, level: .OFF),
                makeIdentifiers: { identifiers }, random: { 0.5 })
            address = STUNAddress(address: [127, 0, 0, UInt8(10 + index)], port: 40_000)!
            tone = frequency.map { ToneGenerator(frequency: $0, amplitude: 0.3) }
            up = SimulatedLink(conditions: conditions, seed: seed &+ UInt64(2 * index))
            down = SimulatedLink(conditions: conditions, seed: seed &+ UInt64(2 * index + 1))
        }

        /// What was played from frame `frame` on, downmixed to mono 48 kHz (the session's audio mode decides the
        /// format it plays in; Chime's default is stereo).
        func samples(from frame: Int) -> [Int16] { played.dropFirst(frame).flatMap { $0.monoDownmix().samples } }
    }

    /// How long a signaling frame takes each way.
    var signalingDelay = TimeAmount.milliseconds(10)
    /// A busy server: each of its meeting core's deadlines is served up to this late, at random (seeded).
    var serverLateness = TimeAmount.zero
    /// The server core's deadline being waited for and when it will be served (``serverLateness``).
    private var lateServerTick: (due: NIODeadline, at: NIODeadline)?
    private var lateness = SeededRandom(seed: 77)
    private(set) var now = NIODeadline.uptimeNanoseconds(1_000_000_000)
    private var wallNanoseconds: UInt64 = 1_800_000_000_000_000_000
    private(set) var server: MeetingCore
    private let signalingConfiguration: MeetingSignalingCore.Configuration
    let serverCertificate: DTLSCertificate
    let serverAddress = STUNAddress(address: [127, 0, 0, 1], port: 3478)!
    private(set) var attendees: [Attendee] = []
    /// The transports the server core started, as the media port runs them.
    private var serverPeers: [SignalingConnectionID: PeerConnection] = [:]
    private var nextConnection: UInt64 = 1
    /// Signaling frames in flight, in order of arrival.
    private var inFlight: [(arrival: NIODeadline, delivery: Delivery)] = []
    private let seed: UInt64

    private enum Delivery {
        case toServer(SignalingConnectionID, SdkSignalFrame)
        case toClient(Attendee, SdkSignalFrame)
        case opened(Attendee)
        case closedAtClient(Attendee, code: UInt16)
        case closedAtServer(SignalingConnectionID)
    }

    init(seed: UInt64, signaling: MeetingSignalingCore.Configuration = .init()) throws {
        self.seed = seed
        signalingConfiguration = signaling
        let certificate = try DTLSCertificate.generate(commonName: "carillon")
        serverCertificate = certificate
        server = Self.makeServer(seed: seed, signaling: signaling, certificate: certificate, address: serverAddress, now: now)
    }

    /// The server's core of the meeting, its SSRCs drawn from a seeded source (a seed gives one run).
    private static func makeServer(seed: UInt64, signaling: MeetingSignalingCore.Configuration, certificate: DTLSCertificate,
                                   address: STUNAddress, now: NIODeadline) -> MeetingCore {
        var ssrcs = SeededRandom(seed: 99)
        let setup = MeetingCore.MediaSetup(certificate: certificate, candidateAddress: address) {
            UInt32(truncatingIfNeeded: ssrcs.next() % UInt64(UInt32.max)) + 1
        }
        return MeetingCore(meetingId: "meeting-\(seed)", configuration: signaling, media: setup,
                           logger: Logging.Logger(label: "virtual-meeting"), now: now)
    }

    // MARK: Attendees

    /// Adds an attendee that speaks `frequency` (silence when nil) over links with `conditions`, and starts its session.
    @discardableResult
    func join(_ name: String, frequency: Double?, conditions: LinkConditions = LinkConditions(delay: .milliseconds(20)),
              configure: (Attendee) -> Void = { _ in }) throws -> Attendee {
        let attendee = try Attendee(name: name, index: attendees.count, frequency: frequency, conditions: conditions,
                                    seed: seed &* 1_000)
        configure(attendee)
        attendees.append(attendee)
        client(attendee) { $0.start(configuration: attendee.audioConfiguration, reconnectBudget: .seconds(30), now: $1) }
        return attendee
    }

    /// Starts sending a camera in `color` (`startLocalVideo`, unless not `sending`) and receiving remote video
    /// (`startRemoteVideo`).
    /// With `simulcast` the camera (`width`×`height`) is sent in the SDK's simulcast layers, without the 400 kbps cap;
    /// `maxBitRateKbps` sets the app's cap (`LocalVideoConfiguration.maxBitRateKbps`) instead.
    func startVideo(_ attendee: Attendee, color: VideoTestPattern.Color, sending: Bool = true, receive: Bool = true,
                    simulcast: Bool = false, width: Int = 320, height: Int = 180, maxBitRateKbps: Int? = nil) throws {
        if sending {
            let camera = try VideoTestPattern(width: width, height: height, color: color)
            attendee.camera = camera
            attendee.nextCameraFrame = now
            let capKbps = maxBitRateKbps ?? (simulcast ? 0 : 400)
            client(attendee) {
                $0.startSendingVideo(maxBitRateKbps: UInt32(capKbps), screenContent: false, simulcast: simulcast,
                                     highResolution: false, now: $1)
            }
            // The camera's first picture: its size goes into the offer (nothing is sent before media is up).
            client(attendee) { $0.videoFrame(camera.image(frame: 0), timestampNanoseconds: Int64(now.uptimeNanoseconds), now: $1) }
        }
        if receive { client(attendee) { $0.setReceivingVideo(true, now: $1) } }
    }

    /// Ends an attendee's session (`audioVideo.stop()`): LEAVE, then its media and socket close.
    func leave(_ attendee: Attendee) {
        client(attendee) { $0.stop(now: $1) }
    }

    /// Stops an attendee's camera (`stopLocalVideo`): the session renegotiates without sending video.
    func stopVideo(_ attendee: Attendee) {
        attendee.camera = nil
        client(attendee) { $0.stopSendingVideo(now: $1) }
    }

    /// Sets an attendee's remote video subscriptions, as `updateVideoSourceSubscriptions` does (by attendee id).
    func updateVideoSubscriptions(_ attendee: Attendee, _ added: [String: SessionMediaPlan.ReceivePreference],
                                  removed: [String] = []) {
        client(attendee) { $0.updateVideoSubscriptions(addedOrUpdated: added, removed: removed, now: $1) }
    }

    /// Mutes or unmutes an attendee, as `realtimeLocalMute()` does.
    func setMuted(_ attendee: Attendee, _ muted: Bool) {
        client(attendee) { $0.setMuted(muted, now: $1) }
    }

    /// What a restarted `carillon serve` looks like to the sessions: every WebSocket closes abnormally (1006) and
    /// every media connection is gone at once, with what was in flight to the server; the meeting comes back with new
    /// signaling and media cores (its attendees are in the store, so they may join again).
    func restartServer() {
        inFlight.removeAll { if case .toServer = $0.delivery { true } else if case .closedAtServer = $0.delivery { true } else { false } }
        serverPeers = [:]
        server = Self.makeServer(seed: seed, signaling: signalingConfiguration, certificate: serverCertificate,
                                 address: serverAddress, now: now)
        for attendee in attendees where attendee.connection != nil { send(.closedAtClient(attendee, code: 1006)) }
    }

    // MARK: Running

    /// Runs until `end` (virtual), processing every deadline on the way.
    func run(until end: NIODeadline) throws {
        var stepsAtThisInstant = 0
        while true {
            guard let next = nextDeadline(), next <= end else { break }
            // A deadline that a step does not consume would spin here forever: fail instead of hanging the suite.
            stepsAtThisInstant = next > now ? 0 : stepsAtThisInstant + 1
            guard stepsAtThisInstant < Self.stepsPerInstantLimit else { throw Stalled(at: now) }
            // The wall clock moves with virtual time (NTP timestamps in reports, round trips from them).
            advanceClock(to: next)
            try step()
        }
        advanceClock(to: end)
    }

    /// More steps than this at one virtual instant mean some deadline is never consumed.
    static let stepsPerInstantLimit = 10_000

    /// The simulation stopped advancing: a deadline at or before `now` that no step consumes.
    struct Stalled: Error, CustomStringConvertible {
        let at: NIODeadline
        var description: String { "virtual time stopped advancing at \(at.uptimeNanoseconds) ns: a deadline is never consumed" }
    }

    /// Runs for `duration` of virtual time.
    func run(for duration: TimeAmount) throws { try run(until: now + duration) }

    private func advanceClock(to time: NIODeadline) {
        if time > now {
            wallNanoseconds += UInt64((time - now).nanoseconds)
            now = time
        }
    }

    private var sessionTime: SessionTime { SessionTime(monotonic: now, unixNanoseconds: wallNanoseconds) }
    private var clockReading: ClockReading { ClockReading(monotonic: now, unixNanoseconds: Int64(wallNanoseconds)) }

    private func nextDeadline() -> NIODeadline? {
        var deadlines: [NIODeadline?] = [inFlight.first?.arrival, serverTick]
        deadlines += serverPeers.values.map(\.nextDeadline)
        for attendee in attendees {
            deadlines += [attendee.session.nextDeadline, attendee.up.nextArrival, attendee.down.nextArrival,
                          attendee.video.isSending ? attendee.nextCameraFrame : nil]
        }
        return deadlines.compactMap { $0 }.min()
    }

    /// When the server's core is next ticked: its deadline, made late by up to ``serverLateness`` (a busy loop is
    /// late for every timer).
    private var serverTick: NIODeadline? {
        guard let due = server.nextDeadline else { return nil }
        guard serverLateness > .zero else { return due }
        if let late = lateServerTick, late.due == due { return late.at }
        let at = due + .nanoseconds(Int64(lateness.next() % UInt64(serverLateness.nanoseconds + 1)))
        lateServerTick = (due, at)
        return at
    }

    /// Everything due at `now`, in a fixed order (so a seed gives one run).
    private func step() throws {
        while let first = inFlight.first, first.arrival <= now {
            inFlight.removeFirst()
            deliver(first.delivery)
        }
        for attendee in attendees {
            for datagram in attendee.up.receive(now: now) {
                guard let connection = attendee.connection, let peer = serverPeers[connection] else { continue }
                serverTransport(connection, peer.receive(datagram, from: attendee.address, now: now))
            }
            for datagram in attendee.down.receive(now: now) {
                guard let generation = attendee.mediaSocket else { continue }
                client(attendee) { $0.received(datagram: datagram, from: serverAddress, generation: generation, now: $1) }
            }
        }
        for (connection, peer) in serverPeers.sorted(by: { $0.key < $1.key }) {
            if let due = peer.nextDeadline, due <= now { serverTransport(connection, peer.tick(now: now)) }
        }
        for attendee in attendees {
            if let due = attendee.session.nextDeadline, due <= now {
                // The microphone gives 20 ms when the session's audio clock asks for it.
                let captured = attendee.session.isAudioFrameDue(now: now)
                    ? attendee.tone?.next() ?? .silence(format: .mono48k, milliseconds: 20) : nil
                client(attendee) { $0.tick(now: $1, captured: captured) }
            }
            if let camera = attendee.camera, attendee.video.isSending, let due = attendee.nextCameraFrame, due <= now {
                // A stalled camera keeps its clock and gives nothing.
                attendee.nextCameraFrame = due + .nanoseconds(1_000_000_000 / 15)
                if !attendee.cameraStalled {
                    let picture = camera.image(frame: attendee.cameraFrame)
                    attendee.cameraFrame += 1
                    client(attendee) { $0.videoFrame(picture, timestampNanoseconds: Int64(now.uptimeNanoseconds), now: $1) }
                }
            }
        }
        if let due = serverTick, due <= now { serverStep { $0.tick(now: $1) } }
    }

    // MARK: Client side (the shell's part of what SessionEngine does)

    /// Steps an attendee's session core and does what it asks, as `SessionEngine` would: frames to the server,
    /// datagrams onto the uplink, a socket bound at once, and what the app would see recorded.
    private func client(_ attendee: Attendee, _ step: (SessionCore, SessionTime) -> [SessionCoreEffect]) {
        for effect in step(attendee.session, sessionTime) {
            switch effect {
            case .openSignaling:
                if let old = attendee.connection { send(.closedAtServer(old)) }
                let connection = SignalingConnectionID(nextConnection)
                nextConnection += 1
                attendee.connection = connection
                serverStep { $0.accept(connection, identity: attendee.identity, now: $1) }
                send(.opened(attendee))
            case .sendSignaling(let frame):
                if frame.type == .subscribe { attendee.subscribes.append(frame.sub) }
                if frame.type == .clientMetric { attendee.clientMetrics.append(frame.clientMetric) }
                if let connection = attendee.connection { send(.toServer(connection, frame)) }
            case .closeSignaling:
                if let connection = attendee.connection { send(.closedAtServer(connection)) }
                attendee.connection = nil
            case .bindMediaSocket(let generation):
                attendee.mediaSocket = generation
                client(attendee) { $0.mediaSocketBound(attendee.address, generation: generation, now: $1) }
            case .sendDatagram(let datagram, _):
                attendee.up.send(datagram, now: now)
            case .closeMediaSocket:
                attendee.mediaSocket = nil
            case .event(let event):
                attendee.events.append(event)
                if case .volumes(let updates) = event { attendee.volumeUpdates.append((updates, now)) }
            case .media(let media):
                appSees(media, attendee)
            }
        }
    }

    /// What the devices and the app get from the media side: played audio, remote video, metrics, verdicts.
    private func appSees(_ effect: SessionMediaEffect, _ attendee: Attendee) {
        switch effect {
        case .play(let frame):
            attendee.played.append(frame)
        case .remoteVideoFrame(let image, _, let videoId, let attendeeId):
            attendee.receivedVideo(image, videoId: videoId, from: attendeeId, at: now)
        case .remoteVideoArrived(_, _, _, let videoId, let attendeeId):
            attendee.noteVideoId(videoId, of: attendeeId)
            // What an app does when the tile appears: binds a view, so the video is decoded from then on.
            client(attendee) { $0.setRemoteVideoDecoded(true, videoId: videoId, now: $1) }
        case .remoteVideoPausedAtSource(_, let attendeeId):
            attendee.pausedVideos.append((attendeeId, now))
        case .metrics(let metrics):
            attendee.metrics.append(metrics)
        case .connectionBecamePoor:
            attendee.poor += 1
        case .connectionRecovered:
            attendee.recovered += 1
        case .openDevices, .closeDevices, .videoStatistics, .sendRTP, .sendRTCP, .videoMetrics, .clientMetric, .reconnect:
            break
        }
    }

    // MARK: Server side (what MeetingRoom and MeetingMedia do as the core's shell)

    private func serverStep(_ step: (MeetingCore, ClockReading) -> [MeetingCoreEffect]) {
        performServer(step(server, clockReading))
    }

    private func performServer(_ effects: [MeetingCoreEffect]) {
        for effect in effects {
            switch effect {
            case .send(let targets, let frame):
                for target in targets {
                    if let attendee = attendees.first(where: { $0.connection == target }) { send(.toClient(attendee, frame)) }
                }
            case .close(let target, let code):
                if let attendee = attendees.first(where: { $0.connection == target }) { send(.closedAtClient(attendee, code: code)) }
            case .startTransport(let connection, let peer, _):
                serverPeers[connection] = peer
                serverTransport(connection, peer.start(now: now))
            case .endTransport(let connection):
                guard let peer = serverPeers.removeValue(forKey: connection) else { continue }
                let attendee = attendees.first { $0.connection == connection }
                for (datagram, _) in peer.close().datagrams { attendee?.down.send(datagram, now: now) }
            case .rtp(let connection, let packet), .rtcp(let connection, let packet):
                let isRTP: Bool = if case .rtp = effect { true } else { false }
                guard let peer = serverPeers[connection], let attendee = attendees.first(where: { $0.connection == connection }),
                      let (datagram, _) = isRTP ? peer.sendRTP(packet) : peer.sendRTCP(packet) else { continue }
                attendee.down.send(datagram, now: now)
            case .activity, .recording, .recordingEnded:
                // No simulated meeting records (MeetingRecorderTests drive the recorder).
                break
            }
        }
    }

    /// What one of the server's transports sends and reports: datagrams onto the attendee's downlink, the rest to
    /// the core.
    private func serverTransport(_ connection: SignalingConnectionID, _ output: PeerConnectionOutput) {
        let attendee = attendees.first { $0.connection == connection }
        for (datagram, _) in output.datagrams { attendee?.down.send(datagram, now: now) }
        for event in output.events {
            switch event {
            case .connected:
                serverStep { $0.transportConnected(connection, now: $1) }
            case .rtp(let packet):
                var outputs: [MeetingMediaOutput] = []
                let effects = server.receive(packet, from: connection, now: now, clock: { clockReading }, into: &outputs)
                // The packets first, then what they meant for signaling, as the room sends them.
                performServer(outputs.map { output -> MeetingCoreEffect in
                    switch output {
                    case .rtp(let connection, let packet): .rtp(connection, packet)
                    case .rtcp(let connection, let packet): .rtcp(connection, packet)
                    default: preconditionFailure("MeetingCore leaves only packets in a packet's outputs")
                    }
                } + effects)
            case .rtcp(let packets):
                serverStep { $0.receive(packets, from: connection, now: $1) }
            case .failed, .closed:
                serverStep { $0.transportEnded(connection, now: $1) }
            case .iceConnected, .pathChanged:
                break
            }
        }
    }

    // MARK: Signaling transport

    private func send(_ delivery: Delivery) {
        // Reliable and ordered, like one TCP connection each way.
        let arrival = max(now + signalingDelay, inFlight.last?.arrival ?? now)
        inFlight.append((arrival, delivery))
    }

    private func deliver(_ delivery: Delivery) {
        switch delivery {
        case .toServer(let connection, let frame):
            serverStep { $0.receive(frame, from: connection, now: $1) }
        case .toClient(let attendee, let frame):
            if frame.type == .pause || frame.type == .resume, !frame.pause.groupIds.isEmpty {
                attendee.serverPauses.append((frame.pause.groupIds, frame.type == .pause, now))
            }
            if frame.type == .bitrates {
                for rate in frame.bitrates.bitrates { attendee.streamBitrates[rate.sourceStreamID] = rate.avgBitrateBps }
            }
            if frame.type == .bitrates, frame.bitrates.hasServerAvailableOutgoingBitrate {
                attendee.serverEstimates.append((frame.bitrates.serverAvailableOutgoingBitrate, now))
            }
            client(attendee) { $0.signalingReceived(frame, now: $1) }
        case .opened(let attendee):
            client(attendee) { $0.signalingOpened(now: $1) }
        case .closedAtClient(let attendee, let code):
            attendee.connection = nil
            client(attendee) { $0.signalingClosed(code: code, now: $1) }
        case .closedAtServer(let connection):
            serverStep { $0.disconnected(connection, now: $1) }
        }
    }
}
