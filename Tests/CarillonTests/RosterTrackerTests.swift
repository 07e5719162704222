import CarillonProtocol
import Testing

@testable import Carillon

@Suite struct RosterTrackerTests {
    func entry(_ stream: UInt32, _ attendee: String? = nil, external: String = "", muted: Bool? = nil, dropped: Bool? = nil)
        -> SdkAudioStreamIdInfo
    {
        var entry = SdkAudioStreamIdInfo()
        entry.audioStreamID = stream
        if let attendee { entry.attendeeID = attendee; entry.externalUserID = external }
        if let muted { entry.muted = muted }
        if let dropped { entry.dropped = dropped }
        return entry
    }

    func ids(_ list: [AttendeeInfo]) -> [String] { list.map(\.attendeeId) }

    @Test func joinsAreReportedOnceAndExternalIdsFallBack() {
        var roster = RosterTracker(selfAttendeeId: "me")
        let first = roster.apply([entry(1, "me", external: "Me"), entry(2, "a")])
        #expect(ids(first.joined) == ["me", "a"])
        #expect(first.joined[1].externalUserId == "a")
        #expect(roster.apply([entry(2, "a"), entry(1, "me")]).joined.isEmpty)
    }

    @Test func muteChangesOnlyWhenTheyChange() {
        var roster = RosterTracker(selfAttendeeId: "me")
        let join = roster.apply([entry(1, "a", muted: false), entry(2, "b", muted: true)])
        #expect(ids(join.muted) == ["b"])
        #expect(join.unmuted.isEmpty)
        #expect(ids(roster.apply([entry(1, muted: true)]).muted) == ["a"])
        #expect(roster.apply([entry(1, muted: true)]).isEmpty)
        #expect(ids(roster.apply([entry(1, muted: false)]).unmuted) == ["a"])
    }

    @Test func leaveAndDropAreReportedOnlyWithoutANewerStream() {
        var roster = RosterTracker(selfAttendeeId: "me")
        _ = roster.apply([entry(1, "a"), entry(2, "b")])
        // a reconnects on stream 3, then stream 1 is retired: no leave.
        let moved = roster.apply([entry(3, "a"), entry(1)])
        #expect(moved.isEmpty)
        #expect(ids(roster.apply([entry(3, dropped: true)]).dropped) == ["a"])
        #expect(ids(roster.apply([entry(2)]).left) == ["b"])
        #expect(roster.apply([entry(2)]).isEmpty)
    }

    @Test func theFirstFrameAfterAJoinIsTheWholeRoster() {
        var roster = RosterTracker(selfAttendeeId: "me")
        _ = roster.apply([entry(1, "me"), entry(2, "a"), entry(3, "b")])
        roster.expectFullRoster()
        let rejoined = roster.apply([entry(10, "me"), entry(11, "a")])
        #expect(rejoined.joined.isEmpty)
        #expect(ids(rejoined.left) == ["b"])
        // Old stream ids are forgotten: retiring one is not a leave of a.
        #expect(roster.apply([entry(2)]).isEmpty)
        #expect(ids(roster.attendees) == ["a", "me"])
    }
}
