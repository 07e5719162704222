import CarillonProtocol
import CarillonRTC
import Foundation
import NIOCore

/// How a session ends or retries, and the frames the core builds.
extension SignalingSessionCore {
    // MARK: Outcomes

    mutating func retry(now: SessionTime, cause: MeetingSessionStatusCode) -> [SessionAction] {
        resetMediaPlan()
        var actions: [SessionAction] = [.stopMedia]
        if phase == .inMeeting {
            actions.append(.event(.dropped))
            actions.append(.event(.startConnecting(reconnecting: true)))
        }
        nextPing = nil
        guard let at = backoff.nextAttempt(now: now.monotonic, random: random()) else {
            phase = .stopped
            if hasBeenInMeeting { actions.append(.event(.cancelledReconnect)) }
            actions.append(.event(.stopped(hasBeenInMeeting ? .audioDisconnected : cause)))
            return actions
        }
        phase = .waitingToRetry(at: at)
        return actions
    }

    mutating func finish(_ status: MeetingSessionStatusCode) -> [SessionAction] {
        resetMediaPlan()
        let wasRetrying = hasBeenInMeeting && phase != .inMeeting
        phase = .stopped
        nextPing = nil
        var actions: [SessionAction] = [.stopMedia, .closeSocket]
        if wasRetrying { actions.append(.event(.cancelledReconnect)) }
        actions.append(.event(.stopped(status)))
        return actions
    }

    mutating func audioStatusOutcome(_ status: UInt32, now: SessionTime) -> [SessionAction] {
        switch status {
        case 200..<300: return []
        case 301: return finish(.audioJoinedFromAnotherDevice)
        case 302: return []
        case 403, 411: return finish(.audioAuthenticationRejected)
        case 409: return finish(.audioCallAtCapacity)
        case 410: return finish(.audioServerHungup)
        case 500, 503: return [.closeSocket] + retry(now: now, cause: status == 500 ? .audioInternalServerError : .audioServiceUnavailable)
        default: return finish(.audioDisconnected)
        }
    }

    mutating func errorOutcome(_ status: UInt32, now: SessionTime) -> [SessionAction]? {
        switch status {
        case 200..<300: return nil
        case 403: return finish(.audioAuthenticationRejected)
        case 409: return finish(.audioCallAtCapacity)
        case 400..<500: return finish(.audioDisconnected)
        case 500..<600: return [.closeSocket] + retry(now: now, cause: .audioInternalServerError)
        default: return finish(.unknown)
        }
    }

    // MARK: Frames

    mutating func ping(_ now: SessionTime) -> SessionAction {
        pingId &+= 1
        pingAnswered = false
        nextPing = now.monotonic + Self.pingInterval
        var frame = Self.frame(.pingPong, now)
        frame.pingPong.type = .ping
        frame.pingPong.pingID = pingId
        return .send(frame)
    }

    func audioControl(_ now: SessionTime) -> SdkSignalFrame {
        var frame = Self.frame(.audioControl, now)
        frame.audioControl.muted = muted
        return frame
    }

    static func frame(_ type: SdkSignalFrame.TypeEnum, _ now: SessionTime) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.timestampMs = now.unixMilliseconds
        frame.type = type
        return frame
    }
}
