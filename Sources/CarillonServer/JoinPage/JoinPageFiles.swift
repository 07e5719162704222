/// The join page's files, embedded in the binary at build time (SwiftPM's `embedInCode` resources: no files to
/// install beside it, no build step for the page), and the response headers they are served with.
///
/// The page is static: everything that differs per meeting or guest comes from the page's own `POST` (the invite is
/// read from its URL), so it can be sent as it is. Stateless; safe from any thread.
enum JoinPageFiles {
    /// One file: its bytes and media type.
    struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
    }

    /// The meeting page, served at `/join/<invite>`.
    static let page = File(bytes: PackageResources.join_html, contentType: "text/html; charset=utf-8")

    /// The page's scripts and style sheet, served at `/join/assets/<name>`, by name.
    static let assets: [String: File] = [
        "meeting.js": File(bytes: PackageResources.meeting_js, contentType: "text/javascript; charset=utf-8"),
        "signaling-codec.js": File(bytes: PackageResources.signaling_codec_js, contentType: "text/javascript; charset=utf-8"),
        "meeting.css": File(bytes: PackageResources.meeting_css, contentType: "text/css; charset=utf-8"),
    ]

    /// The headers of everything under `/join/`: a Content-Security-Policy that allows only this server's own
    /// scripts, styles and connections (plus `webSocketOrigin`, where signaling is, when that differs from the page's
    /// origin), no framing, no referrer (the invite is in the URL), no caching of the page (it is the invite's), and
    /// camera, microphone and screen capture for this origin only.
    static func headers(contentType: String, webSocketOrigin: String) -> [(name: String, value: String)] {
        let policy = [
            "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:",
            "media-src 'self' blob: mediastream:", "connect-src 'self' \(webSocketOrigin)", "base-uri 'none'",
            "form-action 'self'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
        return [
            ("Content-Type", contentType),
            ("Content-Security-Policy", policy),
            ("Referrer-Policy", "no-referrer"),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Cache-Control", "no-store"),
            ("Permissions-Policy", "camera=(self), microphone=(self), display-capture=(self), autoplay=(self)"),
        ]
    }

    /// The origin (`ws://host:port`) of a base URL's WebSocket form, for the policy's `connect-src`.
    static func webSocketOrigin(baseURL: String) -> String {
        let ws = LocalMeetingPlacement.webSocketURL(baseURL)
        guard let scheme = ws.range(of: "://") else { return "'self'" }
        let rest = ws[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        return String(ws[..<scheme.upperBound]) + authority
    }

    /// A small page that says why the link does not lead to a meeting, in the page's style.
    static func errorPage(title: String, message: String) -> [UInt8] {
        let text = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · Carillon</title><link rel="icon" href="data:,"><link rel="stylesheet" href="assets/meeting.css"></head>
            <body class="notice"><main class="notice-card"><h1>\(escape(title))</h1><p>\(escape(message))</p></main></body></html>

            """
        return Array(text.utf8)
    }

    /// Escapes text for HTML element content.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
