import Foundation

/// How a headless attendee prints its events: readable lines, or (`--json`) one JSON object per line, so scripts
/// can follow a bot without parsing prose.
///
/// Threading: value type; printing goes through `output`, which must be safe from the caller's thread.
struct EventLine: Sendable {
    /// Whether events are JSON objects.
    let json: Bool
    /// Where a finished line goes.
    let output: @Sendable (String) -> Void

    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// Prints one event: `text` in text mode, `{"event": name, "time": ..., fields...}` in JSON mode (keys sorted;
    /// `time` is when it was printed, UTC, ISO 8601 with milliseconds).
    func emit(_ name: String, _ fields: [String: any Sendable] = [:], text: @autoclosure () -> String) {
        guard json else {
            output(text())
            return
        }
        var object: [String: Any] = ["event": name, "time": Date().formatted(Self.timeFormat)]
        for (key, value) in fields { object[key] = value }
        guard JSONSerialization.isValidJSONObject(object),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
              let line = String(data: data, encoding: .utf8)
        else { return }
        output(line)
    }
}
