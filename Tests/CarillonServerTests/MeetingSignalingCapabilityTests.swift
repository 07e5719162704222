import CarillonProtocol
import Foundation
import NIOCore
import Testing

@testable import CarillonServer

/// Attendee capabilities enforced by the meeting core (issue: an attendee created with `Audio=Receive` was mixed,
/// `Video=None` published a camera, and UpdateAttendeeCapabilities changed nothing for a live attendee).
@Suite struct MeetingSignalingCapabilityTests {
    let video = MeetingSignalingVideoTests()
    var now: ClockReading { video.now }

    func caps(_ audio: String, _ camera: String, _ content: String) -> ControlAPI.AttendeeCapabilities {
        ControlAPI.AttendeeCapabilities(audio: audio, video: camera, content: content)
    }

    /// Joins attendee `index` (1-based, `MeetingSignalingVideoTests.people`) with `permissions`.
    func join(_ core: inout MeetingSignalingCore, _ index: Int, _ permissions: AttendeeMediaPermissions = .all)
        -> [MeetingSignalingOutput] {
        _ = core.accept(video.connection(index), identity: video.people[index - 1], permissions: permissions, now: now)
        var join = SdkSignalFrame()
        join.type = .join
        join.join.protocolVersion = 2
        return core.receive(join, from: video.connection(index), now: now)
    }

    func muteEntries(_ outputs: [MeetingSignalingOutput], to index: Int) -> [Bool] {
        video.frames(outputs, to: index, .audioStreamIDInfo).flatMap { $0.audioStreamIDInfo.streams.map(\.muted) }
    }

    @Test func anAttendeeThatMayNotSendAudioIsHeldMuted() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = join(&core, 1)
        let joined = join(&core, 2, AttendeeMediaPermissions(caps("Receive", "SendReceive", "SendReceive")))
        #expect(joined.contains { if case .audioMuted("att-2", true) = $0 { true } else { false } })
        #expect(core.isMuted("att-2"))
        var unmute = SdkSignalFrame()
        unmute.type = .audioControl
        unmute.audioControl.muted = false
        #expect(core.receive(unmute, from: video.connection(2), now: now).isEmpty)
        #expect(core.isMuted("att-2"))
        // Allowed again: the next unmute takes.
        let updated = core.updatePermissions("att-2", capabilities: caps("SendReceive", "SendReceive", "SendReceive"), now: now)
        #expect(updated.isEmpty)
        #expect(muteEntries(core.receive(unmute, from: video.connection(2), now: now), to: 1) == [false])
        // Taken away while unmuted: muted at once, and everyone's roster says so.
        let revoked = core.updatePermissions("att-2", capabilities: caps("None", "SendReceive", "SendReceive"), now: now)
        #expect(muteEntries(revoked, to: 1) == [true])
        #expect(revoked.contains { if case .audioMuted("att-2", true) = $0 { true } else { false } })
    }

    /// Audio `Send` or `None`: the media side is told to send silence instead of the mix, at connect (from
    /// ``MeetingSignalingCore/hearsMeeting(_:)``) and at once when UpdateAttendeeCapabilities changes it.
    @Test func anAttendeeThatMayNotHearTheMeetingIsSentSilence() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = join(&core, 1)
        _ = join(&core, 2, AttendeeMediaPermissions(caps("Send", "SendReceive", "SendReceive")))
        #expect(!core.hearsMeeting("att-2") && core.hearsMeeting("att-1") && core.hearsMeeting("nobody"))
        #expect(!core.isMuted("att-2"))
        let allowed = core.updatePermissions("att-2", capabilities: caps("Receive", "SendReceive", "SendReceive"), now: now)
        #expect(allowed.contains { if case .audioReceiving("att-2", true) = $0 { true } else { false } })
        #expect(core.hearsMeeting("att-2") && core.isMuted("att-2"))
        let same = core.updatePermissions("att-2", capabilities: caps("SendReceive", "SendReceive", "SendReceive"), now: now)
        #expect(!same.contains { if case .audioReceiving = $0 { true } else { false } })
        let revoked = core.updatePermissions("att-2", capabilities: caps("None", "SendReceive", "SendReceive"), now: now)
        #expect(revoked.contains { if case .audioReceiving("att-2", false) = $0 { true } else { false } })
        #expect(!core.hearsMeeting("att-2"))
    }

    @Test func anAttendeeThatMayNotSendVideoIsRefusedAndOneThatMayNotReceiveGetsNothing() throws {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = join(&core, 1)
        _ = join(&core, 2, AttendeeMediaPermissions(caps("SendReceive", "None", "None")))
        _ = join(&core, 3)
        let (published, outputs) = video.subscribed(&core, 1, video.subscribe(sending: true))
        #expect(published?.sending == .allowed)
        let allocation = try #require(video.frames(outputs, to: 1, .subscribeAck).first).suback.allocations[0]
        // Video=None: no camera in its INDEX, no stream if it asks anyway, and its own camera refused (206).
        #expect(video.frames(outputs, to: 2, .index).first?.index.sources.isEmpty == true)
        #expect(video.frames(outputs, to: 3, .index).first?.index.sources.count == 1)
        let (refused, answered) = video.subscribed(&core, 2, video.subscribe(sending: true, receive: [0, allocation.streamID]))
        #expect(refused?.sending == .refused && refused?.receive == [nil, nil])
        #expect(video.frames(answered, to: 2, .subscribeAck).first?.error.status == 206)
        #expect(video.frames(answered, to: 1, .index).isEmpty && video.frames(answered, to: 3, .index).isEmpty)
    }

    @Test func takingAwayVideoEndsALivePublicationAndGivingReceiveBackSendsAnIndex() throws {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = join(&core, 1)
        _ = join(&core, 2)
        _ = video.subscribed(&core, 1, video.subscribe(sending: true))
        let revoked = core.updatePermissions("att-1", capabilities: caps("SendReceive", "Receive", "SendReceive"), now: now)
        #expect(video.frames(revoked, to: 2, .index).first?.index.sources.isEmpty == true)
        #expect(video.frames(revoked, to: 1, .notification).count == 1)
        #expect(revoked.contains { if case .activity(_, .videoStopped) = $0 { true } else { false } })
        // Bob may no longer receive cameras: his INDEX is emptied at once; given back, it is full again.
        _ = video.subscribed(&core, 1, video.subscribe(sending: false))
        let updated = core.updatePermissions("att-1", capabilities: caps("SendReceive", "SendReceive", "SendReceive"), now: now)
        #expect(updated.isEmpty)
        _ = video.subscribed(&core, 1, video.subscribe(sending: true))
        let blind = core.updatePermissions("att-2", capabilities: caps("SendReceive", "None", "None"), now: now)
        #expect(video.frames(blind, to: 2, .index).first?.index.sources.isEmpty == true)
        let seeing = core.updatePermissions("att-2", capabilities: caps("SendReceive", "SendReceive", "SendReceive"), now: now)
        #expect(video.frames(seeing, to: 2, .index).first?.index.sources.count == 1)
    }

    @Test func aContentShareWhoseCapabilityIsTakenAwayIsClosedWith4403() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = join(&core, 1)
        let share = AttendeeIdentity(attendeeId: "att-1#content", externalUserId: "user-1#content")
        let shareConnection = SignalingConnectionID(9)
        _ = core.accept(shareConnection, identity: share, permissions: AttendeeMediaPermissions(nil, contentSession: true), now: now)
        var join = SdkSignalFrame()
        join.type = .join
        _ = core.receive(join, from: shareConnection, now: now)
        let outputs = core.updatePermissions("att-1", capabilities: caps("SendReceive", "SendReceive", "Receive"), now: now)
        #expect(outputs.contains { if case .close(shareConnection, SignalingCloseCode.forbidden) = $0 { true } else { false } })
        #expect(!outputs.contains { if case .close(video.connection(1), _) = $0 { true } else { false } })
    }

    @Test func permissionsFollowChimesCapabilities() {
        #expect(AttendeeMediaPermissions(nil) == .all)
        #expect(AttendeeMediaPermissions(caps("Send", "Receive", "None"))
                == AttendeeMediaPermissions(sendsAudio: true, receivesAudio: false, sendsVideo: false, receivesVideo: true,
                                            receivesContent: false))
        #expect(AttendeeMediaPermissions(caps("Receive", "None", "None")).receivesAudio)
        #expect(AttendeeMediaPermissions(caps("SendReceive", "None", "Send"), contentSession: true)
                == AttendeeMediaPermissions(sendsAudio: true, receivesAudio: false, sendsVideo: true, receivesVideo: false,
                                            receivesContent: false))
        #expect(!AttendeeMediaPermissions(caps("SendReceive", "None", "Receive"), contentSession: true).sendsVideo)
    }

    /// A `#content` token of an attendee whose Content capability does not send is refused with 4403 (it got JOIN_ACK
    /// and shared slides); its main session is admitted with its capabilities.
    @Test func theAuthenticatorRefusesAShareTheAttendeeMayNotSend() async throws {
        let store = try SQLiteMeetingStore.inMemory()
        let secret = JoinTokenSecret.generate()
        let meeting = MeetingRecord(meetingId: "m-1", externalMeetingId: "ext", mediaRegion: "us-east-1", meetingHostId: nil,
                                    primaryMeetingId: nil, tenantIds: nil, features: .init(attendee: .init(maxCount: 250)),
                                    notifications: nil, createdAt: .init(timeIntervalSince1970: 1_700_000_000))
        try await store.insertMeeting(meeting, idempotencyKey: IdempotencyKey(accessKeyId: "AK", token: "t", fingerprint: "f"))
        let token = JoinToken.issue(meetingId: "m-1", attendeeId: "a-1", secret: secret)
        _ = try await store.insertAttendee(AttendeeRecord(meetingId: "m-1", attendeeId: "a-1", externalUserId: "guest",
                                                          joinToken: token, capabilities: caps("Receive", "Receive", "None")),
                                           limit: 10)
        let authenticator = StoreSignalingAuthenticator(store: store, secret: secret)
        let main = await authenticator.authenticate(meetingId: "m-1", joinToken: token)
        #expect(main == .accepted(AttendeeIdentity(attendeeId: "a-1", externalUserId: "guest"),
                                  permissions: AttendeeMediaPermissions(sendsAudio: false, sendsVideo: false,
                                                                        receivesVideo: true, receivesContent: false)))
        let share = await authenticator.authenticate(meetingId: "m-1", joinToken: token + JoinToken.contentSuffix)
        guard case .rejected(let code, _) = share else {
            Issue.record("a share the attendee may not send was admitted: \(share)")
            return
        }
        #expect(code == SignalingCloseCode.forbidden)
    }
}
