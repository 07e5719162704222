import Foundation

/// The app's observers of one session, kept strongly (as the Chime SDK does) until removed.
///
/// Threading: a lock guards the sets (observers are app objects of any isolation, hence `@unchecked`); delivery takes
/// a snapshot, so observers may add or remove observers from inside a callback.
final class ObserverRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var audioVideo: [ObjectIdentifier: any AudioVideoObserver] = [:]
    private var realtime: [ObjectIdentifier: any RealtimeObserver] = [:]
    private var dataMessages: [String: [ObjectIdentifier: any DataMessageObserver]] = [:]
    private var metrics: [ObjectIdentifier: any MetricsObserver] = [:]

    func add(_ observer: any AudioVideoObserver) { lock.withLock { audioVideo[ObjectIdentifier(observer)] = observer } }
    func remove(_ observer: any AudioVideoObserver) { _ = lock.withLock { audioVideo.removeValue(forKey: ObjectIdentifier(observer)) } }
    func add(_ observer: any RealtimeObserver) { lock.withLock { realtime[ObjectIdentifier(observer)] = observer } }
    func remove(_ observer: any RealtimeObserver) { _ = lock.withLock { realtime.removeValue(forKey: ObjectIdentifier(observer)) } }

    func add(_ observer: any MetricsObserver) { lock.withLock { metrics[ObjectIdentifier(observer)] = observer } }
    func remove(_ observer: any MetricsObserver) { _ = lock.withLock { metrics.removeValue(forKey: ObjectIdentifier(observer)) } }

    func add(_ observer: any DataMessageObserver, topic: String) {
        lock.withLock { dataMessages[topic, default: [:]][ObjectIdentifier(observer)] = observer }
    }

    func removeDataMessageObservers(topic: String) { _ = lock.withLock { dataMessages.removeValue(forKey: topic) } }

    var audioVideoObservers: [any AudioVideoObserver] { lock.withLock { Array(audioVideo.values) } }
    var realtimeObservers: [any RealtimeObserver] { lock.withLock { Array(realtime.values) } }
    var metricsObservers: [any MetricsObserver] { lock.withLock { Array(metrics.values) } }
    func dataMessageObservers(topic: String) -> [any DataMessageObserver] {
        lock.withLock { Array((dataMessages[topic] ?? [:]).values) }
    }
}
