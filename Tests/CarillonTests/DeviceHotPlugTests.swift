import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Carillon

/// `DefaultDeviceController` polling by itself: observers hear about sound cards appearing and disappearing on the
/// callback queue, and the timer lives only while needed.
@Suite struct DeviceHotPlugTests {
    /// Polls `condition` until it holds or `timeout` passes; whether it held.
    private func eventually(within timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    private func controller(_ cards: FixtureSoundCards, queue: DispatchQueue,
                            poll: DispatchTimeInterval = .milliseconds(50)) -> DefaultDeviceController {
        DefaultDeviceController(logger: RecordingLogger(), virtualDevices: VirtualAudioDevices(), callbackQueue: queue,
                                pollInterval: poll, soundCards: { cards.devices.withLock { $0 } })
    }

    @Test func observersHearAboutADeviceAppearingAndDisappearingOnTheCallbackQueue() async throws {
        let cards = FixtureSoundCards()
        cards.set(cards: SoundCardFixtures.onboardOnlyCards, pcm: SoundCardFixtures.pcm)
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "test.device-callbacks")
        queue.setSpecific(key: key, value: 1)
        let controller = controller(cards, queue: queue)
        let observer = DeviceChangeRecorder(queueKey: key)
        let removed = DeviceChangeRecorder()
        #expect(!controller.isPolling)
        controller.addDeviceChangeObserver(observer: observer)
        controller.addDeviceChangeObserver(observer: removed)
        controller.removeDeviceChangeObserver(observer: removed)
        #expect(controller.isPolling)

        cards.set(cards: SoundCardFixtures.cards, pcm: SoundCardFixtures.pcm)
        #expect(await eventually { observer.lists.count == 1 }, "no call after a headset appeared")
        let plugged = try #require(observer.lists.first)
        #expect(plugged == controller.listAudioDevices())
        #expect(plugged.contains { $0.label == "Jabra EVOLVE 20 MS: USB Audio (input)" })

        cards.set(cards: SoundCardFixtures.onboardOnlyCards, pcm: SoundCardFixtures.pcm)
        #expect(await eventually { observer.lists.count == 2 }, "no call after the headset disappeared")
        let unplugged = try #require(observer.lists.last)
        #expect(unplugged == controller.listAudioDevices())
        #expect(!unplugged.contains { $0.type == .audioWiredHeadset })

        // Nothing more without a change, and nothing ever for the removed observer.
        try await Task.sleep(for: .milliseconds(300))
        #expect(observer.lists.count == 2)
        #expect(observer.callsOffQueue == 0)
        #expect(removed.lists.isEmpty)

        controller.removeDeviceChangeObserver(observer: observer)
        #expect(!controller.isPolling)
        cards.set(cards: SoundCardFixtures.cards, pcm: SoundCardFixtures.pcm)
        try await Task.sleep(for: .milliseconds(300))
        #expect(observer.lists.count == 2)
    }

    @Test func anObserverRemovedBeforeDeliveryIsNotCalled() async throws {
        let cards = FixtureSoundCards()
        cards.set(cards: SoundCardFixtures.onboardOnlyCards, pcm: SoundCardFixtures.pcm)
        let queue = DispatchQueue(label: "test.device-callbacks")
        // An hour: only the explicit refresh below finds the change.
        let controller = controller(cards, queue: queue, poll: .seconds(3600))
        let kept = DeviceChangeRecorder()
        let leaving = DeviceChangeRecorder()
        controller.addDeviceChangeObserver(observer: kept)
        controller.addDeviceChangeObserver(observer: leaving)

        queue.suspend()
        cards.set(cards: SoundCardFixtures.cards, pcm: SoundCardFixtures.pcm)
        let change = controller.refreshAudioDevices()
        controller.removeDeviceChangeObserver(observer: leaving)
        queue.resume()
        #expect(change?.added.count == 2)
        #expect(await eventually { kept.lists.count == 1 })
        #expect(leaving.lists.isEmpty)
    }

    @Test func aDeviceThatBecomesFirstMovesTheSelectionGeneration() async {
        // No sound card: the session uses the virtual Silence input. A card appearing becomes the active input.
        let cards = FixtureSoundCards()
        let controller = controller(cards, queue: DispatchQueue(label: "test.device-callbacks"))
        let observer = DeviceChangeRecorder()
        controller.addDeviceChangeObserver(observer: observer)
        let generation = controller.selectionGeneration
        #expect(controller.activeInput?.label == "Silence")

        cards.set(cards: SoundCardFixtures.cards, pcm: SoundCardFixtures.pcm)
        #expect(await eventually { controller.selectionGeneration != generation })
        #expect(controller.activeInput?.label == "HDA Intel PCH: ALC3246 Analog (input)")
        controller.removeDeviceChangeObserver(observer: observer)
    }

    @Test func thePollTimerDoesNotKeepTheControllerAlive() async {
        let cards = FixtureSoundCards()
        let observer = DeviceChangeRecorder()
        weak var released: DefaultDeviceController?
        do {
            let controller = controller(cards, queue: DispatchQueue(label: "test.device-callbacks"), poll: .milliseconds(10))
            controller.addDeviceChangeObserver(observer: observer)
            #expect(controller.isPolling)
            released = controller
            // Let the timer fire a few times.
            try? await Task.sleep(for: .milliseconds(100))
        }
        // A tick in progress holds it for a moment.
        #expect(await eventually { released == nil }, "the controller outlived its last reference")
    }
}
