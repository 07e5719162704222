import Carillon
import Foundation
import Synchronization
import Testing

@testable import carillon

@Suite struct EventLineTests {
    /// `--json` events carry when they were printed (UTC, milliseconds), besides the event and its fields; text lines
    /// stay as they were.
    @Test func jsonEventsCarryTheirTime() throws {
        let lines = Mutex<[String]>([])
        let before = Date()
        EventLine(json: true) { line in lines.withLock { $0.append(line) } }
            .emit("joined", ["attendees": ["zed"]], text: "joined")
        EventLine(json: false) { line in lines.withLock { $0.append(line) } }
            .emit("joined", ["attendees": ["zed"]], text: "joined: zed")
        let printed = lines.withLock { $0 }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(printed[0].utf8)) as? [String: Any])
        #expect(object["event"] as? String == "joined" && object["attendees"] as? [String] == ["zed"])
        let time = try #require(object["time"] as? String)
        #expect(time.hasSuffix("Z") && time.contains("."), "\(time)")
        let parsed = try Date(time, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        #expect(abs(parsed.timeIntervalSince(before)) < 60)
        #expect(printed[1] == "joined: zed")
    }
}

@Suite struct AttendeeNamingTests {
    /// Every `--json` event names attendees one way: ExternalUserIds (`attendees`, `from`, `attendee`) with their
    /// attendee ids beside them (`attendeeIds`, `fromAttendeeId`, `attendeeId`), in the same order.
    @Test func rosterAndDataEventsCarryIdsBesideExternalUserIds() throws {
        let lines = Mutex<[String]>([])
        let printer = AttendeeEventPrinter(prefix: "", json: true) { line in lines.withLock { $0.append(line) } }
        printer.attendeesDidJoin(attendeeInfo: [AttendeeInfo(attendeeId: "z-1", externalUserId: "zed"),
                                                AttendeeInfo(attendeeId: "a-2", externalUserId: "ana")])
        printer.dataMessageDidReceived(dataMessage: DataMessage(
            topic: "chat", data: Data("hi".utf8), senderAttendeeId: "a-2", senderExternalUserId: "ana",
            timestampMs: 1, throttled: false))
        let objects = try lines.withLock { $0 }.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects[0]["attendees"] as? [String] == ["ana", "zed"])
        #expect(objects[0]["attendeeIds"] as? [String] == ["a-2", "z-1"])
        #expect(objects[1]["from"] as? String == "ana" && objects[1]["fromAttendeeId"] as? String == "a-2")
    }
}

@Suite struct MetricTextTests {
    /// `join --metrics` text lines carry units (they were bare numbers): percent, kbit/s, fps, ms.
    @Test func metricsAreWrittenWithTheirUnits() {
        #expect(AttendeeEventPrinter.describe(.audioReceivePacketLossPercent, 2.5) == "audioReceivePacketLossPercent 2.5 %")
        #expect(AttendeeEventPrinter.describe(.videoSendBitrate, 612_345) == "videoSendBitrate 612 kbit/s")
        #expect(AttendeeEventPrinter.describe(.videoAvailableSendBandwidth, 1_500_000) == "videoAvailableSendBandwidth 1500 kbit/s")
        #expect(AttendeeEventPrinter.describe(.videoSendFps, 15) == "videoSendFps 15.0 fps")
        #expect(AttendeeEventPrinter.describe(.videoSendRttMs, 3.4) == "videoSendRttMs 3 ms")
    }
}
