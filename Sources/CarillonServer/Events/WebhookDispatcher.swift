import AsyncHTTPClient
import CarillonCrypto
import CarillonProtocol
import CarillonRTC
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Delivers meeting events to the operator's ``WebhookTarget``: the IO shell around ``WebhookDeliveryCore``, on one
/// event loop, posting with AsyncHTTPClient.
///
/// ``publish(_:)`` returns at once from any thread (one hop to the loop, per event, never on a media path), so a
/// receiver that is slow or down delays no meeting. Each attempt is signed as it is sent, with the Unix time then (a
/// receiver rejects a stale one), so a retried event carries a fresh timestamp.
///
/// Threading: ``publish(_:)`` from anywhere; everything else runs on `eventLoop`.
public final class WebhookDispatcher: MeetingEventSink, @unchecked Sendable {
    private let target: WebhookTarget
    private let eventLoop: any EventLoop
    private let logger: Logger
    // Confined to `eventLoop`.
    private var core: WebhookDeliveryCore
    private lazy var timer = DeadlineTimer(eventLoop: eventLoop) { [weak self] in self?.tick() }

    /// The header carrying the signature.
    public static let signatureHeader = "Carillon-Signature"

    /// Creates a dispatcher posting to `target` from `eventLoop`.
    public init(target: WebhookTarget, eventLoop: any EventLoop, logger: Logger) {
        self.target = target
        self.eventLoop = eventLoop
        self.logger = logger
        self.core = WebhookDeliveryCore(maximumAttempts: target.maximumAttempts, queueLimit: target.queueLimit)
    }

    /// Queues `event` for delivery and returns.
    public func publish(_ event: MeetingEvent) {
        let body: [UInt8]
        do {
            body = Array(try JSONEncoder().encode(event))
        } catch {
            logger.error("webhook: cannot encode \(event.eventType): \(error)")
            return
        }
        eventLoop.execute {
            self.send(self.core.enqueue(body, now: self.eventLoop.now))
            self.timer.follow(self.core.nextDeadline)
        }
    }

    /// The signature header value for `body` made at `seconds` (Unix time) with `secret`.
    public static func signature(body: [UInt8], seconds: Int64, secret: String) -> String {
        let signed = Array("\(seconds).".utf8) + body
        return "t=\(seconds),v1=\(Hex.encode(HMACSHA256.authenticate(signed, key: Array(secret.utf8))))"
    }

    private func tick() {
        send(core.tick(now: eventLoop.now))
        timer.follow(core.nextDeadline)
    }

    /// POSTs one event's `body` to `target`, signed now; true when the receiver answered 2xx within 5 s.
    static func post(_ body: [UInt8], to target: WebhookTarget, logger: Logger) async -> Bool {
        var request = HTTPClientRequest(url: target.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: signatureHeader, value: signature(
            body: body, seconds: Int64(Date().timeIntervalSince1970), secret: target.secret))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
            let succeeded = (200..<300).contains(Int(response.status.code))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            if !succeeded { logger.info("webhook: the receiver answered \(response.status.code)") }
            return succeeded
        } catch {
            logger.info("webhook: delivery failed: \(error)")
            return false
        }
    }

    private func send(_ pending: WebhookDeliveryCore.Pending?) {
        guard let pending else { return }
        let target = target, logger = logger
        Task {
            let succeeded = await Self.post(pending.body, to: target, logger: logger)
            eventLoop.execute {
                self.send(self.core.delivered(sequence: pending.sequence, succeeded: succeeded, now: self.eventLoop.now))
                self.timer.follow(self.core.nextDeadline)
            }
        }
    }
}
