/*
 * libFuzzer target for up_check_reason (check.h): a verifier's output is
 * the student's and the task's bytes; any of them must give a reason of
 * bounded length, never crash or read past the end (NULs included).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"
#include "lib/sandbox/check.h"
#include "upskill/upskill.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = up_xmalloc(size ? size : 1); /* exactly size: ASan sees past */
    up_buf why = UP_BUF_INIT;

    memcpy(copy, data, size);
    up_check_reason(&why, copy, size);
    /* ": " + a name + ": " + a line + " (and N more)" */
    if (why.len > 2 * UP_CHECK_REASON_LINE + 64)
        abort();
    up_buf_release(&why);
    free(copy);
    return 0;
}
