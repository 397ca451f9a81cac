/* Unit tests for the SSE parser: framing, chunking, comments, names. */
#include <criterion/criterion.h>
#include <string.h>

#include "util/sse.h"

typedef struct seen {
    up_buf log; /* "event|data\n" per event */
    int n;
    int stop_at; /* return 7 from the stop_at-th event (1-based), 0: never */
} seen;

static int record(void *ud, const char *event, const char *data, size_t len)
{
    seen *s = ud;

    cr_assert_eq(strlen(data), len);
    up_buf_addf(&s->log, "%s|%s\n", event, data);
    return ++s->n == s->stop_at ? 7 : 0;
}

/* Parse text fed in chunks of size step; return the event log. */
static char *parse_chunked(const char *text, size_t step)
{
    seen s = {UP_BUF_INIT, 0, 0};
    up_sse p;
    size_t len = strlen(text);

    up_sse_init(&p, record, &s);
    for (size_t i = 0; i < len; i += step)
        cr_assert_eq(up_sse_feed(&p, text + i, i + step > len ? len - i : step),
                     0);
    up_sse_release(&p);
    return up_buf_detach(&s.log);
}

static void expect_all_splits(const char *text, const char *want)
{
    for (size_t step = 1; step <= strlen(text) + 1; step++) {
        char *got = parse_chunked(text, step);

        cr_assert_str_eq(got, want, "step %zu", step);
        free(got);
    }
}

Test(sse, openai_style_lf)
{
    expect_all_splits("data: {\"a\":1}\n\ndata: [DONE]\n\n",
                      "message|{\"a\":1}\nmessage|[DONE]\n");
}

Test(sse, crlf_split_anywhere)
{
    expect_all_splits("event: ping\r\ndata: x\r\n\r\ndata: y\r\n\r\n",
                      "ping|x\nmessage|y\n");
}

Test(sse, lone_cr_terminators)
{
    expect_all_splits("data: a\r\rdata: b\r\r", "message|a\nmessage|b\n");
}

Test(sse, comments_and_unknown_fields_ignored)
{
    expect_all_splits(": ping\n\nid: 3\nretry: 10\nfoo: bar\ndata: z\n\n",
                      "message|z\n");
}

Test(sse, multiline_data_joined)
{
    expect_all_splits("data: one\ndata:two\ndata\n\n", "message|one\ntwo\n\n");
}

Test(sse, event_names_reset_per_event)
{
    expect_all_splits("event: message_start\ndata: 1\n\ndata: 2\n\n"
                      "event: a\nevent: b\ndata: 3\n\n",
                      "message_start|1\nmessage|2\nb|3\n");
}

Test(sse, only_first_space_stripped)
{
    expect_all_splits("data:  two spaces\n\n", "message| two spaces\n");
}

Test(sse, event_without_data_not_dispatched)
{
    expect_all_splits("event: x\n\n\n\ndata: y\n\n", "message|y\n");
}

Test(sse, unfinished_event_dropped)
{
    expect_all_splits("data: a\n\ndata: partial\n", "message|a\n");
}

Test(sse, callback_stops_parse)
{
    seen s = {UP_BUF_INIT, 0, 1};
    up_sse p;
    const char *t = "data: a\n\ndata: b\n\n";

    up_sse_init(&p, record, &s);
    cr_assert_eq(up_sse_feed(&p, t, strlen(t)), 7);
    cr_assert_eq(s.n, 1);
    up_sse_release(&p);
    up_buf_release(&s.log);
}

Test(sse, reset_forgets_partial)
{
    seen s = {UP_BUF_INIT, 0, 0};
    up_sse p;

    up_sse_init(&p, record, &s);
    up_sse_feed(&p, "data: half", 10);
    up_sse_reset(&p);
    up_sse_feed(&p, "data: new\n\n", 11);
    cr_assert_str_eq(s.log.data, "message|new\n");
    up_sse_release(&p);
    up_buf_release(&s.log);
}

Test(sse, large_data_line)
{
    up_buf t = UP_BUF_INIT;
    char *got;

    up_buf_adds(&t, "data: ");
    for (int i = 0; i < 100000; i++)
        up_buf_addc(&t, 'x');
    up_buf_adds(&t, "\n\n");
    got = parse_chunked(t.data, 4093);
    cr_assert_eq(strlen(got), 100000 + strlen("message|\n"));
    free(got);
    up_buf_release(&t);
}

/* llama.cpp before late 2025 sent in-band errors as an "error:" field:
   it must reach the callback as an "error" event, not vanish. */
Test(sse, llama_error_field_is_an_error_event)
{
    expect_all_splits("error: {\"code\":400,\"message\":\"too long\"}\n\n"
                      "data: [DONE]\n\n",
                      "error|{\"code\":400,\"message\":\"too long\"}\n"
                      "message|[DONE]\n");
}
