/*
 * UTF-8 repair (see util/utf8.h).  A bad byte is replaced on its own and
 * the walk goes on at the next byte, so a valid sequence after it is
 * kept; clean text is checked once and copied unchanged.
 */
#include <string.h>

#include "util/utf8.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

size_t up_utf8_seq(const unsigned char *p, size_t n)
{
    size_t len = p[0] < 0x80   ? 1
                 : p[0] < 0xc2 ? 0
                 : p[0] < 0xe0 ? 2
                 : p[0] < 0xf0 ? 3
                 : p[0] < 0xf5 ? 4
                               : 0;
    unsigned char lo = 0x80, hi = 0xbf;

    if (!len || len > n || !p[0])
        return 0;
    if (p[0] == 0xe0)
        lo = 0xa0; /* overlong */
    else if (p[0] == 0xed)
        hi = 0x9f; /* surrogates */
    else if (p[0] == 0xf0)
        lo = 0x90; /* overlong */
    else if (p[0] == 0xf4)
        hi = 0x8f; /* past U+10FFFF */
    for (size_t i = 1; i < len; i++, lo = 0x80, hi = 0xbf)
        if (p[i] < lo || p[i] > hi)
            return 0;
    return len;
}

size_t up_utf8_add(up_buf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0, bad = 0;

    while (i + run < n) {
        size_t k = up_utf8_seq(p + i + run, n - i - run);

        if (k) {
            run += k;
            continue;
        }
        up_buf_add(b, s + i, run);
        up_buf_adds(b, REPLACEMENT);
        bad++;
        i += run + 1;
        run = 0;
    }
    up_buf_add(b, s + i, run);
    return bad;
}

size_t up_utf8_bad(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t bad = 0;

    for (size_t i = 0, k; i < n; i += k ? k : 1)
        if (!(k = up_utf8_seq(p + i, n - i)))
            bad++;
    return bad;
}

size_t up_utf8_fix(up_buf *b)
{
    up_buf fixed = UP_BUF_INIT;
    size_t bad;

    if (!up_utf8_bad(b->data, b->len))
        return 0;
    bad = up_utf8_add(&fixed, b->data, b->len);
    up_buf_release(b);
    *b = fixed;
    return bad;
}
