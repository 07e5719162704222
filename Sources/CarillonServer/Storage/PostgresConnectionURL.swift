import Foundation
import NIOSSL
import PostgresNIO

/// Where a cluster's PostgreSQL is, from `carillon serve --database`: `postgresql://USER[:PASSWORD]@HOST[:PORT]/DB`
/// (or `postgres://`), the password from the URL or else `PGPASSWORD`, `?sslmode=disable|prefer|require` (default
/// `prefer`: TLS when the server offers it, certificates checked against the system's roots), and `?host=/directory`
/// for a Unix socket instead of TCP (as libpq reads it).
public struct PostgresConnectionURL: Sendable, Equatable, CustomStringConvertible {
    /// The TLS rule.
    public enum TLSMode: String, Sendable, Equatable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it.
        case prefer
        /// TLS or no connection.
        case require
    }

    /// User name.
    public var username: String
    /// Password, if any.
    public var password: String?
    /// Host name or address (ignored with a socket directory).
    public var host: String
    /// TCP port.
    public var port: Int
    /// Database name.
    public var database: String
    /// A directory holding the server's Unix socket (`.s.PGSQL.<port>`), instead of TCP.
    public var socketDirectory: String?
    /// The TLS rule (TCP only).
    public var tls: TLSMode

    /// Reads `text`; `environment` supplies `PGPASSWORD` when the URL has no password.
    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(PostgresConnectionURLError) {
        guard let url = URLComponents(string: text), let scheme = url.scheme, ["postgresql", "postgres"].contains(scheme) else {
            throw .invalid("expected postgresql://USER@HOST:PORT/DB")
        }
        guard let user = url.user, !user.isEmpty else { throw .invalid("the URL names no user (postgresql://USER@HOST/DB)") }
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        guard !database.isEmpty, !database.contains("/") else { throw .invalid("the URL names no database (…/DB)") }
        var socketDirectory: String?
        var tls = TLSMode.prefer
        for item in url.queryItems ?? [] {
            switch item.name {
            case "host":
                guard let value = item.value, value.hasPrefix("/") else { throw .invalid("host= must be a socket directory") }
                socketDirectory = value
            case "sslmode":
                guard let value = item.value, let mode = TLSMode(rawValue: value) else {
                    throw .invalid("sslmode must be disable, prefer or require")
                }
                tls = mode
            default:
                throw .invalid("unknown parameter \(item.name) (host and sslmode are read)")
            }
        }
        guard socketDirectory != nil || !(url.host ?? "").isEmpty else { throw .invalid("the URL names no host") }
        let port = url.port ?? 5432
        guard (1...65_535).contains(port) else { throw .invalid("port \(port) is not 1-65535") }
        username = user
        password = url.password ?? environment["PGPASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        host = url.host ?? ""
        self.port = port
        self.database = database
        self.socketDirectory = socketDirectory
        self.tls = tls
    }

    /// The client configuration postgres-nio takes.
    public func clientConfiguration() throws -> PostgresClient.Configuration {
        if let socketDirectory {
            return .init(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: username, password: password,
                         database: database)
        }
        let context: PostgresClient.Configuration.TLS = switch tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
        return .init(host: host, port: port, username: username, password: password, database: database, tls: context)
    }

    /// The URL without its password, for logs.
    public var description: String {
        let place = socketDirectory.map { "?host=\($0)" } ?? ""
        return "postgresql://\(username)@\(socketDirectory == nil ? "\(host):\(port)" : "")/\(database)\(place)"
    }
}
