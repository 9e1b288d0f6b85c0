// SPDX-License-Identifier: Apache-2.0
// OpenSSL's libcrypto (libssl-dev), for the Ed25519 signatures of the replicas a site
// controller sends its doors (docs/protocol.md, "Replica") and the HMAC-SHA256 of the
// codes file's tags.
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/pem.h>
