import Foundation
import Testing
import SwiftProtobuf
@testable import CarillonProtocol

@Suite("Signal frame codec")
struct SignalFrameCodecTests {
    private func frame(_ type: SdkSignalFrame.TypeEnum, timestamp: UInt64 = 1_700_000_000_123) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.timestampMs = timestamp
        frame.type = type
        return frame
    }

    private func roundTrip(_ original: SdkSignalFrame) throws -> SdkSignalFrame {
        let bytes = try SignalFrameCodec.encode(original)
        #expect(bytes.first == 0x05)
        return try SignalFrameCodec.decode(bytes)
    }

    @Test("a PING frame has the exact wire bytes of the schema's field numbers")
    func pingWireBytes() throws {
        var ping = frame(.pingPong, timestamp: 1)
        ping.pingPong.type = .ping
        ping.pingPong.pingID = 1
        // 05 | ts(1)=1 | type(2)=19 | ping_pong(20) len 4 { type(1)=1, ping_id(2)=1 }
        #expect(try SignalFrameCodec.encode(ping) == [0x05, 0x08, 0x01, 0x10, 0x13, 0xA2, 0x01, 0x04, 0x08, 0x01, 0x10, 0x01])
    }

    @Test("JOIN round trip keeps client details, flags and adaptation fields")
    func joinRoundTrip() throws {
        var join = frame(.join)
        join.join.protocolVersion = 2
        join.join.flags = UInt32(SdkJoinFlags.hasStreamUpdate.rawValue)
        join.join.audioSessionID = 0xDEAD_BEEF
        join.join.wantsCompressedSdp = true
        join.join.serverSideNetworkAdaption = .bandwidthProbingAndVideoQualityAdaption
        join.join.supportedServerSideNetworkAdaptions = [.none, .bandwidthProbing, .bandwidthProbingAndVideoQualityAdaption]
        join.join.clientDetails.appName = "carillon-tests"
        join.join.clientDetails.clientSource = "carillon"
        join.join.clientDetails.clientUtcOffset = "+01:00"
        join.join.wantsAllTemporalLayersInIndex = true
        join.join.disablePeriodicKeyframeRequestOnContentSender = false
        let decoded = try roundTrip(join)
        #expect(decoded == join)
        #expect(decoded.type == .join)
        #expect(decoded.join.flags == 2)
        #expect(decoded.join.supportedServerSideNetworkAdaptions.count == 3)
        #expect(decoded.join.hasDisablePeriodicKeyframeRequestOnContentSender)
        #expect(!decoded.join.hasMaxNumOfVideos)
    }

    @Test("JOIN_ACK and INDEX round trip")
    func joinAckAndIndexRoundTrip() throws {
        var ack = frame(.joinAck)
        ack.joinack.turnCredentials.username = "user"
        ack.joinack.turnCredentials.password = "pass"
        ack.joinack.turnCredentials.ttl = 300
        ack.joinack.turnCredentials.uris = ["turn:127.0.0.1:3478?transport=udp"]
        ack.joinack.videoSubscriptionLimit = 25
        ack.joinack.defaultServerSideNetworkAdaption = .default
        let decodedAck = try roundTrip(ack)
        #expect(decodedAck == ack)
        #expect(decodedAck.joinack.hasDefaultServerSideNetworkAdaption)

        var index = frame(.index)
        var source = SdkStreamDescriptor()
        source.streamID = 3
        source.groupID = 1
        source.attendeeID = "a#content"
        source.mediaType = .video
        source.maxBitrateKbps = 1500
        index.index.sources = [source]
        index.index.numParticipants = 4
        index.index.pausedAtSourceIds = [7, 9]
        index.index.supportedReceiveCodecIntersection = [.vp8, .h264ConstrainedBaselineProfile]
        let decodedIndex = try roundTrip(index)
        #expect(decodedIndex == index)
        #expect(decodedIndex.index.sources.first?.mediaType == .video)
    }

    @Test("SUBSCRIBE and SUBSCRIBE_ACK round trip, including bytes fields")
    func subscribeRoundTrip() throws {
        var subscribe = frame(.subscribe)
        subscribe.sub.duplex = .duplex
        subscribe.sub.sdpOffer = "v=0\r\n"
        subscribe.sub.receiveStreamIds = [0, 4, 0]
        subscribe.sub.compressedSdpOffer = Data([0x00, 0xFF, 0x10])
        var configuration = SdkVideoSubscriptionConfiguration()
        configuration.mid = "1"
        configuration.groupID = 2
        configuration.priority = 0xFFFF_FFFF
        configuration.qualityAdaptationPreference = .maintainResolution
        subscribe.sub.videoSubscriptionConfiguration = [configuration]
        #expect(try roundTrip(subscribe) == subscribe)

        var ack = frame(.subscribeAck)
        var track = SdkTrackMapping()
        track.streamID = 4
        track.ssrc = 0x1234_5678
        track.trackLabel = "v_1"
        ack.suback.tracks = [track]
        ack.suback.sdpAnswer = "v=0\r\n"
        #expect(try roundTrip(ack) == ack)
    }

    @Test("DATA_MESSAGE round trip keeps binary data and signed ingest time")
    func dataMessageRoundTrip() throws {
        var message = frame(.dataMessage)
        var payload = SdkDataMessagePayload()
        payload.topic = "chat"
        payload.data = Data((0...255).map { UInt8($0) })
        payload.lifetimeMs = 300_000
        payload.senderAttendeeID = "attendee"
        payload.ingestTimeNs = 1_700_000_000_000_000_000
        message.dataMessage.messages = [payload]
        let decoded = try roundTrip(message)
        #expect(decoded == message)
        #expect(decoded.dataMessage.messages[0].data.count == 256)
    }

    @Test("a transcript frame travels as DATA_MESSAGE bytes and decodes with its oneof intact")
    func transcriptInsideDataMessage() throws {
        var item = SdkTranscriptItem()
        item.content = "hello"
        item.type = .pronunciation
        item.stable = false
        var alternative = SdkTranscriptAlternative()
        alternative.items = [item]
        alternative.transcript = "hello"
        var result = SdkTranscriptResult()
        result.alternatives = [alternative]
        result.isPartial = true
        var event = SdkTranscriptEvent()
        event.transcript.results = [result]
        var status = SdkTranscriptEvent()
        status.status.type = .started
        var transcriptFrame = SdkTranscriptFrame()
        transcriptFrame.events = [status, event]

        var message = frame(.dataMessage)
        var payload = SdkDataMessagePayload()
        payload.topic = "aws:chime:transcription"
        payload.data = try transcriptFrame.serializedBytes()
        message.dataMessage.messages = [payload]

        let decoded = try roundTrip(message)
        let inner = try SdkTranscriptFrame(serializedBytes: decoded.dataMessage.messages[0].data)
        #expect(inner == transcriptFrame)
        guard case .status = inner.events[0].event, case .transcript(let transcript) = inner.events[1].event else {
            Issue.record("oneof cases lost")
            return
        }
        #expect(transcript.results[0].alternatives[0].items[0].hasStable)
        #expect(!transcript.results[0].alternatives[0].items[0].hasConfidence)
    }

    @Test("presence survives the wire: muted=false is present, an unset muted stays absent")
    func presenceSemantics() throws {
        var roster = frame(.audioStreamIDInfo)
        var muteUpdate = SdkAudioStreamIdInfo()
        muteUpdate.audioStreamID = 1
        muteUpdate.muted = false
        var join = SdkAudioStreamIdInfo()
        join.audioStreamID = 2
        join.attendeeID = "attendee-2"
        join.externalUserID = "user-2"
        roster.audioStreamIDInfo.streams = [muteUpdate, join]

        var metadata = frame(.audioMetadata)
        var state = SdkAudioAttendeeState()
        state.audioStreamID = 2
        state.volume = 0
        metadata.audioMetadata.attendeeStates = [state]

        let decodedRoster = try roundTrip(roster)
        #expect(decodedRoster.audioStreamIDInfo.streams[0].hasMuted)
        #expect(decodedRoster.audioStreamIDInfo.streams[0].muted == false)
        #expect(!decodedRoster.audioStreamIDInfo.streams[1].hasMuted)
        #expect(!decodedRoster.audioStreamIDInfo.streams[1].hasDropped)
        #expect(!decodedRoster.audioStreamIDInfo.streams[0].hasAttendeeID)

        let decodedMetadata = try roundTrip(metadata)
        #expect(decodedMetadata.audioMetadata.attendeeStates[0].hasVolume)
        #expect(!decodedMetadata.audioMetadata.attendeeStates[0].hasSignalStrength)
    }

    @Test("explicit proto2 defaults from the spec")
    func explicitDefaults() {
        #expect(SdkJoinFrame().protocolVersion == 2)
        #expect(!SdkJoinFrame().hasProtocolVersion)
        #expect(SdkSubscribeFrame().duplex == .rx)
        #expect(SdkNotificationFrame().level == .error)
        #expect(!SdkNotificationFrame().hasLevel)
        // Absent enums read as their first value (signaling.md 1.4).
        #expect(SdkStreamDescriptor().mediaType == .audio)
        #expect(SdkJoinAckFrame().defaultServerSideNetworkAdaption == .default)
        #expect(SdkSignalFrame().type == .join)
    }

    @Test("frames with a 0x02 type byte are accepted")
    func legacyTypeByte() throws {
        var pong = frame(.pingPong)
        pong.pingPong.type = .pong
        pong.pingPong.pingID = 42
        var bytes = try SignalFrameCodec.encode(pong)
        bytes[0] = 0x02
        #expect(try SignalFrameCodec.decode(bytes) == pong)
        // An ArraySlice (e.g. a view into a larger buffer) decodes too.
        let padded = [0xAA] + bytes + [0xBB]
        #expect(try SignalFrameCodec.decode(padded[1..<(padded.count - 1)]) == pong)
    }

    @Test("empty message and unknown type byte are typed errors")
    func framingErrors() throws {
        #expect(throws: SignalFrameError.emptyMessage) { try SignalFrameCodec.decode([UInt8]()) }
        var bytes = try SignalFrameCodec.encode(frame(.leave))
        bytes[0] = 0x07
        #expect(throws: SignalFrameError.unknownFrameType(0x07)) { try SignalFrameCodec.decode(bytes) }
    }

    @Test("missing required fields are rejected on decode and on encode")
    func missingRequiredFields() throws {
        // Only `type` (field 2) = LEAVE: timestamp_ms is missing.
        do {
            _ = try SignalFrameCodec.decode([0x05, 0x10, 0x09])
            Issue.record("decoded a frame without timestamp_ms")
        } catch {
            #expect(error == .missingRequiredFields("timestamp_ms"))
        }

        // A PING_PONG whose payload lacks ping_id.
        var ping = frame(.pingPong)
        ping.pingPong.type = .ping
        let partial: [UInt8] = [0x05] + (try ping.serializedBytes(partial: true))
        do {
            _ = try SignalFrameCodec.decode(partial)
            Issue.record("decoded a PING without ping_id")
        } catch {
            #expect(error == .missingRequiredFields("ping_pong.ping_id"))
        }

        // A REMOTE_VIDEO_UPDATE whose subscription lacks its mid.
        var update = frame(.remoteVideoUpdate)
        update.remoteVideoUpdate.addedOrUpdatedVideoSubscriptions = [SdkVideoSubscriptionConfiguration()]
        let updateBytes: [UInt8] = [0x05] + (try update.serializedBytes(partial: true))
        #expect(throws: SignalFrameError.missingRequiredFields("remote_video_update.added_or_updated_video_subscriptions[0].mid")) {
            try SignalFrameCodec.decode(updateBytes)
        }

        var noTimestamp = SdkSignalFrame()
        noTimestamp.type = .leave
        let encodeError = #expect(throws: SignalFrameError.self) { try SignalFrameCodec.encode(noTimestamp) }
        guard case .unencodable = encodeError else {
            Issue.record("expected .unencodable, got \(String(describing: encodeError))")
            return
        }
    }

    @Test("garbage after the type byte is an undecodable error")
    func garbageRejected() {
        for garbage: [UInt8] in [[0x05, 0xFF], [0x05, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
                                 [0x05, 0x0A, 0x10, 0x01], [0x05, 0x08]] {
            let error = #expect(throws: SignalFrameError.self) { try SignalFrameCodec.decode(garbage) }
            guard case .undecodable = error else {
                Issue.record("expected .undecodable for \(garbage), got \(String(describing: error))")
                continue
            }
        }
    }

    @Test("random bytes and every truncation of a valid frame never crash the decoder")
    func fuzzDecoder() throws {
        var generator = SplitMix64(seed: 0x5EED)
        var failures = 0
        for _ in 0..<3000 {
            let length = Int(generator.next() % 64)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if !bytes.isEmpty { bytes[0] = 0x05 }
            do { _ = try SignalFrameCodec.decode(bytes) } catch { failures += 1 }
        }
        #expect(failures > 2000)

        var message = frame(.dataMessage)
        var payload = SdkDataMessagePayload()
        payload.topic = "topic"
        payload.data = Data(repeating: 7, count: 40)
        message.dataMessage.messages = [payload]
        let full = try SignalFrameCodec.encode(message)
        let envelopeLength = try SignalFrameCodec.encode(frame(.dataMessage)).count
        var acceptedPrefixes: [Int] = []
        for cut in 0..<full.count {
            if (try? SignalFrameCodec.decode(full[..<cut])) != nil { acceptedPrefixes.append(cut) }
        }
        // The only valid strict prefix ends right after `type` (a frame with no payload); any cut inside a field fails.
        #expect(acceptedPrefixes == [envelopeLength])
    }

    @Test("repeated uint32 fields are accepted both unpacked and packed")
    func packedAndUnpackedRepeated() throws {
        // SdkSignalFrame { timestamp_ms(1) = 1000, type(2) = PAUSE(7), pause(10) = { stream_ids(1) = [1, 300, 5] } }
        let header: [UInt8] = [0x05, 0x08, 0xE8, 0x07, 0x10, 0x07]
        let unpacked: [UInt8] = header + [0x52, 0x07, 0x08, 0x01, 0x08, 0xAC, 0x02, 0x08, 0x05]
        let packed: [UInt8] = header + [0x52, 0x06, 0x0A, 0x04, 0x01, 0xAC, 0x02, 0x05]
        for bytes in [unpacked, packed] {
            let decoded = try SignalFrameCodec.decode(bytes)
            #expect(decoded.timestampMs == 1000)
            #expect(decoded.type == .pause)
            #expect(decoded.pause.streamIds == [1, 300, 5])
        }
        // We send proto2's default form, unpacked, like the reference client.
        var pause = frame(.pause, timestamp: 1000)
        pause.pause.streamIds = [1, 300, 5]
        #expect(try SignalFrameCodec.encode(pause) == unpacked)
    }
}

/// Deterministic pseudo-random numbers for repeatable fuzzing.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
