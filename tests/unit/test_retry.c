/* Unit tests for the retry policy and error-body reading (pure parts). */
#include <criterion/criterion.h>
#include <string.h>
#include <time.h>

#include "upskill/http.h"
#include "upskill/provider.h"

static up_http_policy policy(void)
{
    up_http_policy p;

    up_http_policy_default(&p);
    return p;
}

Test(retry, defaults_match_sdks)
{
    up_http_policy p = policy();

    cr_assert_eq(p.max_retries, 2);
    cr_assert_eq(p.base_delay_ms, 500);
    cr_assert_eq(p.max_delay_ms, 8000);
    cr_assert_eq(p.max_retry_after_ms, 60000);
}

Test(retry, backoff_doubles_and_caps)
{
    up_http_policy p = policy();
    long want[] = {500, 1000, 2000, 4000, 8000, 8000, 8000};

    for (int n = 0; n < 7; n++)
        cr_assert_eq(up_http_retry_delay_ms(&p, n, -1, 0.0), want[n], "n=%d",
                     n);
}

Test(retry, jitter_takes_off_at_most_a_quarter)
{
    up_http_policy p = policy();

    cr_assert_eq(up_http_retry_delay_ms(&p, 0, -1, 0.5), 437);
    cr_assert_eq(up_http_retry_delay_ms(&p, 4, -1, 0.999999), 6000);
    cr_assert_eq(up_http_retry_delay_ms(&p, 1, -1, 1.0 / 4), 937);
}

Test(retry, hint_used_up_to_cap_then_fail_fast)
{
    up_http_policy p = policy();

    cr_assert_eq(up_http_retry_delay_ms(&p, 0, 3000, 0.9), 3000);
    cr_assert_eq(up_http_retry_delay_ms(&p, 5, 60000, 0.9), 60000);
    cr_assert_eq(up_http_retry_delay_ms(&p, 0, 60001, 0.0), -1);
    cr_assert_eq(up_http_retry_delay_ms(&p, 0, 0, 0.0), 500);
}

Test(retry, statuses)
{
    long yes[] = {408, 409, 429, 500, 502, 503, 504, 529, 599};
    long no[] = {200, 301, 400, 401, 402, 403, 404, 413, 422};

    for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++)
        cr_assert(up_http_retryable(yes[i], 0, NULL), "%ld", yes[i]);
    for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
        cr_assert_not(up_http_retryable(no[i], 0, NULL), "%ld", no[i]);
}

/* The servers' own words for a request that outgrew the context. */
static const struct {
    long status;
    const char *body;
    int outgrew;
} overflows[] = {
    {400,
     "{\"error\":{\"message\":\"This model's maximum context length is "
     "8192 tokens. However, your messages resulted in 9000 tokens.\","
     "\"type\":\"invalid_request_error\",\"code\":"
     "\"context_length_exceeded\"}}",
     1},
    {400, "{\"error\":{\"code\":\"context_length_exceeded\"}}", 1},
    {400,
     "{\"error\":{\"code\":400,\"message\":\"the request exceeds the "
     "available context size, try increasing it\",\"type\":"
     "\"exceed_context_size_error\"}}",
     1},
    {400,
     "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
     "\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}",
     1},
    {400, "{\"error\":\"the input length exceeds the context length\"}", 1},
    {400, "Your input exceeds the CONTEXT WINDOW of this model.", 1},
    {400,
     "{\"error\":{\"message\":\"The input token count (1200000) exceeds "
     "the maximum number of tokens allowed (1048576).\"}}",
     1},
    {422, "maximum context length exceeded", 1},
    {0, "context_length_exceeded", 1}, /* in-band, in a stream */
    {413, "", 1},
    {413, NULL, 1},
    {400, "{\"error\":{\"message\":\"Unknown parameter: 'foo'\"}}", 0},
    {400, "", 0},
    {400, NULL, 0},
    {429, "maximum context length", 0},
    {500, "prompt is too long", 0},
    {404, "model not found", 0},
};

Test(retry, context_overflow)
{
    for (size_t i = 0; i < sizeof(overflows) / sizeof(*overflows); i++) {
        const char *b = overflows[i].body;

        cr_expect_eq(
            up_http_context_overflow(overflows[i].status, b, b ? strlen(b) : 0),
            overflows[i].outgrew, "%zu: %ld %s", i, overflows[i].status,
            b ? b : "(null)");
    }
}

Test(retry, transport_errors)
{
    cr_assert(up_http_retryable(0, 1, NULL));
    cr_assert_not(up_http_retryable(0, 0, NULL));
}

Test(retry, x_should_retry_overrides)
{
    cr_assert(up_http_retryable(400, 0, "true"));
    cr_assert(up_http_retryable(400, 0, "TRUE"));
    cr_assert_not(up_http_retryable(503, 0, "false"));
    cr_assert_not(up_http_retryable(0, 1, "false"));
    cr_assert(up_http_retryable(503, 0, "maybe"));
}

Test(retry, hint_ms_header_first)
{
    cr_assert_eq(up_http_retry_hint_ms("1500", "9", 0), 1500);
    cr_assert_eq(up_http_retry_hint_ms("250.5", NULL, 0), 250);
    cr_assert_eq(up_http_retry_hint_ms("junk", "2", 0), 2000);
}

Test(retry, hint_seconds)
{
    cr_assert_eq(up_http_retry_hint_ms(NULL, "7", 0), 7000);
    cr_assert_eq(up_http_retry_hint_ms(NULL, " 1.5 ", 0), 1500);
    cr_assert_eq(up_http_retry_hint_ms(NULL, "0", 0), -1);
    cr_assert_eq(up_http_retry_hint_ms(NULL, "-3", 0), -1);
    cr_assert_eq(up_http_retry_hint_ms(NULL, "3x", 0), -1);
    cr_assert_eq(up_http_retry_hint_ms(NULL, "", 0), -1);
    cr_assert_eq(up_http_retry_hint_ms(NULL, "inf", 0), -1);
    cr_assert_eq(up_http_retry_hint_ms(NULL, NULL, 0), -1);
}

Test(retry, hint_http_date)
{
    /* Sun, 06 Nov 1994 08:49:37 GMT = 784111777 */
    time_t now = 784111777 - 30;

    cr_assert_eq(
        up_http_retry_hint_ms(NULL, "Sun, 06 Nov 1994 08:49:37 GMT", now),
        30000);
    cr_assert_eq(
        up_http_retry_hint_ms(NULL, "Sun, 06 Nov 1994 08:49:37 GMT", now + 60),
        -1); /* in the past */
    cr_assert_eq(
        up_http_retry_hint_ms(NULL, "Sun, 06 Foo 1994 08:49:37 GMT", now), -1);
    cr_assert_eq(
        up_http_retry_hint_ms(NULL, "Sun, 06 Nov 1994 08:49:37 PST", now), -1);
}

Test(retry, status_codes)
{
    cr_assert_eq(up_http_status_code(200), 0);
    cr_assert_eq(up_http_status_code(401), UP_EAUTH);
    cr_assert_eq(up_http_status_code(403), UP_EAUTH);
    cr_assert_eq(up_http_status_code(400), UP_EBADREQ);
    cr_assert_eq(up_http_status_code(404), UP_EBADREQ);
    cr_assert_eq(up_http_status_code(408), UP_ETIMEOUT);
    cr_assert_eq(up_http_status_code(429), UP_ERATELIMIT);
    cr_assert_eq(up_http_status_code(529), UP_ESERVER);
    cr_assert_eq(up_http_status_code(418), UP_EHTTP);
}

static void expect_message(const char *body, const char *want)
{
    up_buf b = UP_BUF_INIT;

    up_http_error_message(body, strlen(body), up_provider_key_prefixes(), &b);
    cr_assert_str_eq(b.data, want);
    up_buf_release(&b);
}

Test(retry, error_message_shapes)
{
    expect_message(
        "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
        "\"message\":\"Overloaded\"}}",
        "Overloaded");
    expect_message("{\"error\":{\"message\":\"bad\",\"code\":400}}", "bad");
    expect_message("{\"error\":\"model not found\"}", "model not found");
    expect_message("{\"object\":\"error\",\"message\":\"old vllm\"}",
                   "old vllm");
    expect_message("<html>\n<body>413 Too Large</body></html>",
                   "<html> <body>413 Too Large</body></html>");
    expect_message("", "empty response body");
}

Test(retry, error_message_redacts_keys)
{
    expect_message("{\"error\":{\"message\":\"Incorrect API key provided: "
                   "sk-proj-abcdef123456. Check it\"}}",
                   "Incorrect API key provided: [redacted]. Check it");
    expect_message("bad token hf_AbCdEfGhIjKl", "bad token [redacted]");
}

Test(retry, error_message_raw_capped)
{
    char body[1000];
    up_buf b = UP_BUF_INIT;

    memset(body, 'a', sizeof(body));
    up_http_error_message(body, sizeof(body), up_provider_key_prefixes(), &b);
    cr_assert_eq(b.len, 200);
    up_buf_release(&b);
}

Test(retry, quota_not_retried)
{
    const char *q = "{\"error\":{\"code\":\"insufficient_quota\"}}";
    const char *a = "{\"error\":{\"details\":{\"error_code\":"
                    "\"enforced_spend_limit_reached\"}}}";

    cr_assert(up_http_quota_exhausted(q, strlen(q), up_provider_quota_words()));
    cr_assert(up_http_quota_exhausted(a, strlen(a), up_provider_quota_words()));
    cr_assert_not(up_http_quota_exhausted("{}", 2, up_provider_quota_words()));
}

Test(retry, redact_url)
{
    up_buf b = UP_BUF_INIT;

    up_http_redact_url("https://user:pw@host:8080/v1/x?key=s#f", &b);
    cr_assert_str_eq(b.data, "https://host:8080/v1/x");
    up_buf_reset(&b);
    up_http_redact_url("http://127.0.0.1/v1", &b);
    cr_assert_str_eq(b.data, "http://127.0.0.1/v1");
    up_buf_release(&b);
}

/* ---- Anthropic rate-limit reset headers ---- */

/* 2025-08-21T12:40:00Z */
#define RL_NOW ((time_t)1755780000)

static long reset1(const char *reset)
{
    const char *left[1] = {NULL}, *r[1] = {reset};

    return up_http_reset_hint_ms(left, r, 1, RL_NOW);
}

Test(retry, reset_valid_and_fractional)
{
    cr_assert_eq(reset1("2025-08-21T12:40:59Z"), 59000);
    cr_assert_eq(reset1("2025-08-21T12:40:01.25Z"), 1250);
    cr_assert_eq(reset1("2025-08-21T12:40:00.5Z"), 500);
    cr_assert_eq(reset1("2025-08-21t12:40:02z"), 2000);
    cr_assert_eq(reset1("2025-08-21 12:40:02Z"), 2000);
    cr_assert_eq(reset1("2025-08-21T12:41:00.000000001Z"), 60000);
}

Test(retry, reset_offsets)
{
    cr_assert_eq(reset1("2025-08-21T14:40:30+02:00"), 30000);
    cr_assert_eq(reset1("2025-08-21T07:10:30-05:30"), 30000);
    cr_assert_eq(reset1("2025-08-21T12:40:30+00:00"), 30000);
    cr_assert_eq(reset1("2025-08-22T00:40:30.5+12:00"), 30500);
}

Test(retry, reset_in_the_past_or_now)
{
    cr_assert_eq(reset1("2025-08-21T12:39:59Z"), -1);
    cr_assert_eq(reset1("2025-08-21T12:40:00Z"), -1);
    cr_assert_eq(reset1("2025-08-21T14:40:00+02:00"), -1);
    cr_assert_eq(reset1("1999-01-01T00:00:00Z"), -1);
}

Test(retry, reset_garbage)
{
    const char *bad[] = {
        "",
        "soon",
        "60",
        "2025-08-21",
        "2025-08-21T12:40:59",      /* no zone */
        "2025-08-21T12:40:59 Z",    /* blank before the zone */
        "2025-08-21T12:40:59Zjunk", /* trailing bytes */
        "2025-08-21T12:40:59.Z",    /* a dot without digits */
        "2025-08-21T12:40:59+2:00", /* short offset */
        "2025-08-21T12:40:59+0200", /* offset without colon */
        "2025-13-01T00:00:00Z",     /* month 13 */
        "2025-08-21T24:00:00Z",     /* hour 24 */
        "2025-8-21T12:40:59Z",      /* short month */
        "2025-08-21X12:40:59Z",     /* bad separator */
        "Thu, 21 Aug 2025 12:40:59 GMT",
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
        cr_assert_eq(reset1(bad[i]), -1, "%s", bad[i]);
}

Test(retry, reset_earliest_when_no_limit_is_spent)
{
    const char *left[4] = {"10", NULL, "5000", NULL};
    const char *r[4] = {"2025-08-21T12:40:30Z", "2025-08-21T12:40:10Z", NULL,
                        "2025-08-21T12:40:20Z"};

    cr_assert_eq(up_http_reset_hint_ms(left, r, 4, RL_NOW), 10000);
}

Test(retry, reset_of_the_spent_limits)
{
    const char *left[4] = {"0", "1000", "0", NULL};
    const char *r[4] = {"2025-08-21T12:40:05Z", "2025-08-21T12:40:01Z",
                        "2025-08-21T12:40:30Z", "2025-08-21T12:40:02Z"};
    const char *left2[2] = {"0", "3"};
    const char *r2[2] = {"garbage", "2025-08-21T12:40:07Z"};

    /* both spent limits must clear: the later of the two */
    cr_assert_eq(up_http_reset_hint_ms(left, r, 4, RL_NOW), 30000);
    /* a spent limit without a usable reset does not count */
    cr_assert_eq(up_http_reset_hint_ms(left2, r2, 2, RL_NOW), 7000);
    cr_assert_eq(up_http_reset_hint_ms(left, r, 0, RL_NOW), -1);
}

/* ---- OpenAI's x-ratelimit-reset-* durations ---- */

Test(retry, reset_durations)
{
    cr_assert_eq(reset1("20ms"), 20);
    cr_assert_eq(reset1("1s"), 1000);
    cr_assert_eq(reset1("6m0s"), 360000);
    cr_assert_eq(reset1("1h2m3.5s"), 3723500);
    cr_assert_eq(reset1("1.5s"), 1500);
    cr_assert_eq(reset1("2m"), 120000);
    cr_assert_eq(reset1("1500000us"), 1500);
    cr_assert_eq(reset1("0s"), -1);
    cr_assert_eq(reset1("0.0001s"), -1); /* under a millisecond */
}

Test(retry, reset_duration_garbage)
{
    const char *bad[] = {"s",   "1",   "1x",    "-1s", "+1s", " 1s", "1s ",
                         "1 s", "1sx", "inf s", "nan", "1d",  "ms",  "1.s2"};

    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
        cr_assert_eq(reset1(bad[i]), -1, "%s", bad[i]);
}

Test(retry, reset_openai_spent_limit)
{
    /* requests spent (resets in 3 s), tokens left (resets in 1 s): wait
     * for the requests limit */
    const char *left[2] = {"0", "12000"}, *r[2] = {"3s", "1s"};

    cr_assert_eq(up_http_reset_hint_ms(left, r, 2, RL_NOW), 3000);
}
