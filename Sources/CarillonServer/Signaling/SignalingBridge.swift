import HTTPTypes
import HummingbirdWSClient
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Carries a client's signaling socket to the node that hosts its meeting: the Chime clients reconnect to the
/// SignalingUrl they were given and a WebSocket cannot be redirected, so the node they reach opens a socket of its own
/// to the hosting node (the same path, query and offered sub-protocols, the join token among them, so the hosting node
/// authenticates the attendee itself) and copies messages both ways until either side ends. The hosting node's close
/// code reaches the client unchanged, so "meeting ended" or "reconnect" means the same through a bridge.
///
/// Cost: one extra TCP connection and one buffer hand-over per message; signaling only, media goes straight to the
/// hosting node (its address is the candidate in the SDP answer). Threading: one task per direction.
struct SignalingBridge: Sendable {
    /// The header that marks a bridged socket with the bridging node's id.
    static let bridgedByHeader = HTTPField.Name("X-Carillon-Bridged-By")!

    /// This node, whose id goes in ``bridgedByHeader``.
    let node: NodeHeartbeat
    let group: any EventLoopGroup
    let logger: Logger

    /// Bridges the client's socket to `nodeURL` (`http[s]://host:port`) at `requestPath` (path and query); returns
    /// false, having sent nothing to the client, when the hosting node cannot be reached.
    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, nodeURL: String, requestPath: String,
             offeredProtocols: String?) async -> Bool {
        var headers = HTTPFields()
        if let offeredProtocols { headers[.secWebSocketProtocol] = offeredProtocols }
        headers[Self.bridgedByHeader] = node.nodeId ?? "unnamed"
        let configuration = WebSocketClientConfiguration(maxFrameSize: SignalingEndpoint.maximumMessageSize,
                                                         additionalHeaders: headers, closeTimeout: .seconds(5))
        let url = Self.webSocketURL(nodeURL: nodeURL, requestPath: requestPath)
        let opened = NIOLockedValueBox(false)
        let closing: WebSocketCloseFrame?
        do {
            closing = try await WebSocketClient.connect(url: url, configuration: configuration, eventLoopGroup: group,
                                                        logger: logger) { upstreamInbound, upstreamOutbound, _ in
                opened.withLockedValue { $0 = true }
                await withTaskGroup(of: Void.self) { directions in
                    directions.addTask {
                        do {
                            for try await message in inbound.messages(maxSize: SignalingEndpoint.maximumMessageSize) {
                                try await upstreamOutbound.write(Self.frame(message))
                            }
                        } catch {}
                        try? await upstreamOutbound.close(.normalClosure, reason: nil)
                    }
                    directions.addTask {
                        do {
                            for try await message in upstreamInbound.messages(maxSize: SignalingEndpoint.maximumMessageSize) {
                                try await outbound.write(Self.frame(message))
                            }
                        } catch {}
                    }
                    await directions.next()
                    directions.cancelAll()
                }
            }
        } catch {
            guard opened.withLockedValue({ $0 }) else {
                logger.info("signaling bridge to \(url) failed: \(error)")
                return false
            }
            closing = nil
        }
        // The hosting node's word, or "try again" when it vanished without one (it died: the client reconnects and
        // its meeting is placed on a live node).
        try? await outbound.close(closing?.closeCode ?? .unknown(SignalingCloseCode.serverError),
                                  reason: closing?.reason)
        return true
    }

    /// The WebSocket URL of `requestPath` on the node at `nodeURL`.
    static func webSocketURL(nodeURL: String, requestPath: String) -> String {
        var base = nodeURL
        if base.hasPrefix("https://") { base = "wss://" + base.dropFirst("https://".count) }
        else if base.hasPrefix("http://") { base = "ws://" + base.dropFirst("http://".count) }
        if base.hasSuffix("/") { base.removeLast() }
        return base + (requestPath.hasPrefix("/") ? requestPath : "/" + requestPath)
    }

    private static func frame(_ message: WebSocketMessage) -> WebSocketOutboundWriter.OutboundFrame {
        switch message {
        case .binary(let buffer): .binary(buffer)
        case .text(let text): .text(text)
        }
    }
}
