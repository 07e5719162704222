import Foundation
import Logging
import Synchronization

/// A swift-log handler that writes one JSON object per line (`serve --log-format json`), for log collectors that
/// index fields rather than parse prose.
///
/// Keys, in this order and stable: `time` (UTC, ISO 8601 with milliseconds), `level`, `logger` (the label),
/// `message`, then `metadata` (an object, only when there is any; the handler's own metadata merged with the
/// call's, the call's winning, and the error a call passed as `error`). Strings are escaped per RFC 8259, so a message with quotes or newlines stays on one
/// line.
///
/// Cost: one string built per line and one `write(2)`; lines from different threads never interleave (a lock
/// around the write).
struct JSONLineLogHandler: LogHandler {
    /// The handler's level (swift-log asks handlers, not loggers, for it).
    var logLevel: Logger.Level = .info
    /// Metadata attached to every line this handler writes.
    var metadata: Logger.Metadata = [:]
    private let label: String
    private let write: @Sendable (String) -> Void

    private static let lock = Mutex(())
    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// A handler for `label` that writes lines to standard error.
    static func standardError(label: String) -> JSONLineLogHandler {
        JSONLineLogHandler(label: label) { line in
            lock.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
        }
    }

    /// A handler for `label` that hands each finished line (with its newline) to `write`.
    init(label: String, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.write = write
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata.merging(event.metadata ?? [:]) { _, call in call }
        if let error = event.error { merged["error"] = .string("\(error)") }
        write(Self.line(time: Date(), level: event.level, label: label, message: event.message.description,
                        metadata: merged))
    }

    /// One finished line for these fields: what `log` writes, exposed for tests.
    static func line(time: Date, level: Logger.Level, label: String, message: String,
                     metadata: Logger.Metadata) -> String {
        var out = "{\"time\":"
        appendString(time.formatted(timeFormat), to: &out)
        out += ",\"level\":"
        appendString(level.rawValue, to: &out)
        out += ",\"logger\":"
        appendString(label, to: &out)
        out += ",\"message\":"
        appendString(message, to: &out)
        if !metadata.isEmpty {
            out += ",\"metadata\":"
            appendValue(.dictionary(metadata), to: &out)
        }
        out += "}\n"
        return out
    }

    /// A metadata value as JSON: strings and string-convertibles as strings, dictionaries (keys sorted) as objects,
    /// arrays as arrays.
    private static func appendValue(_ value: Logger.Metadata.Value, to out: inout String) {
        switch value {
        case .string(let string):
            appendString(string, to: &out)
        case .stringConvertible(let convertible):
            appendString(convertible.description, to: &out)
        case .dictionary(let dictionary):
            out += "{"
            for (index, key) in dictionary.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                appendString(key, to: &out)
                out += ":"
                appendValue(dictionary[key]!, to: &out)
            }
            out += "}"
        case .array(let array):
            out += "["
            for (index, element) in array.enumerated() {
                if index > 0 { out += "," }
                appendValue(element, to: &out)
            }
            out += "]"
        }
    }

    /// `string` as a JSON string: quote, backslash and control characters escaped, everything else as is (UTF-8).
    private static func appendString(_ string: String, to out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
