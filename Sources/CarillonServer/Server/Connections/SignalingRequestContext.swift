import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of the signaling route: the default WebSocket context plus the TCP connection the upgrade
/// came on, so the ``ConnectionGuard`` can follow the socket from its upgrade to its join.
struct SignalingRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    /// The connection the request arrived on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}
