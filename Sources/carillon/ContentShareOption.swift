import ArgumentParser
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
            return check ? nil : try ScreenVideoSource(backend: .x11(display: display.map { $0.hasPrefix(":") ? $0 : ":" + $0 }))
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

    func contentShareDidStop(status: ContentShareStatus) {
        line.emit("contentShareStopped", ["status": status.description], text: "content share stopped: \(status)")
    }
}
