/* Unit tests for the UTF-8 repair of outside text (util/utf8.h) and the
 * JSON strings built on it (up_json_textn). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/upskill.h"
#include "util/json.h"
#include "util/utf8.h"

#define FFFD "\xef\xbf\xbd"

Test(utf8, clean_text_is_kept)
{
    up_buf b = UP_BUF_INIT;
    const char *s = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";

    cr_assert_eq(up_utf8_bad(s, strlen(s)), 0);
    cr_assert_eq(up_utf8_add(&b, s, strlen(s)), 0);
    cr_assert_str_eq(b.data, s);
    up_buf_release(&b);
}

Test(utf8, each_bad_byte_is_one_replacement)
{
    static const struct {
        const char *in;
        size_t n;
        const char *out;
        size_t bad;
    } cases[] = {
        {"a\xff"
         "b",
         3, "a" FFFD "b", 1},
        {"\xc3", 1, FFFD, 1},                            /* cut short */
        {"\xc0\xaf", 2, FFFD FFFD, 2},                   /* overlong */
        {"\xed\xa0\x80", 3, FFFD FFFD FFFD, 3},          /* a surrogate */
        {"\xf4\x90\x80\x80", 4, FFFD FFFD FFFD FFFD, 4}, /* past U+10FFFF */
        {"x\0y", 3, "x" FFFD "y", 1},                    /* NUL */
        {"\xe9t\xc3\xa9", 4, FFFD "t\xc3\xa9", 1}, /* latin-1 then UTF-8 */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        up_buf b = UP_BUF_INIT;

        cr_assert_eq(up_utf8_bad(cases[i].in, cases[i].n), cases[i].bad,
                     "case %zu", i);
        cr_assert_eq(up_utf8_add(&b, cases[i].in, cases[i].n), cases[i].bad);
        cr_assert_str_eq(b.data, cases[i].out, "case %zu", i);
        up_buf_release(&b);
    }
}

Test(utf8, json_text_always_encodes)
{
    json_t *v = up_json_textn("GOOD \xff\xfe end", 11);
    char *s = json_dumps(v, JSON_ENCODE_ANY);

    cr_assert_not_null(v, "jansson refuses the bytes: this must not");
    cr_assert_not_null(s);
    cr_assert_str_eq(s, "\"GOOD " FFFD FFFD " end\"");
    free(s);
    json_decref(v);
    v = up_json_str_or_null("\xc3");
    cr_assert_str_eq(json_string_value(v), FFFD);
    json_decref(v);
}

Test(utf8, error_messages_are_utf8)
{
    up_error e;

    up_error_set(&e, UP_EHTTP, "http 400: %s", "bad \xff");
    cr_assert_str_eq(e.msg, "http 400: bad " FFFD);
    up_error_prefix(&e, "'%s': ", "u\xfe");
    cr_assert_str_eq(e.msg, "'u" FFFD "': http 400: bad " FFFD);
}
