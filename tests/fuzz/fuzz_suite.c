/*
 * libFuzzer target for the test-suite parser: arbitrary bytes must parse
 * or fail with a message, never crash, leak or read out of bounds; a suite
 * that parses must survive the to_json round trip unchanged.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cases/suite_lib.h"
#include "upskill/upskill.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const up_suite *s)
{
    up_buf a = UP_BUF_INIT, b = UP_BUF_INIT;
    up_suite again;
    up_error err;

    up_suite_init(&again);
    up_suite_to_json(s, &a);
    if (up_suite_parse(&again, a.data, a.len, "rt", "", &err))
        abort();
    up_suite_to_json(&again, &b);
    if (strcmp(a.data, b.data))
        abort();
    up_suite_release(&again);
    up_buf_release(&a);
    up_buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    up_suite s;
    up_error err;

    up_suite_init(&s);
    if (up_suite_parse(&s, (const char *)data, size, "fuzz.json", "", &err) ==
        0)
        round_trip(&s);
    else if (!err.msg[0])
        abort();
    up_suite_release(&s);
    return 0;
}
