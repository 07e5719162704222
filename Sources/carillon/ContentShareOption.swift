import ArgumentParser
import Foundation
import Carillon
import CarillonCodecs

/// The source `carillon join --share` names: `slides[:COLOR]` (generated 1280x720 slides at 5 fps, a new one every 3
/// s), `FILE.y4m` (4:2:0, looped) or `screen[:DISPLAY]` (an X11 display through XCB and MIT-SHM, 5 fps).
enum ContentShareOption {
    /// The option's help text.
    static let help = "Share content as <attendee>#content: slides[:COLOR] (generated 1280x720 slides at 5 fps, a new one every 3 s), FILE.y4m (4:2:0, looped) or screen[:DISPLAY] (an X11 display, default $DISPLAY, at 5 fps)."

    /// The source `specification` names, not started; with `check`, only validates (nothing is opened for long).
    static func source(_ specification: String, name: String, check: Bool = false) throws -> (any VideoCaptureSource)? {
        let parts = specification.split(separator: ":", maxSplits: 1).map(String.init)
        if parts.first == "slides" {
            let palette = VideoTestPattern.Color.palette
            var color = palette[(name.utf8.reduce(0) { $0 + Int($1) } + 1) % palette.count]
            if parts.count == 2 {
                guard let named = palette.first(where: { $0.name == parts[1].lowercased() }) else {
                    throw ValidationError("--share \(specification): unknown colour; use one of "
                                          + palette.map(\.name).joined(separator: ", "))
                }
                color = named
            }
            return check ? nil : try SlidesVideoSource(color: color)
        }
        if parts.first == "screen" {
            let display = parts.count == 2 ? parts[1] : nil
            let backend = ScreenCaptureBackend.x11(display: display.map { $0.hasPrefix(":") ? $0 : ":" + $0 })
            if check {
                // Refused before joining: a share whose capture fails at once would show others an empty tile.
                if display == nil, ProcessInfo.processInfo.environment["DISPLAY", default: ""].isEmpty {
                    throw ValidationError("--share \(specification): no display: DISPLAY is not set; name one with "
                                          + "--share screen:DISPLAY (`Xvfb :99 -screen 0 1280x720x24` makes one)")
                }
                if let reason = ScreenVideoSource.unavailableReason(backend) {
                    throw ValidationError("--share \(specification): \(reason)")
                }
                return nil
            }
            return try ScreenVideoSource(backend: backend)
        }
        guard specification.hasSuffix(".y4m") else {
            throw ValidationError("--share \(specification): use slides[:COLOR], screen[:DISPLAY] or a .y4m file")
        }
        do {
            let source = try Y4MFileVideoSource(path: specification)
            source.videoContentHint = .detail
            return check ? nil : source
        } catch {
            throw ValidationError("--share \(specification): \(error)")
        }
    }
}

/// Prints a content share's start and stop (`contentShareStarted`, `contentShareStopped` with its status).
///
/// Threading: called on the session's callback queue.
final class ContentSharePrinter: ContentShareObserver, @unchecked Sendable {
    private let line: EventLine

    init(line: EventLine) { self.line = line }

    func contentShareDidStart() {
        line.emit("contentShareStarted", text: "content share started")
    }

    /// One line per stop, with the one reason the share session gives (`--json`: `status` and `reason`).
    func contentShareDidStop(status: ContentShareStatus) {
        guard status.statusCode != .ok, let cause = status.sessionStatusCode else {
            line.emit("contentShareStopped", ["status": status.description], text: "content share stopped: \(status)")
            return
        }
        let reason = switch cause {
        case .audioCallAtCapacity: "the meeting already has its most content shares (two)"
        case .audioAuthenticationRejected: "the server refused the join token"
        case .audioCallEnded: "the meeting ended"
        case .ok: "the server ended it"
        default: "its session stopped with \(cause)"
        }
        line.emit("contentShareStopped", ["status": status.description, "reason": "\(cause)"],
                  text: "content share stopped: \(reason) (\(cause))")
    }
}
