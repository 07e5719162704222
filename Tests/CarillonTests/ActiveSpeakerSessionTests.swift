import CarillonProtocol
import NIOCore
import Testing

@testable import Carillon

/// The signaling core's roster and volume events fed to an active-speaker detector, as a session wires them, on a
/// virtual clock: steady talkers stay, and after a reconnect the list and the volume updates come back.
@Suite struct ActiveSpeakerSessionTests {
    final class Observer: ActiveSpeakerObserver {
        let observerId = "session"
        func activeSpeakerDidDetect(attendeeInfo: [AttendeeInfo]) {}
    }

    /// A session core and a detector, and what reached the app: active-speaker lists and volume updates.
    struct Session {
        var core = SignalingSessionCore(
            credentials: MeetingSessionCredentials(attendeeId: "self-id", externalUserId: "me", joinToken: "token"),
            audioSessionId: 1, random: { 0 })
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self-id")
        let observer = Observer()
        var lists: [[String]] = []
        var volumes: [[String: VolumeLevel]] = []
        var now = SessionTime(monotonic: .uptimeNanoseconds(5_000_000_000), unixMilliseconds: 1_700_000_000_000)

        init() {
            _ = detector.addObserver(policy: DefaultActiveSpeakerPolicy(), observer: observer, at: now.monotonic)
        }

        /// Moves the clock on, running the detector's timer on its way.
        mutating func advance(by amount: TimeAmount) {
            let end = now.advanced(by: amount)
            while let due = detector.nextDeadline, due <= end.monotonic { record(detector.advance(to: due)) }
            now = end
        }

        /// Hands the core's events to the detector as the session's observers get them.
        mutating func take(_ actions: [SessionAction]) {
            for case .event(let event) in actions {
                switch event {
                case .roster(let changes):
                    record(detector.attendeesDidJoin(changes.joined, at: now.monotonic))
                    record(detector.attendeesDidLeave(changes.left + changes.dropped, at: now.monotonic))
                case .volumes(let updates):
                    volumes.append(Dictionary(uniqueKeysWithValues: updates.map { ($0.attendeeInfo.attendeeId, $0.volumeLevel) }))
                    record(detector.volumeDidChange(updates, at: now.monotonic))
                default:
                    break
                }
            }
        }

        mutating func record(_ events: [ActiveSpeakerDetector.Event]) {
            for case .activeSpeakers(_, let attendees) in events { lists.append(attendees.map(\.attendeeId)) }
        }

        mutating func receive(_ type: SdkSignalFrame.TypeEnum, _ build: (inout SdkSignalFrame) -> Void = { _ in }) {
            var frame = SdkSignalFrame()
            frame.timestampMs = 1
            frame.type = type
            build(&frame)
            take(core.received(frame, now: now))
        }

        /// JOIN, JOIN_ACK, INDEX and the media step, as at the start and at each reconnect.
        mutating func join() {
            take(core.socketOpened(now: now))
            receive(.joinAck)
            receive(.index)
            take(core.mediaOfferReady("v=0 offer", now: now))
            receive(.subscribeAck) { $0.suback.sdpAnswer = "v=0 answer" }
            take(core.mediaConnected(now: now))
        }

        /// AUDIO_STREAM_ID_INFO naming attendees with their stream ids.
        mutating func roster(_ streams: [(String, UInt32)]) {
            receive(.audioStreamIDInfo) { frame in
                frame.audioStreamIDInfo.streams = streams.map { id, stream in
                    var entry = SdkAudioStreamIdInfo()
                    entry.audioStreamID = stream
                    entry.attendeeID = id
                    entry.externalUserID = id
                    return entry
                }
            }
        }

        /// AUDIO_METADATA with these volumes (dB below full scale) by stream id.
        mutating func metadata(_ levels: [(UInt32, UInt32)]) {
            receive(.audioMetadata) { frame in
                frame.audioMetadata.attendeeStates = levels.map { stream, volume in
                    var state = SdkAudioAttendeeState()
                    state.audioStreamID = stream
                    state.volume = volume
                    return state
                }
            }
        }

        var activeSpeakers: [String] { detector.activeSpeakers(for: observer).map(\.attendeeId) }
    }

    /// Three attendees with tones of one level (-15 dBov: `.high`), which the server reports once.
    func meetingWithThreeSteadyTalkers() -> Session {
        var session = Session()
        _ = session.core.start(reconnectBudget: .seconds(120), now: session.now)
        session.join()
        session.roster([("self-id", 1), ("alice", 2), ("bob", 3), ("carol", 4)])
        session.advance(by: .milliseconds(200))
        session.metadata([(2, 15), (3, 15), (4, 15)])
        return session
    }

    @Test func threeSteadyTalkersStayForAMinute() {
        var session = meetingWithThreeSteadyTalkers()
        #expect(session.lists == [["alice"], ["alice", "bob"], ["alice", "bob", "carol"]])
        #expect(session.volumes == [["self-id": .notSpeaking, "alice": .high, "bob": .high, "carol": .high]])
        // The server sends nothing more: nothing changes.
        session.advance(by: .seconds(60))
        #expect(session.lists.count == 3)
        #expect(session.activeSpeakers == ["alice", "bob", "carol"])
    }

    @Test func aReconnectToTheSameServerReportsTheLevelsAgain() {
        var session = meetingWithThreeSteadyTalkers()
        session.advance(by: .seconds(10))
        take(&session, session.core.socketClosed(code: nil, now: session.now))
        session.advance(by: .seconds(2))
        take(&session, session.core.tick(now: session.now))
        session.join()
        // The same attendees on the same streams; the server's first frame after the JOIN has the same levels.
        session.roster([("self-id", 1), ("alice", 2), ("bob", 3), ("carol", 4)])
        session.advance(by: .milliseconds(200))
        session.metadata([(2, 15), (3, 15), (4, 15)])
        #expect(session.volumes.count == 2)
        #expect(session.volumes.last == ["self-id": .notSpeaking, "alice": .high, "bob": .high, "carol": .high])
        session.advance(by: .seconds(30))
        #expect(session.lists == [["alice"], ["alice", "bob"], ["alice", "bob", "carol"]])
        #expect(session.activeSpeakers == ["alice", "bob", "carol"])
    }

    @Test func afterAServerRestartTheListIsBackWithinASecondOfTheAudio() {
        var session = meetingWithThreeSteadyTalkers()
        session.advance(by: .seconds(10))
        take(&session, session.core.socketClosed(code: nil, now: session.now))
        session.advance(by: .seconds(2))
        take(&session, session.core.tick(now: session.now))
        // A restarted server knows only who is back: at first this client alone, on a new stream id.
        session.join()
        session.roster([("self-id", 7)])
        #expect(session.lists.last == [])
        session.advance(by: .seconds(3))
        // The others come back one by one and their audio returns; the server reports the levels once.
        session.roster([("alice", 8)])
        session.roster([("bob", 9)])
        session.roster([("carol", 10)])
        let back = session.lists.count
        session.advance(by: .milliseconds(200))
        session.metadata([(8, 15), (9, 15), (10, 15)])
        #expect(session.volumes.last == ["self-id": .notSpeaking, "alice": .high, "bob": .high, "carol": .high])
        #expect(Array(session.lists.dropFirst(back)) == [["alice"], ["alice", "bob"], ["alice", "bob", "carol"]])
        session.advance(by: .seconds(60))
        #expect(session.lists.count == back + 3)
        #expect(session.activeSpeakers == ["alice", "bob", "carol"])
    }

    private func take(_ session: inout Session, _ actions: [SessionAction]) { session.take(actions) }
}
