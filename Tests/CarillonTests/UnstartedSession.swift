@testable import Carillon

/// A session configuration that is never started (its signaling URL answers nothing): for tests of what a session
/// does before `start()` or without a server.
enum UnstartedSession {
    static var configuration: MeetingSessionConfiguration {
        let urls = MeetingSessionURLs(audioFallbackUrl: "f", audioHostUrl: "h", turnControlUrl: "t",
                                      signalingUrl: "ws://127.0.0.1:1/control/m", urlRewriter: URLRewriterUtils.defaultUrlRewriter)
        return MeetingSessionConfiguration(
            meetingId: "m", credentials: MeetingSessionCredentials(attendeeId: "a", externalUserId: "e", joinToken: "t"),
            urls: urls, urlRewriter: URLRewriterUtils.defaultUrlRewriter)
    }
}
