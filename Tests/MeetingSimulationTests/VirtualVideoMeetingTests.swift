import CarillonCodecs
import CarillonRTC
import NIOCore
import Testing

@testable import Carillon
@testable import CarillonServer

/// Video through the whole system in virtual time: each attendee's session core encodes its camera (a pattern in
/// its own colour with a frame counter), the server's router forwards it, and every other attendee's core assembles,
/// decodes and reads it back. Deterministic for a seed.
@Suite struct VirtualVideoMeetingTests {
    static let colors: [VideoTestPattern.Color] = [.red, .green, .blue, .yellow]
    static let names = ["alice", "bob", "carol", "dave"]

    struct Tile: Equatable, CustomStringConvertible {
        var frames = 0
        var counters: Set<Int> = []
        var unreadable = 0
        var wrongColor = 0
        var longestFreeze = TimeAmount.zero
        var first: Int?
        var last: Int?
        var description: String {
            "frames \(frames), counters \(first ?? -1)...\(last ?? -1) (\(counters.count) distinct), unreadable \(unreadable), "
                + "wrong colour \(wrongColor), longest freeze \(longestFreeze.nanoseconds / 1_000_000) ms"
        }
    }

    /// Per receiving attendee, per sender: what its tile showed from `from` on.
    static func tiles(_ meeting: VirtualMeeting, from: NIODeadline) -> [[String: Tile]] {
        meeting.attendees.map { attendee in
            var tiles: [String: Tile] = [:]
            var lastAt: [String: NIODeadline] = [:]
            for frame in attendee.receivedFrames where frame.at >= from {
                var tile = tiles[frame.attendeeId] ?? Tile()
                tile.frames += 1
                if let counter = frame.counter {
                    tile.counters.insert(counter)
                    tile.first = min(tile.first ?? counter, counter)
                    tile.last = max(tile.last ?? counter, counter)
                } else {
                    tile.unreadable += 1
                }
                let sender = names.firstIndex { "attendee-\($0)" == frame.attendeeId }
                if frame.color != sender.map({ colors[$0] }) { tile.wrongColor += 1 }
                if let previous = lastAt[frame.attendeeId] { tile.longestFreeze = max(tile.longestFreeze, frame.at - previous) }
                lastAt[frame.attendeeId] = frame.at
                tiles[frame.attendeeId] = tile
            }
            return tiles
        }
    }

    @Test func fourCamerasAtTenPercentLossReachEveryoneElse() throws {
        let meeting = try VirtualMeeting(seed: 11)
        let conditions = LinkConditions(lossRate: 0.1, delay: .milliseconds(30), jitter: .milliseconds(8), allowsReordering: true)
        for name in Self.names { try meeting.join(name, frequency: nil, conditions: conditions) }
        try meeting.run(for: .seconds(2))
        for (index, attendee) in meeting.attendees.enumerated() { try meeting.startVideo(attendee, color: Self.colors[index]) }
        let settled = meeting.now + .seconds(3)
        try meeting.run(for: .seconds(20))
        let tiles = Self.tiles(meeting, from: settled)
        for (index, attendee) in meeting.attendees.enumerated() {
            let others = Self.names.indices.filter { $0 != index }.map { "attendee-\(Self.names[$0])" }
            #expect(Set(tiles[index].keys) == Set(others), "\(attendee.name) sees \(tiles[index].keys.sorted())")
            for sender in others {
                let tile = try #require(tiles[index][sender], "\(attendee.name) has no tile of \(sender)")
                let span = (tile.last ?? 0) - (tile.first ?? 0) + 1
                // Under 5 % of the frames sent in the window missing, none unreadable or in another colour.
                #expect(Double(tile.counters.count) >= 0.95 * Double(span), "\(attendee.name) ← \(sender): \(tile)")
                #expect(span >= 15 * 16, "\(attendee.name) ← \(sender): \(tile)")
                #expect(tile.unreadable == 0 && tile.wrongColor == 0, "\(attendee.name) ← \(sender): \(tile)")
                #expect(tile.longestFreeze <= .milliseconds(500), "\(attendee.name) ← \(sender): \(tile)")
            }
            #expect(attendee.endedVideos.isEmpty)
        }
        print("video at 10 % loss:", tiles.enumerated().map { "\(Self.names[$0.offset]): \($0.element.mapValues(\.description))" })
    }
}
