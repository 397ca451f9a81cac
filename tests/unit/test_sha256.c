/* Unit tests for SHA-256: the FIPS 180-4 / NIST example vectors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "util/sha256.h"

static void hex_of(char out[65], up_sha256 *s)
{
    unsigned char d[32];

    up_sha256_final(s, d);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

Test(sha256, empty)
{
    char h[65];

    up_sha256_hex(h, "", 0);
    cr_assert_str_eq(
        h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

Test(sha256, abc)
{
    char h[65];

    up_sha256_hex(h, "abc", 3);
    cr_assert_str_eq(
        h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

Test(sha256, two_blocks_448_bits)
{
    static const char m[] =
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    char h[65];

    cr_assert_eq(strlen(m), 56, "the 448-bit message");
    up_sha256_hex(h, m, strlen(m));
    cr_assert_str_eq(
        h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

Test(sha256, million_a_in_odd_chunks)
{
    char chunk[997], h[65];
    size_t left = 1000000;
    up_sha256 s;

    memset(chunk, 'a', sizeof(chunk));
    up_sha256_init(&s);
    while (left) {
        size_t n = left < sizeof(chunk) ? left : sizeof(chunk);

        up_sha256_update(&s, chunk, n);
        left -= n;
    }
    hex_of(h, &s);
    cr_assert_str_eq(
        h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

Test(sha256, incremental_equals_one_shot)
{
    static const char m[] = "the quick brown fox jumps over the lazy dog, "
                            "twice over, to cross a block boundary or two!";
    char one[65], inc[65];

    up_sha256_hex(one, m, strlen(m));
    for (size_t cut = 0; cut <= strlen(m); cut += 7) {
        up_sha256 s;

        up_sha256_init(&s);
        up_sha256_update(&s, m, cut);
        up_sha256_update(&s, m + cut, strlen(m) - cut);
        hex_of(inc, &s);
        cr_assert_str_eq(inc, one, "split at %zu", cut);
    }
}

Test(sha256, padding_edges)
{
    /* 55, 56 and 64 bytes: one block, two blocks, exactly one block + pad */
    static const struct {
        size_t n;
        const char *want;
    } v[] = {
        {55,
         "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
        {56,
         "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
        {64,
         "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
    };
    char m[64], h[65];

    memset(m, 'a', sizeof(m));
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        up_sha256_hex(h, m, v[i].n);
        cr_assert_str_eq(h, v[i].want, "%zu bytes of 'a'", v[i].n);
    }
}
