import NIOConcurrencyHelpers
import NIOSSL

/// The server's certificate chain and key as last read from disk, handed to each new TLS handshake.
///
/// NIOSSL asks ``tlsConfiguration`` 's context callback once per client hello; the callback answers with the chain and
/// key held here, so ``reload()`` changes what new connections get without rebuilding the listener. Threading: safe
/// from any thread (one lock, taken once per handshake and per reload, never on a media path).
final class ReloadableCertificate: Sendable {
    private struct Loaded: Sendable {
        var chain: [NIOSSLCertificate]
        var key: NIOSSLPrivateKey
    }

    let files: ServerTLS
    private let current: NIOLockedValueBox<Loaded>

    /// Reads both files; throws ``MeetingServerError/unusableTLSFiles(_:)`` when they cannot be used.
    init(files: ServerTLS) throws {
        self.files = files
        self.current = NIOLockedValueBox(try Self.read(files))
    }

    /// Reads the files again; on failure keeps serving the previous certificate and throws.
    func reload() throws {
        let loaded = try Self.read(files)
        current.withLockedValue { $0 = loaded }
    }

    /// A server configuration whose handshakes use the certificate current at the time of each client hello.
    var tlsConfiguration: TLSConfiguration {
        let loaded = current.withLockedValue { $0 }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: loaded.chain.map { .certificate($0) }, privateKey: .privateKey(loaded.key))
        // WebSocket upgrades need HTTP/1.1; say so, so that clients offering h2 settle on it.
        configuration.applicationProtocols = ["http/1.1"]
        let current = self.current
        configuration.sslContextCallback = { _, promise in
            let loaded = current.withLockedValue { $0 }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = loaded.chain.map { .certificate($0) }
            override.privateKey = .privateKey(loaded.key)
            promise.succeed(override)
        }
        return configuration
    }

    private static func read(_ files: ServerTLS) throws -> Loaded {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificateChainPath)
        } catch {
            throw MeetingServerError.unusableTLSFiles("cannot read the certificate chain \(files.certificateChainPath): \(error)")
        }
        guard !chain.isEmpty else {
            throw MeetingServerError.unusableTLSFiles("no certificate in \(files.certificateChainPath)")
        }
        do {
            key = try NIOSSLPrivateKey(file: files.privateKeyPath, format: .pem)
        } catch {
            throw MeetingServerError.unusableTLSFiles("cannot read the private key \(files.privateKeyPath): \(error)")
        }
        do {
            // Building a context checks that the key belongs to the certificate.
            _ = try NIOSSLContext(configuration: .makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)))
        } catch {
            throw MeetingServerError.unusableTLSFiles("the key \(files.privateKeyPath) does not fit the certificate: \(error)")
        }
        return Loaded(chain: chain, key: key)
    }
}
