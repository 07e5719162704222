#ifndef CCARILLON_OPENSSL_SHIM_H
#define CCARILLON_OPENSSL_SHIM_H

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/err.h>

#endif
