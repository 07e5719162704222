import CarillonProtocol
import Foundation

/// What guest invites need: the secret that signs them (the server's join-token secret, shared by a cluster's nodes
/// through the database, so any node honours any node's invites), the base URL their links start with, and the clock
/// that expires them.
///
/// Immutable; safe from any thread.
public struct GuestInvites: Sendable {
    /// Signs and checks invite tokens.
    public let secret: JoinTokenSecret
    /// The base URL of invite links (`https://meet.example.com`): the public endpoint, or this server's own URL.
    public let baseURL: @Sendable () -> String
    /// Seconds since the Unix epoch, now.
    public let now: @Sendable () -> Int64

    /// The lifetime of an invite made without one: 24 hours.
    public static let defaultLifetimeSeconds = 24 * 3600

    /// Creates the invite settings; `now` defaults to the system clock.
    public init(secret: JoinTokenSecret, baseURL: @escaping @Sendable () -> String,
                now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.secret = secret
        self.baseURL = baseURL
        self.now = now
    }

    /// The link a guest opens for `token`.
    public func url(token: String) -> String {
        baseURL() + "/join/" + token
    }
}
