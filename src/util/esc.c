/*
 * Control characters out of outside text (see upskill/esc.h).  The text is
 * walked as UTF-8: a valid sequence is copied unless it encodes a C1
 * control; every other byte that a terminal could act on is written as
 * \xNN.  Escaping is one-way: it is for showing, not for round trips.
 */
#include <stdio.h>

#include "upskill/esc.h"

/* Bounds of the second byte after each lead byte (RFC 3629, table 3-7). */
static size_t utf8_len(const unsigned char *p, size_t avail)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xBF;
    size_t n;

    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4;
    else
        return 0;
    lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : lo;
    hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : hi;
    if (n > avail || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

static int is_c0(unsigned char c, unsigned flags)
{
    if ((c == '\n' || c == '\t') && (flags & UP_ESC_MULTILINE))
        return 0;
    return c < 0x20 || c == 0x7F;
}

static void add_hex(up_buf *out, const unsigned char *p, size_t n)
{
    char hex[5];

    for (size_t i = 0; i < n; i++) {
        snprintf(hex, sizeof(hex), "\\x%02x", p[i]);
        up_buf_add(out, hex, 4);
    }
}

void up_esc_ctrl(up_buf *out, const char *s, size_t len, unsigned flags)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;

    while (i < len) {
        size_t run = i, n;

        while (run < len && p[run] < 0x80 && !is_c0(p[run], flags))
            run++;
        up_buf_add(out, p + i, run - i);
        if ((i = run) >= len)
            break;
        if (p[i] < 0x80) {
            add_hex(out, p + i++, 1);
            continue;
        }
        n = utf8_len(p + i, len - i);
        if (n == 2 && p[i] == 0xC2 && p[i + 1] <= 0x9F)
            add_hex(out, p + i, 2);
        else if (n)
            up_buf_add(out, p + i, n);
        else
            add_hex(out, p + i, n = 1);
        i += n;
    }
}
