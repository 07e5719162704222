import CarillonRTC
import NIOCore
import NIOSSL

/// The sockets a ``SessionEngine`` opens: its signaling WebSocket and the UDP socket of each media connection.
///
/// Why: the engine is the session's I/O shell; with the sockets behind this, its wiring (frames encoded and sent,
/// the media socket bound for the core's generation, the one timer following the core's deadline) runs in tests on
/// an `EmbeddedEventLoop` with scripted sockets. ``NetworkSessionTransports`` is the real one. Threading: called on
/// the session's loop; the sockets report on it.
protocol SessionTransports: Sendable {
    /// Starts connecting the signaling WebSocket; `onEvent` gets `.opened`, messages, then one `.closed` or
    /// `.tlsFailed`.
    func openSignaling(to target: SignalingSocket.Target, joinToken: String, tls: NIOSSLContext?, on eventLoop: any EventLoop,
                       onEvent: @escaping (SignalingSocket.Event) -> Void) -> any SessionSignalingChannel
    /// Binds a UDP socket on `host` (the interface that reaches the server).
    func bindMedia(host: String, on eventLoop: any EventLoop) -> EventLoopFuture<any SessionMediaChannel>
}

/// A signaling WebSocket as the engine uses it.
protocol SessionSignalingChannel: AnyObject {
    /// The local address, once connected (the media socket binds on its interface).
    var localAddress: SocketAddress? { get }
    /// Sends one binary message.
    func send(_ bytes: [UInt8])
    /// Closes; no further events.
    func close()
}

/// A media connection's UDP socket as the engine uses it.
protocol SessionMediaChannel: AnyObject, Sendable {
    /// The bound address (the offer's host candidate).
    var localAddress: STUNAddress { get }
    /// Delivers each received datagram to `receive`, on the socket's loop.
    func receiveDatagrams(_ receive: @escaping ([UInt8], STUNAddress) -> Void)
    /// Sends one datagram to `target`.
    func send(_ datagram: [UInt8], to target: STUNAddress)
    /// Closes the socket.
    func close(promise: EventLoopPromise<Void>?)
}

/// The real sockets: ``SignalingSocket`` and ``PeerConnectionSocket``.
struct NetworkSessionTransports: SessionTransports {
    func openSignaling(to target: SignalingSocket.Target, joinToken: String, tls: NIOSSLContext?, on eventLoop: any EventLoop,
                       onEvent: @escaping (SignalingSocket.Event) -> Void) -> any SessionSignalingChannel {
        SignalingSocket.connect(to: target, joinToken: joinToken, tls: tls, on: eventLoop, onEvent: onEvent)
    }

    func bindMedia(host: String, on eventLoop: any EventLoop) -> EventLoopFuture<any SessionMediaChannel> {
        PeerConnectionSocket.bind(host: host, on: eventLoop).map { $0 as any SessionMediaChannel }
    }
}

extension SignalingSocket: SessionSignalingChannel {}
extension PeerConnectionSocket: SessionMediaChannel {}
