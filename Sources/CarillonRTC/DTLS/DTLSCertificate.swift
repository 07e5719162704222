import CCarillonOpenSSL

/// A self-signed ECDSA P-256 certificate and its private key, generated once at start and announced by fingerprint.
///
/// Immutable after creation, so it may be shared by every ``DTLSEndpoint`` of a process from any thread.
public final class DTLSCertificate: @unchecked Sendable {
    /// SHA-256 of the DER-encoded certificate, for `a=fingerprint`.
    public let fingerprint: DTLSFingerprint
    /// The common name of the subject (and issuer).
    public let commonName: String
    /// `EVP_PKEY*`, owned.
    let privateKey: OpaquePointer
    /// `X509*`, owned.
    let certificate: OpaquePointer

    /// How long a generated certificate stays valid (peers check the fingerprint, not the dates).
    public static let validity: Int = 365 * 24 * 3600

    private init(privateKey: OpaquePointer, certificate: OpaquePointer, commonName: String) throws(DTLSError) {
        self.privateKey = privateKey
        self.certificate = certificate
        self.commonName = commonName
        do {
            fingerprint = try DTLSFingerprint.of(certificate: certificate, algorithm: "sha-256")
        } catch {
            X509_free(certificate)
            EVP_PKEY_free(privateKey)
            throw error
        }
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }

    /// The certificate's fingerprint with another hash: "sha-1", "sha-224", "sha-256", "sha-384" or "sha-512".
    public func fingerprint(algorithm: String) throws(DTLSError) -> DTLSFingerprint {
        try DTLSFingerprint.of(certificate: certificate, algorithm: algorithm)
    }

    /// Generates a P-256 key and a self-signed X.509 v3 certificate for it (SHA-256 signature, random serial,
    /// valid from a day ago for ``validity`` seconds).
    public static func generate(commonName: String = "carillon") throws(DTLSError) -> DTLSCertificate {
        let key = try generateKey()
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw .openSSL(draining: "X509_new")
        }
        do {
            try fill(x509, key: key, commonName: commonName)
        } catch {
            X509_free(x509)
            EVP_PKEY_free(key)
            throw error
        }
        return try DTLSCertificate(privateKey: key, certificate: x509, commonName: commonName)
    }

    private static func generateKey() throws(DTLSError) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw .openSSL(draining: "EVP_PKEY_CTX_new_from_name(EC)")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw .openSSL(draining: "EVP_PKEY_keygen_init") }
        guard EVP_PKEY_CTX_set_group_name(context, "P-256") == 1 else {
            throw .openSSL(draining: "EVP_PKEY_CTX_set_group_name(P-256)")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw .openSSL(draining: "EVP_PKEY_generate") }
        return key
    }

    private static func fill(_ x509: OpaquePointer, key: OpaquePointer, commonName: String) throws(DTLSError) {
        guard X509_set_version(x509, 2) == 1 else { throw .openSSL(draining: "X509_set_version") }
        // A positive random 63-bit serial number.
        var serial: Int = 0
        guard withUnsafeMutableBytes(of: &serial, { RAND_bytes($0.baseAddress, Int32($0.count)) }) == 1 else {
            throw .openSSL(draining: "RAND_bytes")
        }
        guard ASN1_INTEGER_set(X509_get_serialNumber(x509), (serial & Int.max) | 1) == 1 else {
            throw .openSSL(draining: "ASN1_INTEGER_set")
        }
        guard X509_gmtime_adj(X509_getm_notBefore(x509), -24 * 3600) != nil,
              X509_gmtime_adj(X509_getm_notAfter(x509), validity) != nil
        else { throw .openSSL(draining: "X509_gmtime_adj") }
        guard X509_set_pubkey(x509, key) == 1 else { throw .openSSL(draining: "X509_set_pubkey") }
        let commonNameBytes = Array(commonName.utf8)
        guard let name = X509_get_subject_name(x509),
              X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, commonNameBytes, Int32(commonNameBytes.count),
                                         -1, 0) == 1,
              X509_set_issuer_name(x509, name) == 1
        else { throw .openSSL(draining: "X509 subject name") }
        guard X509_sign(x509, key, EVP_sha256()) > 0 else { throw .openSSL(draining: "X509_sign") }
    }
}
