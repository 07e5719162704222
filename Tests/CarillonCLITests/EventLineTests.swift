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
