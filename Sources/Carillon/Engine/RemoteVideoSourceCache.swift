import Synchronization

/// The `RemoteVideoSource` objects handed to the app, one per attendee id, reused for as long as the attendee's
/// video is available: apps key `updateVideoSourceSubscriptions` by these objects (`api-inventory.md` §2.7).
///
/// Threading: used on the session's callback queue; the mutex only makes that provable to the compiler.
final class RemoteVideoSourceCache: Sendable {
    private let objects = Mutex<[String: RemoteVideoSource]>([:])

    /// The cached objects of `attendeeIds`, made for those not cached yet.
    func sources(for attendeeIds: [String]) -> [RemoteVideoSource] {
        objects.withLock { objects in
            attendeeIds.map { id in
                if let cached = objects[id] { return cached }
                let source = RemoteVideoSource()
                source.attendeeId = id
                objects[id] = source
                return source
            }
        }
    }

    /// Removes and returns the cached objects of `attendeeIds`.
    func remove(_ attendeeIds: [String]) -> [RemoteVideoSource] {
        objects.withLock { objects in attendeeIds.compactMap { objects.removeValue(forKey: $0) } }
    }
}
