import CarillonControlClient
import Foundation
import Synchronization

/// One session on a Janus server's HTTP JSON API, with its long poll: the signaling of the Janus benchmarks.
///
/// Why: the bench's bots share one session (one plugin handle each), as the issue asks, so that Janus's per-session
/// overhead is paid once. Requests go through ``ControlAPIClient`` (its SigV4 headers are ignored by Janus); events
/// from the long poll are kept per handle until a bot takes them. Cost: one HTTP request per call plus one long poll
/// in flight. Threading: safe from any task; the poll runs in its own task until ``close()``.
final class JanusSession: Sendable {
    /// The session id Janus assigned.
    let id: UInt64
    private let client: ControlAPIClient
    private let events = Mutex<[UInt64: [JanusReply]]>([:])
    private let counter = Atomic<Int>(0)
    private let poller = Mutex<Task<Void, Never>?>(nil)

    private init(id: UInt64, client: ControlAPIClient) {
        self.id = id
        self.client = client
    }

    /// Creates a session on the server at `endpoint` (e.g. `http://10.203.0.1:8088/janus`) and starts its long poll.
    static func create(endpoint: URL) async throws -> JanusSession {
        let client = ControlAPIClient(endpoint: endpoint, accessKeyId: "janus", secretAccessKey: "unused")
        let reply = try JanusReply.parseAll(try await client.send("POST", "", body: JanusAPI.createSession(transaction: "create")))
        guard let first = reply.first, first.kind == .success, let id = first.id else {
            throw JanusReplyError(description: "Janus did not create a session: \(reply)")
        }
        let session = JanusSession(id: id, client: client)
        session.poller.withLock { $0 = Task { await session.poll() } }
        return session
    }

    /// Attaches a handle on `plugin`; returns its id.
    func attach(plugin: String) async throws -> UInt64 {
        let reply = try await post("/\(id)", JanusAPI.attach(plugin: plugin, transaction: nextTransaction()))
        guard reply.kind == .success, let handle = reply.id else { throw JanusReplyError(description: "attach failed: \(reply)") }
        return handle
    }

    /// Sends a plugin message on `handle`, with an SDP offer or answer when given; returns Janus's direct reply
    /// (`success` with plugin data, or `ack`).
    func message(handle: UInt64, body: [String: Any], offer: String? = nil, answer: String? = nil) async throws -> JanusReply {
        let reply = try await post("/\(id)/\(handle)", JanusAPI.message(body: body, offer: offer, answer: answer,
                                                                       transaction: nextTransaction()))
        if case .error = reply.kind { throw JanusReplyError(description: "request \(body["request"] ?? "?") failed: \(reply)") }
        return reply
    }

    /// Waits for the first event of `handle` that `matches` (earlier ones are dropped); an error event throws.
    func event(handle: UInt64, timeout: Duration = .seconds(20), where matches: (JanusReply) -> Bool) async throws -> JanusReply {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let found: JanusReply? = events.withLock { queues in
                guard var queue = queues[handle] else { return nil }
                defer { queues[handle] = queue }
                while !queue.isEmpty {
                    let next = queue.removeFirst()
                    if matches(next) { return next }
                    if case .error = next.kind { return next }
                }
                return nil
            }
            if let found {
                if case .error = found.kind { throw JanusReplyError(description: "handle \(handle): \(found)") }
                return found
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw BenchTimeout(what: "a Janus event on handle \(handle)")
    }

    /// Stops the long poll and destroys the session (which detaches every handle and hangs up their connections).
    func close() async {
        poller.withLock { $0?.cancel() }
        _ = try? await client.send("POST", "/\(id)", body: JanusAPI.destroySession(transaction: nextTransaction()))
    }

    private func post(_ path: String, _ body: Data) async throws -> JanusReply {
        let replies = try JanusReply.parseAll(try await client.send("POST", path, body: body))
        guard let reply = replies.first else { throw JanusReplyError(description: "empty reply to \(path)") }
        return reply
    }

    private func nextTransaction() -> String { "t\(counter.add(1, ordering: .relaxed).newValue)" }

    /// The long poll: each GET returns up to 50 events (or a keepalive after 30 s) and keeps the session alive.
    private func poll() async {
        while !Task.isCancelled {
            do {
                let data = try await client.send("GET", "/\(id)", query: "maxev=50")
                let replies = try JanusReply.parseAll(data)
                events.withLock { queues in
                    for reply in replies { if let sender = reply.sender { queues[sender, default: []].append(reply) } }
                }
            } catch {
                // A poll that timed out on the client side (Janus answers after 30 s) is simply sent again.
                if Task.isCancelled { return }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
