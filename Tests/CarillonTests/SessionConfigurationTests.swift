import Dispatch
import Foundation
import Testing

@testable import Carillon

@Suite struct SessionConfigurationTests {
    let meetingJSON = Data("""
    {"Meeting":{"MeetingId":"m-1","ExternalMeetingId":"ext","MediaRegion":"us-east-1","SomeFutureField":1,
     "MediaPlacement":{"AudioHostUrl":"h:3478","AudioFallbackUrl":"ws://h/calls/m-1","SignalingUrl":"ws://h:8080/control/m-1",
       "TurnControlUrl":"http://h/turn","EventIngestionUrl":"http://h/events"},
     "MeetingFeatures":{"Video":{"MaxResolution":"None"},"Content":{"MaxResolution":"UHD"}},"PrimaryMeetingId":"p-1"}}
    """.utf8)
    let attendeeJSON = Data(#"{"Attendee":{"ExternalUserId":"alice","AttendeeId":"a-1","JoinToken":"tok","Capabilities":{}}}"#.utf8)

    @Test func decodesTheRestResponsesAndRewritesEveryURL() throws {
        let configuration = MeetingSessionConfiguration(
            createMeetingResponse: try JSONDecoder().decode(CreateMeetingResponse.self, from: meetingJSON),
            createAttendeeResponse: try JSONDecoder().decode(CreateAttendeeResponse.self, from: attendeeJSON),
            urlRewriter: { $0.hasPrefix("h:") ? "host" + $0.dropFirst() : $0.replacingOccurrences(of: "://h", with: "://host") }
        )
        #expect(configuration.meetingId == "m-1")
        #expect(configuration.externalMeetingId == "ext")
        #expect(configuration.primaryMeetingId == "p-1")
        #expect(configuration.credentials.attendeeId == "a-1")
        #expect(configuration.credentials.joinToken == "tok")
        #expect(configuration.urls.signalingUrl == "ws://host:8080/control/m-1")
        #expect(configuration.urls.audioHostUrl == "host:3478")
        #expect(configuration.urls.ingestionUrl == "http://host/events")
        #expect(configuration.meetingFeatures.videoMaxResolution === VideoResolution.videoDisabled)
        #expect(configuration.meetingFeatures.contentMaxResolution === VideoResolution.videoResolutionUHD)
    }

    @Test func featureStringsFollowTheChimeRules() {
        #expect(MeetingFeatures(video: nil, content: nil).videoMaxResolution === VideoResolution.videoResolutionHD)
        #expect(MeetingFeatures(video: nil, content: nil).contentMaxResolution === VideoResolution.videoResolutionFHD)
        #expect(MeetingFeatures(video: "FHD", content: "weird").contentMaxResolution === VideoResolution.videoResolutionUHD)
    }

    @Test func signalingTargetsAcceptWsAndWss() throws {
        let target = try SignalingSocket.Target(url: DefaultAudioVideoFacade.signalingURL("ws://127.0.0.1:9000/control/m-1"))
        #expect(target.host == "127.0.0.1" && target.port == 9000 && !target.secure)
        #expect(target.pathAndQuery.hasPrefix("/control/m-1?X-Chime-Control-Protocol-Version=3&X-Amzn-Chime-Send-Close-On-Error=1"))
        let secure = try SignalingSocket.Target(url: "wss://signal.example.com/control/m")
        #expect(secure.secure && secure.port == 443 && secure.host == "signal.example.com")
        let literal = try SignalingSocket.Target(url: "wss://[::1]:8443/control/m")
        #expect(literal.host == "::1" && literal.port == 8443)
        #expect(throws: SignalingSocketError.self) { try SignalingSocket.Target(url: "ftp://h/control/m") }
        #expect(throws: SignalingSocketError.self) { try SignalingSocket.Target(url: "not a url") }
    }

    @Test func trustRootsComeFromTheEnvironment() {
        #expect(TLSTrustRoots.fromEnvironment([:]) == .system)
        #expect(TLSTrustRoots.fromEnvironment(["CARILLON_CA_FILE": "/a.pem:/b.pem"]).additionalCertificateFiles
                == ["/a.pem", "/b.pem"])
    }

    @Test func anUnreadableTrustedCertificateFileFailsStart() throws {
        let urls = MeetingSessionURLs(audioFallbackUrl: "f", audioHostUrl: "h", turnControlUrl: "t",
                                      signalingUrl: "wss://127.0.0.1:1/control/m", urlRewriter: URLRewriterUtils.defaultUrlRewriter)
        let credentials = MeetingSessionCredentials(attendeeId: "a", externalUserId: "e", joinToken: "t")
        let session = DefaultMeetingSession(
            configuration: MeetingSessionConfiguration(meetingId: "m", credentials: credentials, urls: urls,
                                                       urlRewriter: URLRewriterUtils.defaultUrlRewriter),
            logger: ConsoleLogger(name: "test", level: .OFF),
            callbackQueue: DispatchQueue(label: "test"),
            tlsTrustRoots: TLSTrustRoots(additionalCertificateFiles: ["/nonexistent/ca.pem"])
        )
        #expect(throws: MediaError.audioFailedToStart) { try session.audioVideo.start() }
    }

    @Test func startRefusesBlankURLsAndASecondStart() throws {
        let urls = MeetingSessionURLs(audioFallbackUrl: " ", audioHostUrl: "h", turnControlUrl: "t",
                                      signalingUrl: "ws://127.0.0.1:1/control/m", urlRewriter: URLRewriterUtils.defaultUrlRewriter)
        let credentials = MeetingSessionCredentials(attendeeId: "a", externalUserId: "e", joinToken: "t")
        let blank = DefaultMeetingSession(
            configuration: MeetingSessionConfiguration(meetingId: "m", credentials: credentials, urls: urls,
                                                       urlRewriter: URLRewriterUtils.defaultUrlRewriter),
            logger: ConsoleLogger(name: "test", level: .OFF)
        )
        #expect(throws: MediaError.audioFailedToStart) { try blank.audioVideo.start() }
        #expect(blank.audioVideo.realtimeLocalMute() == false)
    }
}
