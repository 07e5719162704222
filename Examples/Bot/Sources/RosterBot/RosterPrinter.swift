import Carillon
import Foundation
import Synchronization

/// Prints the roster at every change and reports when the session has stopped. The SDK calls observers on its
/// callback queue, one call at a time; the lock only guards the hand-over to `stopped()`.
final class RosterPrinter: AudioVideoObserver, RealtimeObserver, Sendable {
    private let state = Mutex<(names: [String: String], stop: CheckedContinuation<Void, Never>?, done: Bool)>(([:], nil, false))

    /// Returns once the session has stopped.
    func stopped() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if !state.done { state.stop = continuation }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    private func printRoster() {
        let names = state.withLock { $0.names.values.sorted() }
        print("roster: \(names.joined(separator: ", "))")
    }

    func attendeesDidJoin(attendeeInfo: [AttendeeInfo]) {
        state.withLock { state in for attendee in attendeeInfo { state.names[attendee.attendeeId] = attendee.externalUserId } }
        printRoster()
    }

    func attendeesDidLeave(attendeeInfo: [AttendeeInfo]) {
        state.withLock { state in for attendee in attendeeInfo { state.names[attendee.attendeeId] = nil } }
        printRoster()
    }

    func attendeesDidDrop(attendeeInfo: [AttendeeInfo]) { attendeesDidLeave(attendeeInfo: attendeeInfo) }

    func audioSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {
        let waiter = state.withLock { state in
            state.done = true
            defer { state.stop = nil }
            return state.stop
        }
        waiter?.resume()
    }

    func audioSessionDidStart(reconnecting: Bool) { if !reconnecting { print("in the meeting") } }

    // The rest of the two protocols, unused here.
    func audioSessionDidStartConnecting(reconnecting: Bool) {}
    func audioSessionDidDrop() {}
    func audioSessionDidCancelReconnect() {}
    func connectionDidRecover() {}
    func connectionDidBecomePoor() {}
    func videoSessionDidStartConnecting() {}
    func videoSessionDidStartWithStatus(sessionStatus: MeetingSessionStatus) {}
    func videoSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {}
    func remoteVideoSourcesDidBecomeAvailable(sources: [RemoteVideoSource]) {}
    func remoteVideoSourcesDidBecomeUnavailable(sources: [RemoteVideoSource]) {}
    func cameraSendAvailabilityDidChange(available: Bool) {}
    func volumeDidChange(volumeUpdates: [VolumeUpdate]) {}
    func signalStrengthDidChange(signalUpdates: [SignalUpdate]) {}
    func attendeesDidMute(attendeeInfo: [AttendeeInfo]) {}
    func attendeesDidUnmute(attendeeInfo: [AttendeeInfo]) {}
}
