/*
 * libFuzzer target for the assertion parser and the judge-reply parser:
 * the first byte picks which; the rest is the input.  A list that parses
 * is checked against a fixed answer.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lib/cases/assert.h"
#include "upskill/upskill.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse_list(const char *text)
{
    up_assert_list l;
    up_error err;

    up_assert_list_init(&l);
    if (up_assert_list_parse(&l, text, "fuzz.json", "assert", &err) == 0) {
        up_assert_result *r = up_assert_results_new(l.n);
        up_assert_usage u = {.output_tokens = 42};

        up_assert_check(&l, "GOOD ANSWER {\"a\": [1, 2]}", &u, r);
        up_assert_results_free(r, l.n);
    }
    up_assert_list_release(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text;
    int pass;
    up_buf reason = UP_BUF_INIT;

    if (!size)
        return 0;
    text = up_xstrndup((const char *)data + 1, size - 1);
    if (data[0] & 1)
        parse_list(text);
    else
        up_assert_rubric_parse(text, &pass, &reason, NULL);
    up_buf_release(&reason);
    free(text);
    return 0;
}
