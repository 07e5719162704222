import Foundation
import Logging
import Testing

@testable import carillon

/// `serve --log-format json`: one object per line with stable keys in a stable order, strings escaped so a line
/// never breaks, metadata nested with sorted keys.
@Suite struct JSONLineLogHandlerTests {
    let time = Date(timeIntervalSince1970: 1_795_000_000.125)

    @Test func keysComeInTheirOrderAndMetadataOnlyWhenThereIsAny() {
        let bare = JSONLineLogHandler.line(time: time, level: .info, label: "carillon.serve", message: "ready", metadata: [:])
        #expect(bare == "{\"time\":\"2026-11-18T11:06:40.125Z\",\"level\":\"info\",\"logger\":\"carillon.serve\",\"message\":\"ready\"}\n")
        let rich = JSONLineLogHandler.line(
            time: time, level: .warning, label: "l", message: "m",
            metadata: ["meeting": "m-1", "attendee": .stringConvertible(42), "list": ["a", ["k": "v"]]])
        #expect(rich.hasSuffix(",\"metadata\":{\"attendee\":\"42\",\"list\":[\"a\",{\"k\":\"v\"}],\"meeting\":\"m-1\"}}\n"))
    }

    @Test func quotesBackslashesAndControlCharactersAreEscaped() throws {
        let message = "say \"hi\"\\\n\t\u{1}é"
        let line = JSONLineLogHandler.line(time: time, level: .error, label: "l", message: message, metadata: [:])
        #expect(line.contains("\"message\":\"say \\\"hi\\\"\\\\\\n\\t\\u0001é\""))
        #expect(line.dropLast().contains("\n") == false)
        // What a log collector reads back is the message as logged.
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == message)
    }

    @Test func theLoggerWritesThroughTheHandlerWithTheCallsMetadataWinning() {
        let lines = LinesBox()
        var handler = JSONLineLogHandler(label: "t") { lines.append($0) }
        handler[metadataKey: "meeting"] = "m-1"
        handler[metadataKey: "attendee"] = "handler"
        let logger = Logger(label: "t", factory: { _ in handler })
        logger.info("joined", metadata: ["attendee": "call"])
        logger.debug("not at info")
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.contains("\"metadata\":{\"attendee\":\"call\",\"meeting\":\"m-1\"}") == true)
    }
}

/// Lines collected from the handler's write callback.
private final class LinesBox: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
