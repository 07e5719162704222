import Foundation
import Testing
@testable import carillon

/// The Janus HTTP JSON API as the side-by-side benchmark speaks it: requests built, replies and events parsed.
struct JanusAPITests {
    private func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func createAttachAndDestroyCarryTheirVerbAndTransaction() throws {
        let create = try object(JanusAPI.createSession(transaction: "t1"))
        #expect(create["janus"] as? String == "create")
        #expect(create["transaction"] as? String == "t1")
        let attach = try object(JanusAPI.attach(plugin: JanusAPI.audioBridge, transaction: "t2"))
        #expect(attach["janus"] as? String == "attach")
        #expect(attach["plugin"] as? String == "janus.plugin.audiobridge")
        #expect(try object(JanusAPI.destroySession(transaction: "t3"))["janus"] as? String == "destroy")
    }

    @Test func joinCarriesTheOfferAsANonTrickleJSEP() throws {
        let join = try object(JanusAPI.message(body: JanusAPI.joinAudioRoom(42, display: "bot", muted: true),
                                               offer: "v=0\r\n", transaction: "t4"))
        #expect(join["janus"] as? String == "message")
        let body = try #require(join["body"] as? [String: Any])
        #expect(body["request"] as? String == "join")
        #expect((body["room"] as? NSNumber)?.uint64Value == 42)
        #expect(body["muted"] as? Bool == true)
        let jsep = try #require(join["jsep"] as? [String: Any])
        #expect(jsep["type"] as? String == "offer")
        #expect(jsep["sdp"] as? String == "v=0\r\n")
        #expect(jsep["trickle"] as? Bool == false)
    }

    @Test func aMessageWithoutOfferHasNoJSEP() throws {
        let create = try object(JanusAPI.message(body: JanusAPI.createAudioRoom(7), transaction: "t5"))
        #expect(create["jsep"] == nil)
        let body = try #require(create["body"] as? [String: Any])
        #expect(body["request"] as? String == "create")
        #expect((body["sampling_rate"] as? NSNumber)?.intValue == 48_000)
        #expect(body["audiolevel_ext"] as? Bool == true)
    }

    @Test func successReplyGivesTheNewId() throws {
        let replies = try JanusReply.parseAll(Data(#"{"janus":"success","transaction":"t1","data":{"id":8347201934321}}"#.utf8))
        #expect(replies.count == 1)
        #expect(replies[0].kind == .success)
        #expect(replies[0].id == 8_347_201_934_321)
        #expect(replies[0].transaction == "t1")
    }

    @Test func longPollArrayYieldsJoinedWithAnswerThenWebRTCUp() throws {
        let text = #"""
        [{"janus":"event","session_id":1,"sender":77,"transaction":"t9",
          "plugindata":{"plugin":"janus.plugin.audiobridge","data":{"audiobridge":"joined","room":42,"id":5}},
          "jsep":{"type":"answer","sdp":"v=0\r\na=setup:active\r\n"}},
         {"janus":"webrtcup","session_id":1,"sender":77},
         {"janus":"media","session_id":1,"sender":77,"type":"audio","receiving":true}]
        """#
        let replies = try JanusReply.parseAll(Data(text.utf8))
        #expect(replies.map(\.kind) == [.event, .webrtcUp, .media])
        #expect(replies[0].sender == 77)
        #expect(replies[0].pluginEvent == "joined")
        #expect(replies[0].sdpType == "answer")
        #expect(replies[0].sdp == "v=0\r\na=setup:active\r\n")
        #expect(replies[1].sdp == nil)
    }

    @Test func errorsAreErrorsWhetherCoreOrPlugin() throws {
        let core = try JanusReply.parseAll(Data(#"{"janus":"error","error":{"code":458,"reason":"No such session"}}"#.utf8))
        #expect(core[0].kind == .error(code: 458, reason: "No such session"))
        let plugin = try JanusReply.parseAll(Data(#"""
            {"janus":"event","sender":3,"plugindata":{"plugin":"janus.plugin.audiobridge",
             "data":{"audiobridge":"event","error_code":485,"error":"No such room (42)"}}}
            """#.utf8))
        #expect(plugin[0].kind == .error(code: 485, reason: "No such room (42)"))
        #expect(plugin[0].sender == 3)
    }

    @Test func keepaliveAndUnknownKindsAreNamed() throws {
        #expect(try JanusReply.parseAll(Data(#"{"janus":"keepalive"}"#.utf8))[0].kind == .keepalive)
        #expect(try JanusReply.parseAll(Data(#"{"janus":"slowlink","sender":1}"#.utf8))[0].kind == .other("slowlink"))
        #expect(try JanusReply.parseAll(Data(#"{"janus":"hangup","sender":1}"#.utf8))[0].kind == .hangup)
    }

    @Test func notJSONThrows() {
        #expect(throws: JanusReplyError.self) { try JanusReply.parseAll(Data("<html>".utf8)) }
        #expect(throws: JanusReplyError.self) { try JanusReply.parseAll(Data("42".utf8)) }
    }

    @Test func configurationSetsEventLoopsOnlyWhenTuned() {
        let defaults = JanusServer.configuration(eventLoops: nil, interface: "v0", configsFolder: "/tmp/x")
        #expect(!defaults.contains("event_loops"))
        #expect(defaults.contains("ice_enforce_list = \"v0\""))
        #expect(defaults.contains("configs_folder = \"/tmp/x\""))
        let tuned = JanusServer.configuration(eventLoops: 2, interface: "v0", configsFolder: "/tmp/x")
        #expect(tuned.contains("event_loops = 2"))
    }

    @Test func sizesParseAndRejectJunk() {
        #expect(BenchCommand.JanusAudio.sizes("10, 50,100") == [10, 50, 100])
        #expect(BenchCommand.JanusAudio.sizes("10,x") == nil)
        #expect(BenchCommand.JanusAudio.sizes("") == nil)
    }

    @Test func videoRoomRequestsCarryTheirRoles() throws {
        let create = JanusAPI.createVideoRoom(9, publishers: 10)
        #expect(create["request"] as? String == "create")
        #expect(create["publishers"] as? Int == 10)
        #expect(create["videocodec"] as? String == "vp8")
        let publisher = JanusAPI.joinVideoPublisher(9, display: "p")
        #expect(publisher["ptype"] as? String == "publisher")
        let subscriber = JanusAPI.joinVideoSubscriber(9, feeds: [11, 12])
        #expect(subscriber["ptype"] as? String == "subscriber")
        let streams = try #require(subscriber["streams"] as? [[String: UInt64]])
        #expect(streams.map { $0["feed"] } == [11, 12])
        let start = try object(JanusAPI.message(body: JanusAPI.startSubscription(), answer: "v=0\r\n", transaction: "t6"))
        let jsep = try #require(start["jsep"] as? [String: Any])
        #expect(jsep["type"] as? String == "answer")
        #expect((start["body"] as? [String: Any])?["request"] as? String == "start")
    }

    @Test func videoRoomEventsGiveTheFeedIdAndTheOffer() throws {
        let text = #"""
        [{"janus":"event","sender":5,"plugindata":{"plugin":"janus.plugin.videoroom",
           "data":{"videoroom":"joined","room":9,"id":3141592653,"private_id":7,"publishers":[]}}},
         {"janus":"event","sender":6,"plugindata":{"plugin":"janus.plugin.videoroom","data":{"videoroom":"attached","room":9}},
          "jsep":{"type":"offer","sdp":"v=0\r\n"}}]
        """#
        let replies = try JanusReply.parseAll(Data(text.utf8))
        #expect(replies[0].pluginEvent == "joined")
        #expect(replies[0].pluginID == 3_141_592_653)
        #expect(replies[1].pluginEvent == "attached")
        #expect(replies[1].sdpType == "offer")
        #expect(replies[1].pluginID == nil)
    }

    @Test func videoMeetingsParseAndRejectJunk() {
        let parsed = BenchCommand.JanusVideo.meetings("4x4, 10X10")
        #expect(parsed?.map(\.senders) == [4, 10])
        #expect(parsed?.map(\.receivers) == [4, 10])
        #expect(BenchCommand.JanusVideo.meetings("4x") == nil)
        #expect(BenchCommand.JanusVideo.meetings("") == nil)
    }
}
