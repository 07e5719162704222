#ifndef CCARILLON_OPENSSL_SHIM_H
#define CCARILLON_OPENSSL_SHIM_H

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/ssl.h>
#include <openssl/srtp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/time.h>

/* Function-like macros and OpenSSL 3 option constants Swift cannot import. */

static inline int carillon_ssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline int carillon_ssl_ctx_set1_groups_list(SSL_CTX *ctx, const char *list) {
    return (int)SSL_CTX_set1_groups_list(ctx, list);
}
static inline uint64_t carillon_ssl_op_no_query_mtu(void) { return SSL_OP_NO_QUERY_MTU; }
static inline uint64_t carillon_ssl_op_no_ticket(void) { return SSL_OP_NO_TICKET; }
static inline uint64_t carillon_ssl_op_no_renegotiation(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t carillon_ssl_op_cipher_server_preference(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }
static inline uint64_t carillon_ssl_op_no_compression(void) { return SSL_OP_NO_COMPRESSION; }

static inline int carillon_dtls_set_link_mtu(SSL *ssl, long mtu) { return (int)DTLS_set_link_mtu(ssl, mtu); }
static inline int carillon_ssl_set_mtu(SSL *ssl, long mtu) { return (int)SSL_set_mtu(ssl, mtu); }
/* 1 and the time left when a DTLS retransmission timer runs (measured by OpenSSL on the real clock), else 0. */
static inline int carillon_dtlsv1_get_timeout(SSL *ssl, long *seconds, long *microseconds) {
    struct timeval left;
    if (DTLSv1_get_timeout(ssl, &left) <= 0) return 0;
    *seconds = (long)left.tv_sec;
    *microseconds = (long)left.tv_usec;
    return 1;
}
static inline int carillon_dtlsv1_handle_timeout(SSL *ssl) { return (int)DTLSv1_handle_timeout(ssl); }

static inline void carillon_openssl_free(void *pointer) { OPENSSL_free(pointer); }
static inline int carillon_ssl_set_app_data(SSL *ssl, void *data) { return SSL_set_app_data(ssl, data); }
static inline void *carillon_ssl_get_app_data(const SSL *ssl) { return SSL_get_app_data(ssl); }
static inline void *carillon_x509_store_ctx_get_ssl(X509_STORE_CTX *store) {
    return X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
}
static inline void carillon_bio_set_retry_read(BIO *bio) { BIO_set_retry_read(bio); }
static inline void carillon_bio_clear_retry_flags(BIO *bio) { BIO_clear_retry_flags(bio); }
static inline int carillon_bio_type_source_sink(void) { return BIO_TYPE_SOURCE_SINK; }

/*
 * The timeval OpenSSL hands to the read BIO with BIO_CTRL_DGRAM_SET_NEXT_TIMEOUT. In OpenSSL 3.0 and 3.1 this points
 * at the SSL's own retransmission deadline, which lets a caller on a virtual clock expire it on demand.
 */
static inline int carillon_timeval_is_set(const void *pointer) {
    const struct timeval *t = (const struct timeval *)pointer;
    return t->tv_sec != 0 || t->tv_usec != 0;
}
static inline void carillon_timeval_expire(void *pointer) {
    struct timeval *t = (struct timeval *)pointer;
    t->tv_sec = 1;
    t->tv_usec = 0;
}

/* SRTP (OpenSSLSRTPContext): the AEAD tag controls are macros. */
static inline int carillon_evp_aead_get_tag(EVP_CIPHER_CTX *ctx, void *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, length, tag);
}
static inline int carillon_evp_aead_set_tag(EVP_CIPHER_CTX *ctx, void *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, length, tag);
}

/*
 * SHA-1 on a caller-owned state, for SRTP's HMAC-SHA1 with precomputed pads. OpenSSL 3.0 deprecates these, but every
 * EVP route allocates per message there (measured on 3.0.19: EVP_MAC_init with a NULL key 2 allocations,
 * EVP_DigestInit_ex 1, EVP_MD_CTX_copy_ex 1), while a SHA_CTX is a plain struct Swift copies on the stack.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static inline int carillon_sha1_init(SHA_CTX *state) { return SHA1_Init(state); }
static inline int carillon_sha1_update(SHA_CTX *state, const void *data, size_t length) {
    return SHA1_Update(state, data, length);
}
static inline int carillon_sha1_final(unsigned char *digest, SHA_CTX *state) { return SHA1_Final(digest, state); }
#pragma GCC diagnostic pop

#endif
