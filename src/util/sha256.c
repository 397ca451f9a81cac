/*
 * SHA-256 after FIPS 180-4 section 6.2: the message is padded with one 1
 * bit, zeros, and its length in bits as a 64-bit big-endian number, to a
 * multiple of 512 bits, then each 64-byte block runs 64 rounds over the
 * eight-word state.  Bytes are assembled big-endian by hand, so the code
 * does not depend on the host's byte order.
 */
#include <string.h>

#include "util/sha256.h"

static const uint32_t k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

/* The message schedule: 16 words from the block, 48 derived. */
static void schedule(uint32_t w[64], const unsigned char *block)
{
    for (int t = 0; t < 16; t++)
        w[t] = load_be32(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ w[t - 15] >> 3;
        uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ w[t - 2] >> 10;

        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
}

static void compress(uint32_t h[8], const unsigned char *block)
{
    uint32_t w[64], v[8];

    schedule(w, block);
    memcpy(v, h, sizeof(v));
    for (int t = 0; t < 64; t++) {
        uint32_t e = v[4], a = v[0];
        uint32_t t1 = v[7] + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) +
                      ((e & v[5]) ^ (~e & v[6])) + k[t] + w[t];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) +
                      ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));

        memmove(v + 1, v, 7 * sizeof(v[0]));
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++)
        h[i] += v[i];
}

void up_sha256_init(up_sha256 *s)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                   0xa54ff53a, 0x510e527f, 0x9b05688c,
                                   0x1f83d9ab, 0x5be0cd19};

    memcpy(s->h, h0, sizeof(h0));
    s->len = 0;
    s->n = 0;
}

void up_sha256_update(up_sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;

    s->len += len;
    while (len) {
        size_t take = 64 - s->n < len ? 64 - s->n : len;

        memcpy(s->buf + s->n, p, take);
        s->n += take;
        p += take;
        len -= take;
        if (s->n == 64) {
            compress(s->h, s->buf);
            s->n = 0;
        }
    }
}

void up_sha256_final(up_sha256 *s, unsigned char out[32])
{
    uint64_t bits = s->len * 8;
    unsigned char pad[72] = {0x80};
    size_t npad = (s->n < 56 ? 56 : 120) - s->n;

    for (int i = 0; i < 8; i++)
        pad[npad + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    up_sha256_update(s, pad, npad + 8);
    for (int i = 0; i < 8; i++)
        for (int b = 0; b < 4; b++)
            out[4 * i + b] = (unsigned char)(s->h[i] >> (24 - 8 * b));
}

void up_sha256_final_hex(up_sha256 *s, char out[65])
{
    unsigned char d[32];

    up_sha256_final(s, d);
    for (int i = 0; i < 32; i++) {
        out[2 * i] = "0123456789abcdef"[d[i] >> 4];
        out[2 * i + 1] = "0123456789abcdef"[d[i] & 15];
    }
    out[64] = '\0';
}

void up_sha256_hex(char out[65], const void *data, size_t len)
{
    up_sha256 s;

    up_sha256_init(&s);
    up_sha256_update(&s, data, len);
    up_sha256_final_hex(&s, out);
}
