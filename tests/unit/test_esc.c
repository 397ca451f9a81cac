/* Unit tests for up_esc_ctrl: what reaches a terminal from outside text. */
#include <criterion/criterion.h>
#include <string.h>

#include "upskill/esc.h"

struct esc_case {
    const char *in;
    size_t len; /* 0: strlen(in) */
    unsigned flags;
    const char *want;
};

static const struct esc_case cases[] = {
    {"plain text, UTF-8: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0, 0,
     "plain text, UTF-8: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
    {"red \033[31mx\033[0m", 0, 0, "red \\x1b[31mx\\x1b[0m"},
    {"title \033]0;owned\007", 0, 0, "title \\x1b]0;owned\\x07"},
    {"a\nb\tc\rd", 0, 0, "a\\x0ab\\x09c\\x0dd"},
    {"a\nb\tc\rd", 0, UP_ESC_MULTILINE, "a\nb\tc\\x0dd"},
    {"del\x7f", 0, 0, "del\\x7f"},
    {"csi \xc2\x9b"
     "31m",
     0, 0, "csi \\xc2\\x9b31m"},
    {"c1 bounds \xc2\x80 \xc2\x9f \xc2\xa0", 0, 0,
     "c1 bounds \\xc2\\x80 \\xc2\\x9f \xc2\xa0"},
    {"lone \x9b"
     "31m",
     0, 0, "lone \\x9b31m"},
    {"cut \xe2\x82", 0, 0, "cut \\xe2\\x82"},
    {"overlong \xc0\xaf \xe0\x80\xaf", 0, 0,
     "overlong \\xc0\\xaf \\xe0\\x80\\xaf"},
    {"surrogate \xed\xa0\x80", 0, 0, "surrogate \\xed\\xa0\\x80"},
    {"back\\slash \\x1b", 0, 0, "back\\slash \\x1b"},
    {"nul\0after", 9, 0, "nul\\x00after"},
    {"", 0, 0, ""},
};

Test(esc, table)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct esc_case *c = &cases[i];
        up_buf b = UP_BUF_INIT;

        up_esc_ctrl(&b, c->in, c->len ? c->len : strlen(c->in), c->flags);
        cr_assert_str_eq(b.data, c->want, "case %zu", i);
        cr_assert_eq(b.len, strlen(c->want), "case %zu", i);
        up_buf_release(&b);
    }
}

Test(esc, appends_and_takes_null_when_empty)
{
    up_buf b = UP_BUF_INIT;

    up_buf_adds(&b, "x:");
    up_esc_ctrl(&b, NULL, 0, 0);
    up_esc_ctrl(&b, "\033", 1, 0);
    cr_assert_str_eq(b.data, "x:\\x1b");
    up_buf_release(&b);
}

/* Whatever the bytes, no byte a terminal acts on survives. */
Test(esc, no_control_byte_survives)
{
    char in[512];
    up_buf b = UP_BUF_INIT;

    for (size_t i = 0; i < sizeof(in); i++)
        in[i] = (char)((i * 37 + 11) & 0xff);
    up_esc_ctrl(&b, in, sizeof(in), 0);
    for (size_t i = 0; i < b.len; i++) {
        unsigned char c = (unsigned char)b.data[i];

        cr_assert(c >= 0x20 && c != 0x7f, "byte %zu is 0x%02x", i, c);
        if (c == 0xc2 && i + 1 < b.len)
            cr_assert((unsigned char)b.data[i + 1] >= 0xa0, "C1 at %zu", i);
    }
    up_buf_release(&b);
}
