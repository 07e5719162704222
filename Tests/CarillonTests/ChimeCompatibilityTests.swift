import Testing

@testable import Carillon

/// Small source-compatibility points apps ported from the Chime SDK rely on.
struct ChimeCompatibilityTests {
    @Test func videoResolutionsCompareBySize() {
        #expect(VideoResolution.videoResolutionHD == VideoResolution(width: 1280, height: 720))
        #expect(VideoResolution.high != VideoResolution.medium)
        #expect(MeetingFeatures(video: "hd", content: nil).videoMaxResolution == .videoResolutionHD)
    }

    @Test func mediaDevicesFromAPortTakeChimesTypes() {
        #expect(MediaDevice(label: "speaker").type == .other)
        #expect(MediaDevice(label: "speaker").port == nil)
        let headset = MediaDevice(label: "AirPods", port: AudioPortDescription(portType: .bluetoothHFP, portName: "AirPods"))
        #expect(headset.type == .audioBluetooth && headset.port?.portName == "AirPods")
        #expect(MediaDevice(label: "mic", port: AudioPortDescription(portType: .builtInMic, portName: "mic")).type == .audioHandset)
        #expect(MediaDevice(label: "wired", port: AudioPortDescription(portType: .headphones, portName: "w")).type
                == .audioWiredHeadset)
        #expect(MediaDevice(label: "s", port: AudioPortDescription(portType: .builtInSpeaker, portName: "s")).type
                == .audioBuiltInSpeaker)
        // Described devices match listed ones by label and type, like `init(label:type:)`.
        #expect(MediaDevice(label: "x", port: nil) == MediaDevice(label: "x", type: .other))
    }

    @Test func modalitiesSplitContentIds() {
        let content = DefaultModality(id: "attendee-1#content")
        #expect(content.base == "attendee-1" && content.modality == "content" && content.isOfType(type: .content))
        let plain = DefaultModality(id: "attendee-1")
        #expect(plain.base == "attendee-1" && plain.modality == nil && !plain.isOfType(type: .content))
        #expect(DefaultModality(id: "a#b#c").modality == nil)
        #expect(DefaultModality(id: "").base.isEmpty)
        #expect(DefaultModality.separator == "#")
    }

    /// An app's own logger: a non-final class with mutable state, no `Sendable` of its own (Swift 6 mode).
    class AppLogger: Logger {
        var lines: [String] = []
        var level = LogLevel.INFO
        func `default`(msg: String) { lines.append(msg) }
        func debug(debugFunction: () -> String) { lines.append(debugFunction()) }
        func info(msg: String) { lines.append(msg) }
        func fault(msg: String) { lines.append(msg) }
        func error(msg: String) { lines.append(msg) }
        func setLogLevel(level: LogLevel) { self.level = level }
        func getLogLevel() -> LogLevel { level }
    }

    @Test func anAppsOwnLoggerClassConforms() {
        let logger = AppLogger()
        let session = DefaultMeetingSession(configuration: UnstartedSession.configuration, logger: logger)
        #expect(session.logger === logger)
    }

    @Test func eventNamesKeepChimesRawValues() {
        #expect(EventName.allCases.count == 32 && EventName.meetingStartRequested.rawValue == 4)
        #expect(MeetingHistoryEventName.meetingStartRequested.rawValue == 5)
        #expect(MeetingHistoryEventName(.meetingEnded) == .meetingEnded)
        #expect(EventAttributeName.allCases.count == 37 && EventAttributeName.networkConnectionType.rawValue == 36)
        #expect(EventName.voiceFocusEnabled.description == "voiceFocusEnabled")
        #expect(MeetingHistoryEvent(meetingHistoryEventName: .meetingEnded, timestampMs: 5).description == "meetingEnded: 5")
        #expect(NoopEventReporterFactory().createEventReporter() == nil)
    }
}
