/*
 * libFuzzer target for the CLI event-stream parsers: arbitrary bytes in
 * any format (picked by the first byte) must parse or fail with a
 * message, never crash; a parse gives consistent counts, valid UTF-8 or
 * at least NUL-terminated strings, and sorted, safe skill file names.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/harness/harness_events.h"
#include "upskill/upskill.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const up_harness_result *r)
{
    long calls = 0, errors = 0;

    if (!r->answer || r->skipped > r->lines ||
        r->ntools > UP_HARNESS_MAX_TOOLS ||
        r->nskill_files > UP_HARNESS_MAX_FILES)
        abort();
    for (size_t i = 0; i < r->ntools; i++) {
        calls += r->tools[i].calls;
        errors += r->tools[i].errors;
    }
    if (calls != r->tool_calls || errors != r->tool_errors || errors > calls)
        abort();
    for (size_t i = 0; i < r->nskill_files; i++)
        if (!r->skill_files[i][0] || strstr(r->skill_files[i], "..") ||
            (i && strcmp(r->skill_files[i - 1], r->skill_files[i]) >= 0))
            abort();
    if (r->input_tokens < 0 || r->output_tokens < 0 || r->cached_tokens < 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    up_harness_result r;
    up_error err;
    up_harness_format fmt;
    const char *skill;
    int rc;

    if (!size)
        return 0;
    fmt = (up_harness_format)(data[0] % UP_HARNESS_FORMAT_COUNT);
    skill = data[0] & 0x80 ? NULL : "csv-report";
    rc = up_harness_parse(&r, fmt, skill, (const char *)data + 1, size - 1,
                          &err);
    if (rc && !err.msg[0])
        abort();
    check(&r);
    up_harness_result_release(&r);
    return 0;
}
