import CarillonCodecs
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Carillon

/// `/proc/asound` texts of a laptop with onboard HDA audio (analogue and HDMI) and a USB headset.
enum SoundCardFixtures {
    static let cards = """
         0 [PCH            ]: HDA-Intel - HDA Intel PCH
                              HDA Intel PCH at 0xf1240000 irq 147
         1 [Headset        ]: USB-Audio - Jabra EVOLVE 20 MS
                              GN Netcom A/S Jabra EVOLVE 20 MS at usb-0000:00:14.0-2, full speed

        """
    static let pcm = """
        00-00: ALC3246 Analog : ALC3246 Analog : playback 1 : capture 1
        00-03: HDMI 0 : HDMI 0 : playback 1
        01-00: USB Audio : USB Audio : playback 1 : capture 1

        """
    static let onboardOnlyCards = """
         0 [PCH            ]: HDA-Intel - HDA Intel PCH
                              HDA Intel PCH at 0xf1240000 irq 147

        """
}

/// Sound cards a test can change between listings.
final class FixtureSoundCards: Sendable {
    let devices = Mutex<[MediaDevice]>([])

    func set(cards: String, pcm: String) { devices.withLock { $0 = ALSASoundCards.parse(cards: cards, pcm: pcm) } }
}

/// Keeps the lists it is told about, and whether each call came on the expected queue.
final class DeviceChangeRecorder: DeviceChangeObserver, Sendable {
    private let calls = Mutex<[[MediaDevice]]>([])
    private let offQueue = Mutex(0)
    private let queueKey: DispatchSpecificKey<Int>?

    /// Records calls; with `queueKey`, counts those made where it is not set.
    init(queueKey: DispatchSpecificKey<Int>? = nil) {
        self.queueKey = queueKey
    }

    var lists: [[MediaDevice]] { calls.withLock { $0 } }
    var callsOffQueue: Int { offQueue.withLock { $0 } }

    func audioDeviceDidChange(freshAudioDeviceList: [MediaDevice]) {
        if let queueKey, DispatchQueue.getSpecific(key: queueKey) == nil { offQueue.withLock { $0 += 1 } }
        calls.withLock { $0.append(freshAudioDeviceList) }
    }
}

@Suite struct MediaDeviceTests {
    @Test func descriptionAndRawValues() {
        #expect(MediaDevice(label: "Jabra", type: .audioWiredHeadset).description == "Jabra - audioWiredHeadset")
        #expect(MediaDeviceType.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5, 6])
        #expect(MediaDeviceType.allCases.map(\.description) == [
            "audioBluetooth", "audioWiredHeadset", "audioBuiltInSpeaker", "audioHandset", "videoFrontCamera",
            "videoBackCamera", "other",
        ])
        #expect(MediaDeviceType(rawValue: 2) == .audioBuiltInSpeaker)
        #expect(MediaDeviceType(rawValue: 7) == nil)
    }

    @Test func alsaFixtureMapsToDocumentedTypes() {
        let devices = ALSASoundCards.parse(cards: SoundCardFixtures.cards, pcm: SoundCardFixtures.pcm)
        #expect(devices.map(\.description) == [
            "HDA Intel PCH: ALC3246 Analog (input) - audioHandset",
            "Jabra EVOLVE 20 MS: USB Audio (input) - audioWiredHeadset",
            "HDA Intel PCH: ALC3246 Analog (output) - audioBuiltInSpeaker",
            "HDA Intel PCH: HDMI 0 (output) - other",
            "Jabra EVOLVE 20 MS: USB Audio (output) - audioWiredHeadset",
        ])
        #expect(devices.map(\.endpoint.description) == [
            "alsa:hw:0,0:input", "alsa:hw:1,0:input", "alsa:hw:0,0:output", "alsa:hw:0,3:output", "alsa:hw:1,0:output",
        ])
        let cards = ALSASoundCards.parseCards(SoundCardFixtures.cards)
        #expect(cards.map(\.driver) == ["HDA-Intel", "USB-Audio"])
        #expect(cards[1].longName == "GN Netcom A/S Jabra EVOLVE 20 MS at usb-0000:00:14.0-2, full speed")
        #expect(ALSASoundCards.parse(cards: "--- no soundcards ---\n", pcm: "").isEmpty)
        let bluetooth = ALSASoundCards.Card(index: 2, id: "Dongle", driver: "USB-Audio", name: "Bluetooth Audio Dongle", longName: "")
        #expect(ALSASoundCards.type(card: bluetooth, pcmName: "USB Audio", direction: .output) == .audioBluetooth)
        let loopback = ALSASoundCards.Card(index: 3, id: "Loopback", driver: "Loopback", name: "Loopback", longName: "")
        #expect(ALSASoundCards.type(card: loopback, pcmName: "Loopback PCM", direction: .input) == .other)
    }

    @Test func alsaListingReadsProcFilesAndDegradesWithout() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("asound-\(UUID().uuidString)").path
        #expect(ALSASoundCards.list(root: root).isEmpty)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try SoundCardFixtures.cards.write(toFile: root + "/cards", atomically: true, encoding: .utf8)
        try SoundCardFixtures.pcm.write(toFile: root + "/pcm", atomically: true, encoding: .utf8)
        #expect(ALSASoundCards.list(root: root).count == 5)
    }

    @Test func listingIncludesVirtualDevicesAndLogsMissingCardsOnce() {
        let logger = RecordingLogger()
        let controller = DefaultDeviceController(logger: logger, virtualDevices: VirtualAudioDevices(), soundCards: { [] })
        let devices = controller.listAudioDevices()
        _ = controller.listAudioDevices()
        #expect(devices.map(\.description) == ["Silence - other", "Tone 440 Hz - other", "Null output - other"])
        #expect(logger.messages(at: .INFO).filter { $0.contains("No ALSA sound cards") }.count == 1)
        #expect(controller.getActiveAudioDevice()?.label == "Silence")
        #expect(controller.activeOutput?.label == "Null output")
        #expect(controller.getActiveCamera() == nil)
    }

    @Test func realDevicesComeFirstAndAreTheDefaults() {
        let cards = FixtureSoundCards()
        cards.set(cards: SoundCardFixtures.cards, pcm: SoundCardFixtures.pcm)
        let controller = DefaultDeviceController(logger: RecordingLogger(), virtualDevices: VirtualAudioDevices(),
                                                 soundCards: { cards.devices.withLock { $0 } })
        let labels = controller.listAudioDevices().map(\.label)
        #expect(labels.count == 8)
        #expect(labels.prefix(2) == ["HDA Intel PCH: ALC3246 Analog (input)", "Jabra EVOLVE 20 MS: USB Audio (input)"])
        #expect(labels.suffix(3) == ["Silence", "Tone 440 Hz", "Null output"])
        #expect(controller.activeInput?.label == "HDA Intel PCH: ALC3246 Analog (input)")
        #expect(controller.activeOutput?.type == .audioBuiltInSpeaker)
    }

    @Test func choosingChangesTheActiveDeviceAndUnknownDevicesAreRejected() throws {
        let logger = RecordingLogger()
        let session = DefaultMeetingSession(configuration: UnstartedSession.configuration, logger: logger)
        let analytics = session.eventAnalyticsController
        let controller = DefaultDeviceController(logger: logger, virtualDevices: VirtualAudioDevices(),
                                                 analytics: analytics, soundCards: { [] })
        let tone = try #require(controller.listAudioDevices().first { $0.label == "Tone 440 Hz" })
        let generation = controller.selectionGeneration
        controller.chooseAudioDevice(mediaDevice: tone)
        #expect(controller.getActiveAudioDevice() == tone)
        #expect(controller.activeInput == tone)
        #expect(controller.activeOutput?.label == "Null output")
        #expect(controller.selectionGeneration == generation + 1)

        controller.chooseAudioDevice(mediaDevice: MediaDevice(label: "Studio microphone", type: .audioHandset))
        #expect(controller.getActiveAudioDevice() == tone)
        #expect(controller.selectionGeneration == generation + 1)
        #expect(logger.messages(at: .ERROR).contains { $0.contains("Studio microphone - audioHandset is not an available audio device") })
        // Chime's device events: the choice in the history only, the refusal for observers too.
        #expect(analytics.getMeetingHistory().map(\.meetingHistoryEventName).suffix(2) == [.audioInputSelected, .audioInputFailed])

        // An app-made description of a listed device selects it.
        controller.chooseAudioDevice(mediaDevice: MediaDevice(label: "Silence", type: .other))
        #expect(controller.activeInput?.label == "Silence")
        #expect(controller.getActiveAudioDevice()?.endpoint == .virtual(key: "silence", direction: .input))

        // The opened source is the chosen device.
        controller.chooseAudioDevice(mediaDevice: tone)
        var source = controller.openInput(format: .mono16k)
        let frame = source.read(frameMilliseconds: 100)
        #expect(frame.format == .mono16k && frame.frameCount == 1600)
        #expect(FrequencyAnalysis.dominantFrequency(frame, candidates: [220, 330, 440, 550, 880]) == 440)
    }

    @Test func anALSADeviceThatCannotOpenFallsBackWithOneErrorLineEach() throws {
        // Card 31, PCM 7: the last card index ALSA allows, and no card has that many PCMs, so this opens nowhere.
        let missing = [
            MediaDevice(label: "Gone: USB Audio (input)", type: .audioWiredHeadset, endpoint: .alsa(card: 31, device: 7, direction: .input)),
            MediaDevice(label: "Gone: USB Audio (output)", type: .audioWiredHeadset, endpoint: .alsa(card: 31, device: 7, direction: .output)),
        ]
        let logger = RecordingLogger()
        let controller = DefaultDeviceController(logger: logger, virtualDevices: VirtualAudioDevices(), soundCards: { missing })
        let headset = try #require(controller.listAudioDevices().first { $0.type == .audioWiredHeadset })
        controller.chooseAudioDevice(mediaDevice: headset)
        #expect(controller.getActiveAudioDevice() == headset)
        var source = controller.openInput(format: .mono48k)
        #expect(source is SilenceAudioSource)
        #expect(source.read(frameMilliseconds: 20).samples.count == 960)
        #expect(controller.openOutput(format: .mono48k) is NullAudioSink)
        let errors = logger.messages(at: .ERROR)
        #expect(errors.count == 2)
        #expect(errors.first { $0.contains("ALSA PCM plughw:31,7: cannot open") && $0.hasSuffix("sending silence") } != nil)
        #expect(errors.first { $0.contains("ALSA PCM plughw:31,7: cannot open") && $0.hasSuffix("discarding received audio") } != nil)
        #expect(!controller.isPolling)
    }

    @Test func watcherReportsEachChangeOnce() {
        let silence = MediaDevice(label: "Silence", type: .other, endpoint: .virtual(key: "silence", direction: .input))
        let headset = MediaDevice(label: "Headset", type: .audioWiredHeadset, endpoint: .alsa(card: 1, device: 0, direction: .input))
        var watcher = DeviceWatcher()
        #expect(watcher.update([silence]) == nil)
        #expect(watcher.update([silence]) == nil)
        #expect(watcher.update([headset, silence]) == DeviceWatcher.Change(added: [headset], removed: [], devices: [headset, silence]))
        #expect(watcher.update([silence, headset]) == nil)
        #expect(watcher.update([silence]) == DeviceWatcher.Change(added: [], removed: [headset], devices: [silence]))
        #expect(watcher.update([silence]) == nil)
    }

    @Test func refreshReportsHotPlugOnceAndForgetsRemovedChoices() throws {
        let cards = FixtureSoundCards()
        cards.set(cards: SoundCardFixtures.onboardOnlyCards, pcm: SoundCardFixtures.pcm)
        let controller = DefaultDeviceController(logger: RecordingLogger(), virtualDevices: VirtualAudioDevices(),
                                                 soundCards: { cards.devices.withLock { $0 } })
        #expect(controller.refreshAudioDevices() == nil)

        cards.set(cards: SoundCardFixtures.cards, pcm: SoundCardFixtures.pcm)
        let generation = controller.selectionGeneration
        let plugged = try #require(controller.refreshAudioDevices())
        #expect(plugged.added.map(\.label) == ["Jabra EVOLVE 20 MS: USB Audio (input)", "Jabra EVOLVE 20 MS: USB Audio (output)"])
        #expect(plugged.removed.isEmpty)
        #expect(plugged.devices == controller.listAudioDevices())
        // The onboard devices stay first in the list, so the session keeps its devices.
        #expect(controller.selectionGeneration == generation)
        #expect(controller.refreshAudioDevices() == nil)

        controller.chooseAudioDevice(mediaDevice: plugged.added[0])
        let chosen = controller.selectionGeneration
        cards.set(cards: SoundCardFixtures.onboardOnlyCards, pcm: SoundCardFixtures.pcm)
        let unplugged = try #require(controller.refreshAudioDevices())
        #expect(unplugged.removed.map(\.label) == plugged.added.map(\.label))
        #expect(controller.activeInput?.label == "HDA Intel PCH: ALC3246 Analog (input)")
        #expect(controller.getActiveAudioDevice()?.label == "HDA Intel PCH: ALC3246 Analog (input)")
        #expect(controller.selectionGeneration == chosen + 1)
        #expect(controller.refreshAudioDevices() == nil)
    }

    @Test func theSelectionChangeHandlerHearsOfEachMoveOnce() throws {
        final class Count: Sendable { let value = Mutex(0) }
        let count = Count()
        let cards = FixtureSoundCards()
        cards.set(cards: SoundCardFixtures.onboardOnlyCards, pcm: SoundCardFixtures.pcm)
        let controller = DefaultDeviceController(logger: RecordingLogger(), virtualDevices: VirtualAudioDevices(),
                                                 soundCards: { cards.devices.withLock { $0 } })
        controller.setSelectionChangeHandler { count.value.withLock { $0 += 1 } }
        let tone = try #require(controller.listAudioDevices().first { $0.label == "Tone 440 Hz" })
        controller.chooseAudioDevice(mediaDevice: tone)
        #expect(count.value.withLock { $0 } == 1)
        controller.chooseAudioDevice(mediaDevice: MediaDevice(label: "Studio microphone", type: .audioHandset))
        #expect(count.value.withLock { $0 } == 1)

        // A device plugged in after the onboard ones leaves the active devices alone.
        cards.set(cards: SoundCardFixtures.cards, pcm: SoundCardFixtures.pcm)
        let plugged = try #require(controller.refreshAudioDevices())
        #expect(count.value.withLock { $0 } == 1)
        controller.chooseAudioDevice(mediaDevice: plugged.added[0])
        #expect(count.value.withLock { $0 } == 2)
        // The chosen headset goes away: the input falls back, a move.
        cards.set(cards: SoundCardFixtures.onboardOnlyCards, pcm: SoundCardFixtures.pcm)
        #expect(controller.refreshAudioDevices() != nil)
        #expect(count.value.withLock { $0 } == 3)

        controller.setSelectionChangeHandler(nil)
        controller.chooseAudioDevice(mediaDevice: tone)
        #expect(count.value.withLock { $0 } == 3)
    }
}
