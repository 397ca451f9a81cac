/*
 * libFuzzer target for trace ingestion: arbitrary bytes must parse (every
 * event's text valid UTF-8) or fail with a message; a parsed trace must
 * render within its budget, as valid UTF-8, with consistent statistics.
 * The budget comes from the first byte so tiny budgets are explored too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "upskill/upskill.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_utf8(const char *s, size_t n)
{
    json_t *j = json_stringn(s, n);

    if (!j)
        abort();
    json_decref(j);
}

static void check_render(const up_trace *t, size_t budget)
{
    up_buf out = UP_BUF_INIT;
    up_trace_stats st;

    up_trace_render(t, budget, &out, &st);
    if (out.len > st.budget_tokens * 4 || out.len != st.chars_after ||
        st.events_kept + st.events_dropped != t->nevents)
        abort();
    check_utf8(out.data, out.len);
    up_buf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"fuzz.jsonl", "fuzz.json", "fuzz.md"};
    up_trace t;
    up_error err;
    int rc;

    rc = up_trace_parse(&t, (const char *)data, size, names[size % 3], &err);
    if (rc && !err.msg[0])
        abort();
    for (size_t i = 0; !rc && i < t.nevents; i++)
        check_utf8(t.events[i].text, strlen(t.events[i].text));
    for (size_t i = 0; i < t.nwarnings; i++)
        check_utf8(t.warnings[i], strlen(t.warnings[i]));
    if (!rc) {
        check_render(&t, size ? 1 + (size_t)data[0] * 4 : 1);
        check_render(&t, 0);
    }
    up_trace_release(&t);
    return 0;
}
