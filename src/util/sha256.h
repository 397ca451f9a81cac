/*
 * SHA-256 (FIPS 180-4): the digest behind the response cache's keys.
 * Incremental (init, update..., final) or one call (up_sha256_hex).
 */
#ifndef UPSKILL_UTIL_SHA256_H
#define UPSKILL_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct up_sha256 {
    uint32_t h[8];         /* the running hash state */
    uint64_t len;          /* bytes hashed so far */
    unsigned char buf[64]; /* a partial block */
    size_t n;              /* bytes in buf */
} up_sha256;

/* Start a new digest. */
void up_sha256_init(up_sha256 *s);
/* Hash len more bytes of data (data may be NULL when len is 0). */
void up_sha256_update(up_sha256 *s, const void *data, size_t len);
/* Finish: the 32-byte digest goes to out; s must be initialised again
 * before reuse. */
void up_sha256_final(up_sha256 *s, unsigned char out[32]);
/* up_sha256_final as 64 lowercase hex digits + NUL. */
void up_sha256_final_hex(up_sha256 *s, char out[65]);
/* The digest of len bytes of data as 64 lowercase hex digits + NUL. */
void up_sha256_hex(char out[65], const void *data, size_t len);

#endif
