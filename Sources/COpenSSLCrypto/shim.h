#ifndef SESSIONHUB_COPENSSLCRYPTO_SHIM_H
#define SESSIONHUB_COPENSSLCRYPTO_SHIM_H
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#endif
