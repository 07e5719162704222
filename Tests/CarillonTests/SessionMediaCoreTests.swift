import CarillonCodecs
import CarillonProtocol
import CarillonRTC
import NIOCore
import Testing

@testable import Carillon

/// The session's media core in virtual time: the 20 ms grid, sender reports, metrics, CLIENT_METRIC, health verdicts,
/// mute and capabilities, fed a scripted stream made by a second send pipeline standing in for the server's mixer.
@Suite struct SessionMediaCoreTests {
    /// A whole second of wall clock, so the NTP fractions of whole milliseconds later are exact.
    static let wallStart: UInt64 = 1_700_000_000 * 1_000_000_000
    static let ssrc: UInt32 = 0x1111_1111
    static let serverSSRC: UInt32 = 0x2222_2222
    static let start = SessionTime(monotonic: .uptimeNanoseconds(5_000_000_000), unixNanoseconds: wallStart)

    static func at(_ milliseconds: Int64) -> SessionTime { start.advanced(by: .milliseconds(milliseconds)) }

    static func connection(_ capabilities: AudioDeviceCapabilities = .inputAndOutput,
                           muted: Bool = false) -> SessionMediaCore.Connection {
        SessionMediaCore.Connection(
            ssrc: ssrc, cname: "self-id", payloadType: 111, audioLevelExtensionId: 1, audioMode: .mono48K,
            capabilities: capabilities, muted: muted, firstSequenceNumber: 100, firstTimestamp: 1000)
    }

    /// A core connected at ``start`` and ticked at its own deadlines. The server sends packet k (sequence 5000 + k)
    /// 20 ms apart; it arrives 20k + 5 ms after the connection unless `delivers(k)` says it was lost. A speaking server
    /// encodes a tone; a silent one sends what the mixer sends once DTX settled, a tiny payload, built without
    /// encoding (the long health scripts stay cheap, and a `.none` session decodes nothing anyway).
    final class Run {
        let core = SessionMediaCore()
        let opened: [SessionMediaEffect]
        private let server: AudioSendPipeline?
        private var serverSource = ToneAudioSource(frequency: 660, amplitude: 0.5, format: .mono48k)
        private var microphone: any AudioInputSource
        private let delivers: (Int) -> Bool
        private var nextPacket = 0
        /// Every tick: milliseconds since the connection, and its effects.
        private(set) var ticks: [(ms: Int64, effects: [SessionMediaEffect])] = []

        init(_ connection: SessionMediaCore.Connection = SessionMediaCoreTests.connection(), serverSpeaks: Bool = true,
             delivers: @escaping (Int) -> Bool = { _ in true }) throws {
            server = serverSpeaks
                ? try AudioSendPipeline(audioMode: .mono48K, ssrc: SessionMediaCoreTests.serverSSRC, payloadType: 111,
                                        audioLevelExtensionID: nil, sequenceNumber: 5000, timestamp: 0)
                : nil
            // What the shell reads: the microphone only with input capability.
            microphone = connection.capabilities == .inputAndOutput
                ? ToneAudioSource(frequency: 440, amplitude: 0.5, format: .mono48k) : SilenceAudioSource(format: .mono48k)
            self.delivers = delivers
            opened = try core.connected(connection, now: SessionMediaCoreTests.start)
        }

        /// Ticks at every deadline up to `milliseconds` after the connection, inclusive.
        func run(until milliseconds: Int64) {
            let start = SessionMediaCoreTests.start
            let end = start.monotonic + .milliseconds(milliseconds)
            while let due = core.nextDeadline, due <= end {
                deliverPackets(upTo: due)
                let captured = microphone.read(frameMilliseconds: SessionMediaCore.frameMilliseconds)
                let now = start.advanced(by: due - start.monotonic)
                ticks.append(((due - start.monotonic).nanoseconds / 1_000_000, core.frameTick(captured: captured, now: now)))
            }
        }

        private func deliverPackets(upTo deadline: NIODeadline) {
            while true {
                let arrival = SessionMediaCoreTests.at(Int64(20 * nextPacket + 5))
                guard arrival.monotonic <= deadline else { return }
                guard let packet = serverPacket() else { return }
                if delivers(nextPacket) { core.received(rtp: packet, now: arrival) }
                nextPacket += 1
            }
        }

        private func serverPacket() -> RTPPacket? {
            guard let server else {
                return RTPPacket(payloadType: 111, sequenceNumber: UInt16(truncatingIfNeeded: 5000 + nextPacket),
                                 timestamp: UInt32(truncatingIfNeeded: 960 * nextPacket), ssrc: SessionMediaCoreTests.serverSSRC,
                                 payload: [0xF8][...])
            }
            return server.process(serverSource.read(frameMilliseconds: 20))
        }

        func effects(at milliseconds: Int64) -> [SessionMediaEffect] {
            ticks.first { $0.ms == milliseconds }?.effects ?? []
        }

        /// The ticks (ms since the connection) whose effects `matches` picks.
        func tickTimes(where matches: ([SessionMediaEffect]) -> Bool) -> [Int64] {
            ticks.filter { matches($0.effects) }.map(\.ms)
        }
    }

    // MARK: Reading effects

    static func sent(_ effects: [SessionMediaEffect]) -> [RTPPacket] {
        effects.compactMap { if case .sendRTP(let bytes) = $0 { try? RTPPacket(parsing: bytes) } else { nil } }
    }

    static func reports(_ effects: [SessionMediaEffect]) -> [[RTCPPacket]] {
        effects.compactMap { if case .sendRTCP(let bytes) = $0 { try? RTCPPacket.parseCompound(bytes) } else { nil } }
    }

    static func metrics(_ effects: [SessionMediaEffect]) -> [[ObservableMetric: Double]] {
        effects.compactMap { if case .metrics(let metrics) = $0 { metrics } else { nil } }
    }

    static func clientMetrics(_ effects: [SessionMediaEffect]) -> [SdkClientMetricFrame] {
        effects.compactMap { if case .clientMetric(let frame) = $0 { frame } else { nil } }
    }

    static func played(_ effects: [SessionMediaEffect]) -> [AudioFrame] {
        effects.compactMap { if case .play(let frame) = $0 { frame } else { nil } }
    }

    static func verdicts(_ effects: [SessionMediaEffect]) -> [String] {
        effects.compactMap {
            switch $0 {
            case .connectionBecamePoor: "poor"
            case .connectionRecovered: "recovered"
            case .reconnect: "reconnect"
            default: nil
            }
        }
    }

    static func values(_ frame: SdkStreamMetricFrame) -> [SdkMetric.TypeEnum: Double] {
        Dictionary(uniqueKeysWithValues: frame.metrics.map { ($0.type, $0.value) })
    }

    static func block(ssrc: UInt32 = ssrc, fractionLost: UInt8, cumulativeLost: Int32 = 0, highest: UInt32 = 0,
                      jitter: UInt32 = 0, lastSenderReport: UInt32 = 0, delay: UInt32 = 0) -> RTCPPacket.ReportBlock {
        RTCPPacket.ReportBlock(ssrc: ssrc, fractionLost: fractionLost, cumulativeLost: cumulativeLost,
                               extendedHighestSequence: highest, jitter: jitter, lastSenderReport: lastSenderReport,
                               delaySinceLastSenderReport: delay)
    }

    static func receiverReport(_ blocks: RTCPPacket.ReportBlock...) -> [RTCPPacket] {
        [.receiverReport(ssrc: serverSSRC, reports: blocks)]
    }

    // MARK: The clock

    @Test func framesFollowAFixedGridFromTheConnection() throws {
        let core = SessionMediaCore()
        #expect(core.nextDeadline == nil)
        #expect(core.frameTick(captured: nil, now: Self.start).isEmpty)

        let opened = try core.connected(Self.connection(), now: Self.start)
        #expect(opened == [.openDevices(format: .mono48k, microphone: true, speaker: true)])
        #expect(core.nextDeadline == Self.start.monotonic)

        var microphone = ToneAudioSource(frequency: 440, amplitude: 0.5, format: .mono48k)
        let first = core.frameTick(captured: microphone.read(frameMilliseconds: 20), now: Self.start)
        #expect(first.count == 2)
        #expect(Self.sent(first).map(\.sequenceNumber) == [100])
        #expect(Self.sent(first).map(\.timestamp) == [1000])
        #expect(Self.sent(first).first?.marker == true)
        #expect(Self.played(first).map(\.durationMilliseconds) == [20])
        #expect(core.nextDeadline == Self.at(20).monotonic)

        // A timer 7 ms late keeps the grid.
        let late = core.frameTick(captured: microphone.read(frameMilliseconds: 20), now: Self.at(27))
        #expect(Self.sent(late).map(\.timestamp) == [1960])
        #expect(core.nextDeadline == Self.at(40).monotonic)

        // A tick before the deadline does nothing.
        #expect(core.frameTick(captured: microphone.read(frameMilliseconds: 20), now: Self.at(39)).isEmpty)
        #expect(core.nextDeadline == Self.at(40).monotonic)

        // The once-a-second reports come with the 51st frame, a second after the connection, and not before.
        for milliseconds in stride(from: Int64(40), through: 980, by: 20) {
            let effects = core.frameTick(captured: microphone.read(frameMilliseconds: 20), now: Self.at(milliseconds))
            #expect(effects.count == 2)
            #expect(core.nextDeadline == Self.at(milliseconds + 20).monotonic)
        }
        let second = core.frameTick(captured: microphone.read(frameMilliseconds: 20), now: Self.at(1000))
        #expect(Self.reports(second).count == 1)
        #expect(Self.clientMetrics(second).count == 1)
        #expect(core.nextDeadline == Self.at(1020).monotonic)
    }

    @Test func aLateTickCatchesUpAndAStallIsSkipped() throws {
        let core = SessionMediaCore()
        _ = try core.connected(Self.connection(), now: Self.start)
        for milliseconds in stride(from: Int64(0), through: 100, by: 20) {
            _ = core.frameTick(captured: nil, now: Self.at(milliseconds))
        }
        #expect(core.nextDeadline == Self.at(120).monotonic)

        // 90 ms late: the missed frames follow at once, on the grid.
        var deadlines: [NIODeadline?] = []
        var packets = 0
        while let due = core.nextDeadline, due <= Self.at(210).monotonic {
            packets += Self.sent(core.frameTick(captured: nil, now: Self.at(210))).count
            deadlines.append(core.nextDeadline)
        }
        #expect(deadlines == [140, 160, 180, 200, 220].map { Self.at($0).monotonic })
        #expect(packets == 5)

        // 300 ms late (a loaded machine's loop): all 16 frames are still sent, with continuous timestamps, so the
        // session keeps 50 frames a second.
        var timestamps: [UInt32] = []
        while let due = core.nextDeadline, due <= Self.at(520).monotonic {
            timestamps += Self.sent(core.frameTick(captured: nil, now: Self.at(520))).map(\.timestamp)
        }
        let expected: [UInt32] = (11..<27).map { 1000 + UInt32($0) * 960 }
        #expect(timestamps == expected)
        #expect(core.nextDeadline == Self.at(540).monotonic)

        // 700 ms late (a stall past the 500 ms catch-up bound): the 35 frames whose time passed are skipped, the frame
        // sent now jumps its timestamp over them and starts a talk spurt, and the grid keeps its phase.
        let stalled = Self.sent(core.frameTick(captured: nil, now: Self.at(1240)))
        let jumped: UInt32 = 1000 + (27 + 35) * 960
        #expect(stalled.map(\.timestamp) == [jumped])
        #expect(stalled.map(\.sequenceNumber) == [127])
        #expect(stalled.first?.marker == true)
        #expect(core.nextDeadline == Self.at(1260).monotonic)
    }

    // MARK: Once a second

    @Test func oneSenderReportPerSecondWithCountsAndAReportBlock() throws {
        let run = try Run(delivers: { $0 % 10 != 3 })
        run.run(until: 1500)
        // The server's own sender report, half a second before ours: echoed with its delay.
        let serverNTP = NTPTimestamp(unixNanoseconds: Self.wallStart + 1_400_000_000)
        run.core.received(rtcp: [.senderReport(ssrc: Self.serverSSRC, ntpTimestamp: serverNTP.value, rtpTimestamp: 0,
                                               packetCount: 70, octetCount: 700, reports: [])], now: Self.at(1500))
        run.run(until: 3000)
        #expect(run.ticks.count == 151)
        #expect(run.tickTimes { !Self.reports($0).isEmpty } == [1000, 2000, 3000])

        let first = try #require(Self.reports(run.effects(at: 1000)).first)
        #expect(first.count == 2)
        guard case .senderReport(let ssrc, let ntp, let rtpTimestamp, let packets, let octets, let blocks) = first.first
        else {
            Issue.record("not a sender report: \(first)")
            return
        }
        #expect(ssrc == Self.ssrc)
        #expect(ntp == NTPTimestamp(unixNanoseconds: Self.wallStart + 1_000_000_000).value)
        let sent = run.ticks.filter { $0.ms <= 1000 }.flatMap { Self.sent($0.effects) }
        #expect(sent.count == 51)
        #expect(packets == 51)
        #expect(octets == UInt32(sent.map(\.payload.count).reduce(0, +)))
        #expect(rtpTimestamp == 1000 + 51 * 960)
        // Packets 0-49 arrived in the first second, five of them lost; the arrivals are as even as the timestamps.
        #expect(blocks == [Self.block(ssrc: Self.serverSSRC, fractionLost: 25, cumulativeLost: 5, highest: 5049)])
        #expect(first.last == .sourceDescription(chunks: [.init(ssrc: Self.ssrc, items: [.cname("self-id")])]))

        let second = try #require(Self.reports(run.effects(at: 2000)).first)
        guard case .senderReport(_, _, let rtpTimestamp2, let packets2, _, let blocks2) = second.first else {
            Issue.record("not a sender report: \(second)")
            return
        }
        #expect(packets2 == 101)
        #expect(rtpTimestamp2 == 1000 + 101 * 960)
        #expect(blocks2 == [Self.block(ssrc: Self.serverSSRC, fractionLost: 25, cumulativeLost: 10, highest: 5099,
                                       lastSenderReport: serverNTP.compact, delay: 32_768)])
    }

    @Test func metricsAndClientMetricEachSecondFromTheStream() throws {
        // 10 % lost in the first second, 20 % in the second, none after.
        let run = try Run(delivers: { k in k < 50 ? k % 10 != 3 : k < 100 ? k % 5 != 1 : true })
        run.run(until: 1000)
        #expect(Self.metrics(run.effects(at: 1000)) == [[.audioReceivePacketLossPercent: 10]])

        run.core.received(rtcp: Self.receiverReport(Self.block(fractionLost: 64, cumulativeLost: 3, highest: 130, jitter: 480)),
                          now: Self.at(1500))
        run.run(until: 2000)
        #expect(Self.metrics(run.effects(at: 2000)) == [[.audioReceivePacketLossPercent: 20, .audioSendPacketLossPercent: 25]])
        let frame = try #require(Self.clientMetrics(run.effects(at: 2000)).first)
        #expect(Self.values(frame.streamMetricFrames[0]) == [
            .rtcMicPps: 50, .rtcMicFractionPacketLostPercent: 25, .rtcMicJitterMs: 10,
        ])
        var speaker = Self.values(frame.streamMetricFrames[1])
        #expect(speaker.removeValue(forKey: .rtcSpkJitterBufferMs) != nil)
        #expect(speaker == [.rtcSpkPps: 40, .rtcSpkFractionPacketLostPercent: 20, .rtcSpkJitterMs: 0])

        // The next report: 10 of 50 more lost.
        run.core.received(rtcp: Self.receiverReport(Self.block(fractionLost: 51, cumulativeLost: 13, highest: 180)),
                          now: Self.at(2500))
        run.run(until: 3000)
        #expect(Self.metrics(run.effects(at: 3000)) == [[.audioReceivePacketLossPercent: 0, .audioSendPacketLossPercent: 20]])
        #expect(run.tickTimes { !Self.metrics($0).isEmpty } == [1000, 2000, 3000])
        #expect(run.tickTimes { !Self.clientMetrics($0).isEmpty } == [1000, 2000, 3000])
    }

    @Test func roundTripFromTheServersEchoOfOurSenderReport() throws {
        let run = try Run()
        run.run(until: 1000)
        let report = try #require(Self.reports(run.effects(at: 1000)).first?.first)
        guard case .senderReport(_, let ntp, _, _, _, _) = report else {
            Issue.record("not a sender report: \(report)")
            return
        }
        #expect(run.core.roundTrip == nil)
        // Received 1.5 s after ours was sent, held 0.25 s by the server: 0.25 s on the wire both ways.
        run.core.received(rtcp: Self.receiverReport(Self.block(fractionLost: 0, lastSenderReport: NTPTimestamp(ntp).compact,
                                                               delay: 16_384)), now: Self.at(1500))
        #expect(run.core.roundTrip == .milliseconds(250))
        // A report that echoes nothing keeps the round trip.
        run.core.received(rtcp: Self.receiverReport(Self.block(fractionLost: 0)), now: Self.at(1600))
        #expect(run.core.roundTrip == .milliseconds(250))
        run.run(until: 2000)
        let frame = try #require(Self.clientMetrics(run.effects(at: 2000)).first)
        #expect(Self.values(frame.streamMetricFrames[0])[.rtcMicRttMs] == 250)
    }

    @Test func theEncodersFECFollowsTheLossTheServerReports() throws {
        let run = try Run()
        #expect(run.core.expectedPacketLossPercent == 0)
        run.core.received(rtcp: Self.receiverReport(Self.block(fractionLost: 64)), now: Self.at(100))
        #expect(run.core.expectedPacketLossPercent == 25)
        // A block about another stream changes nothing.
        run.core.received(rtcp: Self.receiverReport(Self.block(ssrc: 0x3333, fractionLost: 200)), now: Self.at(200))
        #expect(run.core.expectedPacketLossPercent == 25)
        // A sender report's block counts as well.
        run.core.received(rtcp: [.senderReport(ssrc: Self.serverSSRC, ntpTimestamp: 0, rtpTimestamp: 0, packetCount: 0,
                                               octetCount: 0, reports: [Self.block(fractionLost: 128)])], now: Self.at(300))
        #expect(run.core.expectedPacketLossPercent == 50)
    }

    // MARK: Health

    @Test func poorAfterFifteenSecondsUnderHalfThenRecovered() throws {
        // 20 of 50 packets a second for 15 s, then all of them.
        let run = try Run(Self.connection(.none), serverSpeaks: false, delivers: { $0 >= 750 || $0 % 5 < 2 })
        run.run(until: 74_000)
        #expect(run.tickTimes { !Self.verdicts($0).isEmpty } == [15_000])
        #expect(Self.verdicts(run.effects(at: 15_000)) == ["poor"])
        // The verdict stays for 60 s, however good the audio.
        #expect(run.core.isConnectionPoor)
        run.run(until: 80_000)
        #expect(run.tickTimes { !Self.verdicts($0).isEmpty } == [15_000, 75_000])
        #expect(Self.verdicts(run.effects(at: 75_000)) == ["recovered"])
        #expect(!run.core.isConnectionPoor)
    }

    @Test func reconnectAfterTwentyFiveSecondsWithoutPackets() throws {
        let run = try Run(Self.connection(.none), serverSpeaks: false, delivers: { $0 < 100 })
        run.run(until: 30_000)
        // The first full window (2 s of audio in 15) is poor already; the path is dead 25 silent seconds after the
        // last packet arrived.
        #expect(run.tickTimes { !Self.verdicts($0).isEmpty } == [15_000, 27_000])
        #expect(Self.verdicts(run.effects(at: 15_000)) == ["poor"])
        let effects = run.effects(at: 27_000)
        #expect(effects.last == .reconnect)
        #expect(Self.verdicts(effects) == ["reconnect"])

        // A server that never sent anything is a quiet one, not a dead path.
        let silent = try Run(Self.connection(.none), serverSpeaks: false, delivers: { _ in false })
        silent.run(until: 30_000)
        #expect(silent.tickTimes { Self.verdicts($0).contains("reconnect") }.isEmpty)
    }

    // MARK: Mute and capabilities

    @Test func mutedSendsNothingAndUnmutingStartsATalkSpurt() throws {
        let run = try Run(Self.connection(muted: true))
        #expect(run.core.isMuted)
        run.run(until: 1000)
        #expect(run.tickTimes { !Self.sent($0).isEmpty }.isEmpty)
        let report = try #require(Self.reports(run.effects(at: 1000)).first?.first)
        guard case .senderReport(_, _, let rtpTimestamp, let packets, let octets, _) = report else {
            Issue.record("not a sender report: \(report)")
            return
        }
        #expect(packets == 0 && octets == 0)
        // The timestamp ran on with the captured audio.
        #expect(rtpTimestamp == 1000 + 51 * 960)
        let frame = try #require(Self.clientMetrics(run.effects(at: 1000)).first)
        #expect(Self.values(frame.streamMetricFrames[0]) == [.rtcMicPps: 0])

        run.core.setMuted(false)
        run.run(until: 1020)
        let resumed = Self.sent(run.effects(at: 1020))
        #expect(resumed.map(\.sequenceNumber) == [100])
        #expect(resumed.map(\.timestamp) == [1000 + 51 * 960])
        #expect(resumed.map(\.marker) == [true])
        #expect(run.core.sendStatistics?.framesMuted == 51)
    }

    @Test func withoutAudioDevicesNothingIsDecoded() throws {
        let bot = try Run(Self.connection(.none))
        #expect(bot.opened == [.openDevices(format: .mono48k, microphone: false, speaker: false)])
        bot.run(until: 1000)
        #expect(bot.ticks.allSatisfy { Self.played($0.effects).count == 1 })
        #expect(bot.ticks.flatMap { Self.played($0.effects) }.allSatisfy { $0.isSilent })
        #expect(bot.core.receiveStatistics?.framesDecoded == 0)
        // It still listens: the packets are counted.
        #expect(Self.metrics(bot.effects(at: 1000)) == [[.audioReceivePacketLossPercent: 0]])

        // The same stream with a speaker is decoded and heard.
        let listener = try Run(Self.connection(.outputOnly))
        #expect(listener.opened == [.openDevices(format: .mono48k, microphone: false, speaker: true)])
        listener.run(until: 1000)
        #expect((listener.core.receiveStatistics?.framesDecoded ?? 0) > 40)
        #expect(listener.ticks.suffix(10).flatMap { Self.played($0.effects) }.allSatisfy { !$0.isSilent })
    }

    /// A speaker that discards what it is given (a null output) hears nothing: decoding stops while it is open and
    /// comes back with a real one; a session without audio devices never decodes, whatever the shell says.
    @Test func aNullOutputIsNotDecodedFor() throws {
        let listener = try Run(Self.connection(.outputOnly))
        #expect(listener.core.isDecoding)
        listener.core.setDecoding(false)
        listener.run(until: 500)
        #expect(listener.core.receiveStatistics?.framesDecoded == 0)
        #expect(listener.ticks.flatMap { Self.played($0.effects) }.allSatisfy { $0.isSilent })
        listener.core.setDecoding(true)
        listener.run(until: 1000)
        #expect((listener.core.receiveStatistics?.framesDecoded ?? 0) > 15)

        let bot = try Run(Self.connection(.none))
        bot.core.setDecoding(true)
        #expect(!bot.core.isDecoding)
    }

    /// An input that delivers Opus is sent as it came, on the same 20 ms grid: a tone packet per frame, nothing for
    /// a frame without a payload.
    @Test func encodedFramesAreSentOnTheGrid() throws {
        let core = SessionMediaCore()
        _ = try core.connected(Self.connection(), now: Self.start)
        var sent: [RTPPacket] = []
        for tick in 0..<10 {
            let frame = EncodedAudioFrame(payload: tick % 5 == 4 ? nil : [0xFC, UInt8(tick)], level: 20, voiceActive: true)
            sent += Self.sent(core.frameTick(encoded: frame, now: Self.at(Int64(20 * tick))))
        }
        #expect(sent.map { Array($0.payload) } == [0, 1, 2, 3, 5, 6, 7, 8].map { [0xFC, UInt8($0)] })
        #expect(sent.map(\.sequenceNumber) == (100..<108).map { UInt16($0) })
        #expect(sent.map(\.timestamp) == [0, 1, 2, 3, 5, 6, 7, 8].map { 1000 + 960 * UInt32($0) })
        #expect(core.frameTick(encoded: EncodedAudioFrame(payload: [0xFC], level: 20, voiceActive: true), now: Self.at(190)).isEmpty)
    }

    @Test func aNewDeviceChoiceReopensOnlyWhatTheCapabilitiesAllow() throws {
        let core = SessionMediaCore()
        #expect(core.devicesChanged().isEmpty)
        _ = try core.connected(Self.connection(.outputOnly), now: Self.start)
        #expect(core.devicesChanged() == [.openDevices(format: .mono48k, microphone: false, speaker: true)])
        _ = try core.connected(Self.connection(.inputAndOutput), now: Self.start)
        #expect(core.devicesChanged() == [.openDevices(format: .mono48k, microphone: true, speaker: true)])
        _ = try core.connected(Self.connection(.none), now: Self.start)
        #expect(core.devicesChanged().isEmpty)
    }

    @Test func stoppingClosesTheDevicesAndStopsTheClock() throws {
        let run = try Run()
        run.run(until: 100)
        #expect(run.core.stop() == [.closeDevices])
        #expect(run.core.nextDeadline == nil)
        #expect(!run.core.isConnected)
        #expect(run.core.stop().isEmpty)
        #expect(run.core.frameTick(captured: nil, now: Self.at(120)).isEmpty)
        // Packets of the old connection go nowhere.
        run.core.received(rtcp: Self.receiverReport(Self.block(fractionLost: 64)), now: Self.at(130))
        #expect(run.core.expectedPacketLossPercent == nil)
    }
}
