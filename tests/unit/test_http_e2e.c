/*
 * End-to-end checks of transport, providers and scheduler against the
 * fake LLM server (build/fake-llm, path in $FAKE_LLM; skipped when unset).
 * Each test writes a scenario to a temp folder, starts the server (which
 * prints its port once listening: we block on that line, no sleeps), runs
 * requests, then checks outcomes and the recorded requests.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/fs.h"
#include "upskill/sched.h"

#define KEY "sk-fake-e2e-key-0123456789"

typedef struct fake {
    pid_t pid;
    char dir[64];
    char rec[128];
    char url[64];    /* http://127.0.0.1:PORT */
    char url_v1[80]; /* the same + /v1: OpenAI base URLs include it */
} fake;

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static void fake_start(fake *f, const char *scenario)
{
    const char *bin = getenv("FAKE_LLM");
    char path[128], line[64] = "";
    int fds[2];
    FILE *out;

    if (!bin || !*bin || access(bin, X_OK) != 0)
        cr_skip_test("FAKE_LLM not set");
    snprintf(f->dir, sizeof(f->dir), "/tmp/up-http-e2e-XXXXXX");
    cr_assert_not_null(mkdtemp(f->dir));
    snprintf(path, sizeof(path), "%s/scenario.json", f->dir);
    snprintf(f->rec, sizeof(f->rec), "%s/rec.jsonl", f->dir);
    write_file(path, scenario);
    cr_assert_eq(pipe(fds), 0);
    f->pid = fork();
    cr_assert_neq(f->pid, -1);
    if (f->pid == 0) {
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* a failed test must not leak it */
#endif
        dup2(fds[1], 1);
        dup2(open("/dev/null", O_WRONLY), 2);
        close(fds[0]);
        execl(bin, bin, "--scenario", path, "--record", f->rec, "--seed", "7",
              "--max-seconds", "120", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    out = fdopen(fds[0], "r");
    cr_assert_not_null(fgets(line, sizeof(line), out), "fake-llm gave no port");
    fclose(out);
    cr_assert_eq(strncmp(line, "port=", 5), 0);
    snprintf(f->url, sizeof(f->url), "http://127.0.0.1:%ld",
             strtol(line + 5, NULL, 10));
    snprintf(f->url_v1, sizeof(f->url_v1), "%s/v1", f->url);
}

static void fake_stop(fake *f)
{
    char cmd[160];

    kill(f->pid, SIGTERM);
    waitpid(f->pid, NULL, 0);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    cr_assert_eq(system(cmd), 0);
}

/* The recorded requests, as a JSON array. */
static json_t *records(const fake *f)
{
    up_buf b = UP_BUF_INIT;
    json_t *a = json_array();
    char *line;

    cr_assert_eq(up_fs_read(&b, f->rec, 64u << 20, NULL), 0);
    for (line = b.data; *line;) {
        size_t n = strcspn(line, "\n");
        json_t *j = json_loadb(line, n, 0, NULL);

        cr_assert_not_null(j, "bad record line");
        json_array_append_new(a, j);
        line += n + (line[n] == '\n');
    }
    cr_assert_null(strstr(b.data, "\"body\":{" KEY));
    up_buf_release(&b);
    return a;
}

static const up_message hello[] = {{"user", "Hello there"}};

static void setup(up_endpoint *ep, up_request *rq, int kind, const fake *f)
{
    up_endpoint_init(ep, kind);
    ep->base_url = kind == UP_WIRE_OPENAI ? f->url_v1 : f->url;
    ep->api_key = KEY;
    ep->model = kind == UP_WIRE_ANTHROPIC ? "claude-haiku-4-5" : "gpt-x";
    up_request_init(rq);
    rq->system = "Be terse.";
    rq->messages = hello;
    rq->n_messages = 1;
}

static void assert_no_key_in_body(json_t *rec)
{
    char *s = json_dumps(json_object_get(rec, "body"), 0);

    cr_assert_null(strstr(s, KEY));
    free(s);
}

static void take_result(void *ud, up_http_result *res)
{
    up_http_result *out = ud;

    *out = *res;
    up_buf_init(&res->body);
}

/* Run rq to the end on a client of its own (the library runs every
 * request through the command's loop, sched.h). */
static int perform(const up_http_request *rq, up_http_result *res)
{
    up_http_client *c = up_http_client_new(1);

    up_http_result_init(res);
    cr_assert_not_null(c);
    up_http_submit(c, rq, take_result, res);
    while (up_http_run(c, 1000) > 0)
        ;
    up_http_client_free(c);
    return res->code;
}

Test(http_e2e, anthropic_request_shape_and_reply)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;
    json_t *rec, *r0;

    fake_start(&f, "[{\"reply\":{\"text\":\"Hi!\",\"reasoning\":\"hmm\","
                   "\"usage\":{\"input_tokens\":12,\"output_tokens\":5,"
                   "\"cached_tokens\":4}}}]");
    setup(&ep, &rq, UP_WIRE_ANTHROPIC, &f);
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res), 0,
                 "%s", res.err.msg);
    cr_assert_str_eq(res.text, "Hi!");
    cr_assert_str_eq(res.reasoning, "hmm");
    cr_assert_eq(res.usage.output, 5);
    cr_assert_eq(res.usage.cached, 4);
    cr_assert_eq(res.attempts, 1);
    cr_assert_str_neq(res.request_id, "");
    rec = records(&f);
    r0 = json_array_get(rec, 0);
    cr_assert_str_eq(json_string_value(json_object_get(r0, "path")),
                     "/v1/messages");
    cr_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(r0, "headers"), "anthropic-version")),
                     "2023-06-01");
    cr_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(r0, "headers"), "x-api-key")),
                     KEY);
    cr_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(r0, "body"), "system")),
                     "Be terse.");
    cr_assert(json_is_integer(
        json_object_get(json_object_get(r0, "body"), "max_tokens")));
    assert_no_key_in_body(r0);
    json_decref(rec);
    up_response_release(&res);
    fake_stop(&f);
}

Test(http_e2e, openai_stream_with_usage)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;
    json_t *rec, *body;

    fake_start(&f, "[{\"reply\":{\"text\":\"streamed answer\",\"reasoning\":"
                   "\"why\",\"chunk_size\":3,\"usage\":{\"input_tokens\":9,"
                   "\"output_tokens\":4,\"reasoning_tokens\":1}}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    ep.stream = 1;
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res), 0,
                 "%s", res.err.msg);
    cr_assert_str_eq(res.text, "streamed answer");
    cr_assert_str_eq(res.reasoning, "why");
    cr_assert_eq(res.usage.input, 9);
    cr_assert_eq(res.usage.reasoning, 1);
    cr_assert_eq(res.usage.estimated, 0);
    rec = records(&f);
    body = json_object_get(json_array_get(rec, 0), "body");
    cr_assert(json_is_true(json_object_get(
        json_object_get(body, "stream_options"), "include_usage")));
    cr_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(json_array_get(rec, 0), "headers"),
                         "authorization")),
                     "Bearer " KEY);
    json_decref(rec);
    up_response_release(&res);
    fake_stop(&f);
}

/* One transient fault, then success: the retry must hide it. */
static void retried_then_ok(int kind, int stream, const char *fault)
{
    char scen[512];
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    snprintf(scen, sizeof(scen),
             "[{\"times\":1,\"reply\":{\"fault\":\"%s\",\"retry_after\":"
             "\"0.05\"}},{\"reply\":{\"text\":\"ok\"}}]",
             fault);
    fake_start(&f, scen);
    setup(&ep, &rq, kind, &f);
    ep.stream = stream;
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res), 0,
                 "%s: %s", fault, res.err.msg);
    cr_assert_str_eq(res.text, "ok");
    cr_assert_eq(res.attempts, 2, "%s", fault);
    up_response_release(&res);
    fake_stop(&f);
}

Test(http_e2e, retried_after_429)
{
    retried_then_ok(UP_WIRE_ANTHROPIC, 0, "retry_after");
}

Test(http_e2e, retried_after_500)
{
    retried_then_ok(UP_WIRE_OPENAI, 0, "error_500");
}

Test(http_e2e, retried_after_529)
{
    retried_then_ok(UP_WIRE_ANTHROPIC, 1, "overloaded");
}

Test(http_e2e, retried_after_reset)
{
    retried_then_ok(UP_WIRE_OPENAI, 1, "reset");
}

Test(http_e2e, retried_after_early_close)
{
    retried_then_ok(UP_WIRE_ANTHROPIC, 0, "early_close");
}

static int logged;

static void count_log(void *ud, const up_http_attempt *a)
{
    (void)ud;
    cr_assert_null(a->error ? strstr(a->error, KEY) : NULL);
    logged++;
}

Test(http_e2e, clear_error_after_retries_spent)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    fake_start(&f, "[{\"reply\":{\"status\":503,\"error_message\":"
                   "\"try later\"}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    ep.max_retries = 1;
    logged = 0;
    cr_assert_eq(up_provider_complete(&ep, &rq, count_log, NULL, NULL, &res),
                 UP_ESERVER);
    cr_assert_eq(res.attempts, 2);
    cr_assert_eq(logged, 2);
    cr_assert(strstr(res.err.msg, "http 503: try later") != NULL, "%s",
              res.err.msg);
    cr_assert(strstr(res.err.msg, "/v1/chat/completions") != NULL);
    up_response_release(&res);
    fake_stop(&f);
}

Test(http_e2e, auth_error_not_retried_and_key_redacted)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    fake_start(&f, "[{\"reply\":{\"status\":401,\"error_message\":"
                   "\"Incorrect API key provided: " KEY "\"}}]");
    setup(&ep, &rq, UP_WIRE_ANTHROPIC, &f);
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res),
                 UP_EAUTH);
    cr_assert_eq(res.attempts, 1);
    cr_assert_null(strstr(res.err.msg, KEY), "%s", res.err.msg);
    cr_assert(strstr(res.err.msg, "[redacted]") != NULL, "%s", res.err.msg);
    up_response_release(&res);
    fake_stop(&f);
}

Test(http_e2e, non_json_error_body_and_should_retry_false)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    fake_start(&f, "[{\"reply\":{\"status\":502,\"body\":\"<html>bad "
                   "gateway</html>\",\"headers\":{\"x-should-retry\":"
                   "\"false\"}}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res),
                 UP_ESERVER);
    cr_assert_eq(res.attempts, 1);
    cr_assert(strstr(res.err.msg, "bad gateway") != NULL, "%s", res.err.msg);
    up_response_release(&res);
    fake_stop(&f);
}

Test(http_e2e, json_repair_turn)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;
    json_t *rec, *msgs;

    fake_start(&f, "[{\"times\":1,\"reply\":{\"text\":\"sorry, no\"}},"
                   "{\"reply\":{\"text\":\"{\\\"a\\\": 1}\"}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    rq.schema = "{\"type\":\"object\"}";
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res), 0,
                 "%s", res.err.msg);
    cr_assert_str_eq(res.text, "{\"a\": 1}");
    cr_assert_eq(res.turns, 2);
    rec = records(&f);
    msgs = json_object_get(json_object_get(json_array_get(rec, 1), "body"),
                           "messages");
    cr_assert_eq(json_array_size(msgs), 4);
    cr_assert_str_eq(
        json_string_value(json_object_get(json_array_get(msgs, 2), "content")),
        "sorry, no");
    json_decref(rec);
    up_response_release(&res);
    fake_stop(&f);
}

Test(http_e2e, json_gives_up_after_repairs)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    fake_start(&f, "[{\"reply\":{\"text\":\"never json\"}}]");
    setup(&ep, &rq, UP_WIRE_ANTHROPIC, &f);
    rq.schema = "{\"type\":\"object\"}";
    rq.json_repairs = 1;
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res),
                 UP_EPARSE);
    cr_assert_eq(res.turns, 2);
    cr_assert_str_eq(res.text, "never json");
    up_response_release(&res);
    fake_stop(&f);
}

/* ---- servers that ignore "stream": true ------------------------------ */

/* Start the fake on a scenario given as JSON (stolen). */
static void fake_start_json(fake *f, json_t *scenario)
{
    char *s = json_dumps(scenario, JSON_COMPACT);

    json_decref(scenario);
    fake_start(f, s);
    free(s);
}

/* A streaming request answered with the whole JSON reply. */
static void json_for_stream(int kind)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;
    json_t *rec;

    fake_start(&f, "[{\"reply\":{\"stream\":false,\"text\":\"whole answer\","
                   "\"reasoning\":\"thought\",\"usage\":{\"input_tokens\":11,"
                   "\"output_tokens\":7,\"cached_tokens\":3,"
                   "\"reasoning_tokens\":2}}}]");
    setup(&ep, &rq, kind, &f);
    ep.stream = 1;
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res), 0,
                 "%s", res.err.msg);
    cr_assert_str_eq(res.text, "whole answer");
    cr_assert_str_eq(res.reasoning, "thought");
    cr_assert_str_eq(res.stop_reason,
                     kind == UP_WIRE_OPENAI ? "stop" : "end_turn");
    cr_assert_eq(res.usage.input, kind == UP_WIRE_OPENAI ? 11 : 14);
    cr_assert_eq(res.usage.output, 7);
    cr_assert_eq(res.usage.cached, 3);
    cr_assert_eq(res.usage.reasoning, 2);
    cr_assert_eq(res.usage.estimated, 0);
    cr_assert_eq(res.attempts, 1);
    rec = records(&f);
    cr_assert(json_is_true(json_object_get(
        json_object_get(json_array_get(rec, 0), "body"), "stream")));
    json_decref(rec);
    up_response_release(&res);
    fake_stop(&f);
}

Test(http_e2e, openai_json_reply_to_a_stream)
{
    json_for_stream(UP_WIRE_OPENAI);
}

Test(http_e2e, anthropic_json_reply_to_a_stream)
{
    json_for_stream(UP_WIRE_ANTHROPIC);
}

Test(http_e2e, anthropic_json_tool_reply_to_a_stream)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;
    json_t *msg = json_pack(
        "{ss ss ss s[{ss ss ss s{si}}] ss s{si si}}", "id", "msg_1", "type",
        "message", "role", "assistant", "content", "type", "tool_use", "id",
        "toolu_1", "name", "result", "input", "a", 1, "stop_reason", "tool_use",
        "usage", "input_tokens", 5, "output_tokens", 9);
    char *body = json_dumps(msg, JSON_COMPACT);

    fake_start_json(&f, json_pack("[{s{ss}}]", "reply", "body", body));
    setup(&ep, &rq, UP_WIRE_ANTHROPIC, &f);
    ep.stream = 1;
    rq.schema = "{\"type\":\"object\"}";
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res), 0,
                 "%s", res.err.msg);
    cr_assert_str_eq(res.text, "{\"a\":1}");
    cr_assert_str_eq(res.stop_reason, "tool_use");
    cr_assert_eq(res.usage.output, 9);
    cr_assert_eq(res.turns, 1);
    json_decref(msg);
    free(body);
    up_response_release(&res);
    fake_stop(&f);
}

Test(http_e2e, garbage_reply_to_a_stream)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    fake_start(&f, "[{\"reply\":{\"body\":\"<html>sorry " KEY "</html>\","
                   "\"headers\":{\"Content-Type\":\"text/html\"}}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    ep.stream = 1;
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res),
                 UP_EHTTP);
    cr_assert_eq(res.attempts, 1);
    cr_assert(strstr(res.err.msg, "'gpt-x': openai reply is neither an event "
                                  "stream nor JSON (content-type "
                                  "'text/html'): <html>sorry [redacted]"),
              "%s", res.err.msg);
    cr_assert_null(strstr(res.err.msg, KEY));
    up_response_release(&res);
    fake_stop(&f);
}

Test(http_e2e, invalid_json_reply_to_a_stream)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    fake_start(&f,
               "[{\"reply\":{\"stream\":false,\"fault\":\"invalid_json\"}}]");
    setup(&ep, &rq, UP_WIRE_ANTHROPIC, &f);
    ep.stream = 1;
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res),
                 UP_EHTTP);
    cr_assert(strstr(res.err.msg, "anthropic reply is not JSON"), "%s",
              res.err.msg);
    cr_assert(strstr(res.err.msg, "(content-type 'application/json'): {"), "%s",
              res.err.msg);
    up_response_release(&res);
    fake_stop(&f);
}

/* ---- Anthropic rate-limit reset headers ------------------------------ */

static const char *last_why;
static long first_delay;

static void keep_why(void *ud, const up_http_attempt *a)
{
    (void)ud;
    if (a->attempt == 1) {
        last_why = a->why;
        first_delay = a->delay_ms;
    }
}

/* A 429 with only a requests-reset header, secs from now. */
static void reset_scenario(fake *f, long secs)
{
    time_t at = time(NULL) + secs;
    struct tm tm;
    char ts[32];

    gmtime_r(&at, &tm);
    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
    fake_start_json(f, json_pack("[{si s{si s{ss ss ss}}}, {s{ss}}]", "times",
                                 1, "reply", "status", 429, "headers",
                                 "anthropic-ratelimit-requests-remaining", "0",
                                 "anthropic-ratelimit-requests-reset", ts,
                                 "anthropic-ratelimit-tokens-remaining", "9000",
                                 "reply", "text", "ok"));
}

Test(http_e2e, retried_at_the_rate_limit_reset)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    reset_scenario(&f, 2);
    setup(&ep, &rq, UP_WIRE_ANTHROPIC, &f);
    last_why = NULL;
    cr_assert_eq(up_provider_complete(&ep, &rq, keep_why, NULL, NULL, &res), 0,
                 "%s", res.err.msg);
    cr_assert_str_eq(res.text, "ok");
    cr_assert_eq(res.attempts, 2);
    cr_assert_str_eq(last_why, "ratelimit-reset");
    /* the reset is 2 s after a whole second: 1 or 2 s from the 429 */
    cr_assert(first_delay >= 1000 && first_delay <= 2000, "%ld", first_delay);
    up_response_release(&res);
    fake_stop(&f);
}

/* OpenAI's form: remaining counts and reset durations. */
Test(http_e2e, retried_at_the_openai_rate_limit_reset)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    fake_start_json(&f, json_pack("[{si s{si s{ss ss ss ss}}}, {s{ss}}]",
                                  "times", 1, "reply", "status", 429, "headers",
                                  "x-ratelimit-remaining-requests", "0",
                                  "x-ratelimit-reset-requests", "700ms",
                                  "x-ratelimit-remaining-tokens", "9000",
                                  "x-ratelimit-reset-tokens", "20ms", "reply",
                                  "text", "ok"));
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    last_why = NULL;
    cr_assert_eq(up_provider_complete(&ep, &rq, keep_why, NULL, NULL, &res), 0,
                 "%s", res.err.msg);
    cr_assert_str_eq(res.text, "ok");
    cr_assert_eq(res.attempts, 2);
    cr_assert_str_eq(last_why, "ratelimit-reset");
    /* the spent requests limit, not the earlier tokens reset */
    cr_assert_eq(first_delay, 700);
    up_response_release(&res);
    fake_stop(&f);
}

Test(http_e2e, rate_limit_reset_over_the_cap_fails_fast)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    reset_scenario(&f, 3600);
    setup(&ep, &rq, UP_WIRE_ANTHROPIC, &f);
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res),
                 UP_ERATELIMIT);
    cr_assert_eq(res.attempts, 1);
    cr_assert(strstr(res.err.msg, "server asked to wait 3"), "%s", res.err.msg);
    up_response_release(&res);
    fake_stop(&f);
}

typedef struct batch {
    size_t ok, bad;
    volatile sig_atomic_t *stop;
    char prompts[200][16];
    up_message msgs[200];
    up_request rqs[200];
    up_job jobs[200];
} batch;

static void batch_done(void *ud, size_t i, up_response *res)
{
    batch *b = ud;

    (void)i;
    if (res->code == 0 && strcmp(res->text, "ok") == 0)
        b->ok++;
    else
        b->bad++;
    if (b->stop)
        *b->stop = 1;
}

static void batch_init(batch *b, size_t n, const up_endpoint *ep)
{
    memset(b, 0, sizeof(*b));
    for (size_t i = 0; i < n; i++) {
        snprintf(b->prompts[i], sizeof(b->prompts[i]), "q%u",
                 (unsigned)(i % 1000));
        b->msgs[i] = (up_message){"user", b->prompts[i]};
        up_request_init(&b->rqs[i]);
        b->rqs[i].messages = &b->msgs[i];
        b->rqs[i].n_messages = 1;
        b->jobs[i] = (up_job){ep, &b->rqs[i], batch_done, b, NULL, NULL};
    }
}

Test(http_e2e, flaky_batch_all_complete)
{
    static batch b;
    fake f;
    up_endpoint ep;
    up_request rq;
    up_sched_opts o;
    up_sched_stats st;
    up_error err;

    fake_start(&f, "[{\"fail_rate\":0.3,\"fail_with\":[\"reset\","
                   "\"error_500\",\"overloaded\",\"early_close\"],"
                   "\"reply\":{\"text\":\"ok\"}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    ep.max_retries = 6;
    batch_init(&b, 200, &ep);
    up_sched_opts_init(&o);
    o.jobs = 16;
    cr_assert_eq(up_sched_run(b.jobs, 200, &o, &st, &err), 0);
    cr_assert_eq(b.ok, 200, "ok %zu bad %zu", b.ok, b.bad);
    cr_assert_eq(st.ok, 200);
    fake_stop(&f);
}

Test(http_e2e, concurrency_reaches_the_limit)
{
    static batch b;
    fake f;
    up_endpoint ep;
    up_request rq;
    up_sched_opts o;
    up_error err;

    /* each request is held until 8 wait together: needs 8 in flight */
    fake_start(&f, "[{\"barrier\":8,\"barrier_timeout_ms\":20000,"
                   "\"reply\":{\"text\":\"ok\"}}]");
    setup(&ep, &rq, UP_WIRE_ANTHROPIC, &f);
    batch_init(&b, 16, &ep);
    up_sched_opts_init(&o);
    o.jobs = 8;
    cr_assert_eq(up_sched_run(b.jobs, 16, &o, NULL, &err), 0);
    cr_assert_eq(b.ok, 16, "ok %zu bad %zu", b.ok, b.bad);
    fake_stop(&f);
}

Test(http_e2e, rate_limit_lowers_concurrency)
{
    static batch b;
    fake f;
    up_endpoint ep;
    up_request rq;
    up_sched_opts o;
    up_sched_stats st;
    up_error err;

    fake_start(&f, "[{\"match\":{\"nth\":1},\"reply\":{\"fault\":"
                   "\"retry_after\",\"retry_after\":\"0.01\"}},"
                   "{\"reply\":{\"text\":\"ok\"}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    batch_init(&b, 20, &ep);
    up_sched_opts_init(&o);
    o.jobs = 8;
    cr_assert_eq(up_sched_run(b.jobs, 20, &o, &st, &err), 0);
    cr_assert_eq(b.ok, 20);
    cr_assert_eq(st.min_limit, 4);
    fake_stop(&f);
}

Test(http_e2e, stop_flag_drains)
{
    static batch b;
    static volatile sig_atomic_t stop;
    fake f;
    up_endpoint ep;
    up_request rq;
    up_sched_opts o;
    up_sched_stats st;
    up_error err;

    fake_start(&f, "[{\"reply\":{\"text\":\"ok\"}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    batch_init(&b, 10, &ep);
    stop = 0;
    b.stop = &stop;
    up_sched_opts_init(&o);
    o.jobs = 2;
    o.stop = &stop;
    cr_assert_eq(up_sched_run(b.jobs, 10, &o, &st, &err), UP_EINTR);
    cr_assert_eq(st.ok, 2);
    cr_assert_eq(st.stopped, 8);
    cr_assert_eq(b.ok + b.bad, 10);
    fake_stop(&f);
}

Test(http_e2e, oversized_body_capped)
{
    fake f;
    up_http_request rq;
    up_http_result res;
    char url[128];

    fake_start(&f, "[{\"reply\":{\"fault\":\"oversized\",\"bytes\":100000}}]");
    snprintf(url, sizeof(url), "%s/v1/chat/completions", f.url);
    memset(&rq, 0, sizeof(rq));
    rq.url = url;
    rq.body = "{}";
    rq.body_len = 2;
    rq.max_response = 1000;
    cr_assert_eq(perform(&rq, &res), UP_ETOOBIG);
    cr_assert_eq(res.attempts, 1);
    up_http_result_release(&res);
    fake_stop(&f);
}

static int last_code;

static void keep_code(void *ud, size_t i, up_response *res)
{
    (void)ud;
    (void)i;
    last_code = res->code;
}

Test(http_e2e, job_timeout)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_sched_opts o;
    up_job job;
    up_error err;

    fake_start(&f, "[{\"reply\":{\"text\":\"late\",\"delay_ms\":5000}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    job = (up_job){&ep, &rq, keep_code, NULL, NULL, NULL};
    up_sched_opts_init(&o);
    o.job_timeout_ms = 300;
    last_code = 0;
    cr_assert_eq(up_sched_run(&job, 1, &o, NULL, &err), 0);
    cr_assert_eq(last_code, UP_ETIMEOUT);
    fake_stop(&f);
}

static int fast_done;

static void note_fast(void *ud, up_http_result *res)
{
    (void)ud;
    fast_done = res->code == 0 ? 1 : -1;
}

static void ignore_done(void *ud, up_http_result *res)
{
    (void)ud;
    (void)res;
}

static size_t recorded(const fake *f)
{
    json_t *r = records(f);
    size_t n = json_array_size(r);

    json_decref(r);
    return n;
}

/*
 * A reply that reached the socket while the caller was busy elsewhere is
 * finished by the next up_http_run at once.  It used to stay in curl's
 * message queue while up_http_run polled for other sockets: here the
 * slow transfer would keep that poll blocked for the whole 2 s allowed.
 */
Test(http_e2e, waiting_reply_finishes_without_polling)
{
    static const char *hdrs[] = {"Content-Type: application/json", NULL};
    static const char fast[] = "{\"model\":\"m\",\"messages\":[{\"role\":"
                               "\"user\",\"content\":\"f\"}]}";
    static const char slow[] = "{\"model\":\"m\",\"messages\":[{\"role\":"
                               "\"user\",\"content\":\"s\"}]}";
    up_http_request a = {0}, b = {0};
    up_http_client *c;
    char url[128];
    fake f;
    long t0;

    fake_start(&f, "[{\"match\":{\"user\":\"s\"},"
                   "\"reply\":{\"text\":\"slow\",\"delay_ms\":5000}},"
                   "{\"reply\":{\"text\":\"fast\",\"delay_ms\":100}}]");
    snprintf(url, sizeof(url), "%s/chat/completions", f.url_v1);
    a = (up_http_request){
        .url = url, .headers = hdrs, .body = fast, .body_len = strlen(fast)};
    b = a;
    b.body = slow;
    b.body_len = strlen(slow);
    c = up_http_client_new(4);
    cr_assert_not_null(c);
    fast_done = 0;
    up_http_submit(c, &a, note_fast, NULL);
    up_http_submit(c, &b, ignore_done, NULL);
    for (int i = 0; i < 500 && recorded(&f) < 2; i++) {
        up_http_run(c, 0);
        usleep(2000);
    }
    cr_assert_eq(recorded(&f), 2, "both requests reached the server");
    cr_assert_eq(fast_done, 0, "the fast reply is not due yet");
    usleep(400 * 1000); /* its reply now waits in the socket */
    t0 = up_http_now_ms();
    up_http_run(c, 2000);
    cr_assert_eq(fast_done, 1);
    cr_assert_lt(up_http_now_ms() - t0, 1000, "took %ld ms",
                 up_http_now_ms() - t0);
    up_http_client_free(c);
    fake_stop(&f);
}

/* ---- the stop flag of a single call (generate's Ctrl-C) -------------- */

static volatile sig_atomic_t stop_flag;

/* Plays Ctrl-C once the first attempt has ended, i.e. during the wait. */
static void stop_after_attempt(void *ud, const up_http_attempt *a)
{
    (void)ud;
    (void)a;
    stop_flag = 1;
}

Test(http_e2e, complete_with_stop_set_sends_nothing)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    fake_start(&f, "[{\"reply\":{\"text\":\"hi\"}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    stop_flag = 1;
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, &stop_flag, &res),
                 UP_EINTR);
    cr_assert_null(res.text);
    cr_assert_eq(recorded(&f), 0, "no request was sent");
    up_response_release(&res);
    fake_stop(&f);
}

Test(http_e2e, complete_first_stop_cancels_the_call)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    /* a 429 asking for a 60 s wait, then an answer: without the cancel
     * the call would wait and succeed */
    fake_start(&f, "[{\"times\":1,\"reply\":{\"fault\":\"retry_after\","
                   "\"retry_after\":60}},{\"reply\":{\"text\":\"late\"}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    stop_flag = 0;
    cr_assert_eq(up_provider_complete(&ep, &rq, stop_after_attempt, NULL,
                                      &stop_flag, &res),
                 UP_EINTR, "%s", res.err.msg);
    cr_assert_eq(stop_flag, 1, "one Ctrl-C was enough");
    cr_assert_eq(recorded(&f), 1, "the retry never went out");
    up_response_release(&res);
    fake_stop(&f);
}

/* A header line with CR/LF never reaches the wire: nothing is sent. */
Test(http_e2e, control_characters_in_a_header_refused)
{
    const char *hdrs[] = {"X-Team: a\r\nX-Injected: yes", NULL};
    fake f;
    up_http_request rq;
    up_http_result res;
    char url[128];
    struct stat st;

    fake_start(&f, "[{\"reply\":{\"text\":\"ok\"}}]");
    snprintf(url, sizeof(url), "%s/chat/completions", f.url_v1);
    memset(&rq, 0, sizeof(rq));
    rq.url = url;
    rq.headers = hdrs;
    rq.body = "{}";
    rq.body_len = 2;
    cr_assert_eq(perform(&rq, &res), UP_EPARSE);
    cr_assert(strstr(res.err.msg, "header 'X-Team'"), "%s", res.err.msg);
    cr_assert_null(strstr(res.err.msg, "Injected"), "%s", res.err.msg);
    cr_assert_eq(res.attempts, 0);
    up_http_result_release(&res);
    cr_assert(stat(f.rec, &st) != 0 || st.st_size == 0,
              "the server got no request");
    fake_stop(&f);
}

/* A request the server rejects adds no tokens, estimated or not; this
 * one outgrew the context (llama.cpp's words): UP_ECONTEXT, sent once. */
Test(http_e2e, rejected_request_has_no_usage)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    fake_start(&f, "[{\"reply\":{\"status\":400,\"error_message\":"
                   "\"exceeds the available context size\"}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    ep.stream = 1;
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res),
                 UP_ECONTEXT, "%s", res.err.msg);
    cr_assert_eq(res.attempts, 1);
    cr_assert(strstr(res.err.msg, "exceeds the available context size"), "%s",
              res.err.msg);
    cr_assert_eq(res.usage.input, 0);
    cr_assert_eq(res.usage.output, 0);
    cr_assert_eq(res.usage.estimated, 0);
    up_response_release(&res);
    fake_stop(&f);
}

/* A request that outgrew the context is never retried, even when the
 * server says x-should-retry: the same request fails the same way. */
Test(http_e2e, context_overflow_not_retried)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;

    fake_start(&f, "[{\"reply\":{\"status\":400,\"headers\":"
                   "{\"x-should-retry\":\"true\"},\"error_message\":"
                   "\"This model's maximum context length is 8192 tokens\"}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res),
                 UP_ECONTEXT, "%s", res.err.msg);
    cr_assert_eq(res.attempts, 1);
    up_response_release(&res);
    fake_stop(&f);
}

/* stream_options refused with a 400: asked again once, without. */
Test(http_e2e, stream_refused_then_plain)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response res;
    json_t *rec;

    fake_start(&f, "[{\"match\":{\"body\":\"stream_options\"},\"reply\":"
                   "{\"status\":400,\"error_message\":\"stream_options: "
                   "Extra inputs are not permitted\"}},{\"reply\":{\"text\":"
                   "\"plain\",\"usage\":{\"input_tokens\":5,"
                   "\"output_tokens\":1}}}]");
    setup(&ep, &rq, UP_WIRE_OPENAI, &f);
    ep.stream = 1;
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res), 0,
                 "%s", res.err.msg);
    cr_assert_str_eq(res.text, "plain");
    cr_assert_eq(res.usage.input, 5);
    cr_assert_eq(res.usage.estimated, 0);
    up_response_release(&res);
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res), 0,
                 "%s", res.err.msg);
    up_response_release(&res);
    rec = records(&f);
    cr_assert_eq(json_array_size(rec), 3, "one refusal, then two plain");
    cr_assert(json_is_true(json_object_get(
        json_object_get(json_array_get(rec, 0), "body"), "stream")));
    cr_assert_null(json_object_get(
        json_object_get(json_array_get(rec, 2), "body"), "stream"));
    json_decref(rec);
    fake_stop(&f);
}

/* ---- tool calling, both wires, against recorded requests ------------- */

static const char tool_scenario[] =
    "[{\"name\":\"calls\",\"match\":{\"tools\":true,\"last_role\":\"user\"},"
    "\"reply\":{\"reasoning\":\"plan\",\"chunk_size\":3,\"tool_calls\":["
    "{\"name\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}},"
    "{\"name\":\"read_file\",\"arguments\":{\"path\":\"../x\"}}],"
    "\"usage\":{\"input_tokens\":11,\"output_tokens\":5}}},"
    "{\"name\":\"done\",\"match\":{\"path\":\"/v1/messages\",\"user\":"
    "\"Read a.txt\",\"last_role\":"
    "\"tool\",\"tool_result\":\"alpha\",\"tool_error\":true,"
    "\"assistant_turns\":1},"
    "\"reply\":{\"text\":\"done\",\"usage\":{\"input_tokens\":20,"
    "\"output_tokens\":3}}},"
    /* OpenAI's wire has no error flag: the text says it */
    "{\"name\":\"done\",\"match\":{\"path\":\"/v1/chat/completions\","
    "\"user\":\"Read a.txt\","
    "\"last_role\":\"tool\",\"tool_result\":\"path leaves\","
    "\"assistant_turns\":1},"
    "\"reply\":{\"text\":\"done\",\"usage\":{\"input_tokens\":20,"
    "\"output_tokens\":3}}},"
    "{\"name\":\"other\",\"reply\":{\"text\":\"unexpected\"}}]";

static const up_tool_spec read_tool[] = {
    {"read_file", "Read a file.",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}"},
};

static const char *rec_str(json_t *rec, size_t n, const char *path)
{
    json_t *j = json_object_get(json_array_get(rec, n), "body");
    char key[64];

    while (j && *path) {
        size_t k = strcspn(path, ".");

        snprintf(key, sizeof(key), "%.*s", (int)k, path);
        j = json_is_array(j) ? json_array_get(j, strtoul(key, NULL, 10))
                             : json_object_get(j, key);
        path += k + (path[k] == '.');
    }
    return json_is_string(j) ? json_string_value(j)
           : json_is_true(j) ? "true"
                             : "";
}

/* Turn 1 asks, two parallel calls come back; turn 2 answers them, the
   second as a tool error; the fake matches on that conversation. */
static void tool_round_trip(int kind, int stream)
{
    fake f;
    up_endpoint ep;
    up_request rq;
    up_response r1, r2;
    up_msg m[4] = {{UP_ROLE_USER, "Read a.txt", NULL, 0, NULL, 0, NULL}};
    json_t *rec;
    int anth = kind == UP_WIRE_ANTHROPIC;

    fake_start(&f, tool_scenario);
    setup(&ep, &rq, kind, &f);
    ep.stream = stream;
    rq.messages = NULL;
    rq.n_messages = 0;
    rq.msgs = m;
    rq.nmsgs = 1;
    rq.tools = read_tool;
    rq.ntools = 1;
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &r1), 0, "%s",
                 r1.err.msg);
    cr_assert_eq(r1.ncalls, 2);
    cr_assert_eq(r1.stop, UP_STOP_TOOL);
    cr_assert_str_eq(r1.calls[1].args, "{\"path\":\"../x\"}");
    cr_assert_str_eq(r1.text, "");
    cr_assert_str_eq(r1.reasoning, "plan");
    cr_assert_eq(r1.usage.input, 11);
    cr_assert_eq(r1.usage.estimated, 0);
    cr_assert_eq(anth, r1.carry != NULL);
    m[1] = (up_msg){UP_ROLE_ASSISTANT, NULL, r1.calls, 2, NULL, 0, r1.carry};
    m[2] = (up_msg){UP_ROLE_TOOL, "alpha", NULL, 0, r1.calls[0].id, 0, NULL};
    m[3] = (up_msg){
        UP_ROLE_TOOL, "path leaves the workspace", NULL, 0, r1.calls[1].id, 1,
        NULL};
    rq.nmsgs = 4;
    cr_assert_eq(up_provider_complete(&ep, &rq, NULL, NULL, NULL, &r2), 0, "%s",
                 r2.err.msg);
    cr_assert_str_eq(r2.text, "done");
    cr_assert_eq(r2.ncalls, 0);
    cr_assert_eq(r2.stop, UP_STOP_END);
    cr_assert_eq(r1.usage.output + r2.usage.output, 8);
    rec = records(&f);
    cr_assert_eq(json_array_size(rec), 2);
    if (anth) {
        cr_assert_str_eq(rec_str(rec, 0, "tools.0.name"), "read_file");
        cr_assert_str_eq(rec_str(rec, 1, "messages.1.content.0.signature"),
                         "fake-signature");
        cr_assert_str_eq(rec_str(rec, 1, "messages.1.content.2.id"),
                         r1.calls[1].id);
        cr_assert_str_eq(rec_str(rec, 1, "messages.2.content.0.tool_use_id"),
                         r1.calls[0].id);
        cr_assert_str_eq(rec_str(rec, 1, "messages.2.content.1.is_error"),
                         "true");
    } else {
        cr_assert_str_eq(rec_str(rec, 0, "tools.0.function.name"), "read_file");
        cr_assert_str_eq(rec_str(rec, 1, "messages.2.tool_calls.1.id"),
                         r1.calls[1].id);
        cr_assert_str_eq(rec_str(rec, 1, "messages.4.role"), "tool");
        cr_assert_str_eq(rec_str(rec, 1, "messages.4.tool_call_id"),
                         r1.calls[1].id);
    }
    cr_assert_str_eq(
        json_string_value(json_object_get(json_array_get(rec, 1), "rule")),
        "done");
    json_decref(rec);
    up_response_release(&r1);
    up_response_release(&r2);
    fake_stop(&f);
}

Test(http_e2e, anthropic_tool_calls_json)
{
    tool_round_trip(UP_WIRE_ANTHROPIC, 0);
}

Test(http_e2e, anthropic_tool_calls_stream)
{
    tool_round_trip(UP_WIRE_ANTHROPIC, 1);
}

Test(http_e2e, openai_tool_calls_json)
{
    tool_round_trip(UP_WIRE_OPENAI, 0);
}

Test(http_e2e, openai_tool_calls_stream)
{
    tool_round_trip(UP_WIRE_OPENAI, 1);
}

/* ---- multi-turn jobs (up_job.next): one slot, several turns ---------- */

static const char turns_scenario[] =
    "[{\"match\":{\"assistant_turns\":0},\"reply\":{\"tool_calls\":["
    "{\"name\":\"list_files\",\"arguments\":{}}],"
    "\"usage\":{\"input_tokens\":10,\"output_tokens\":2}}},"
    "{\"match\":{\"assistant_turns\":1},\"reply\":{\"tool_calls\":["
    "{\"name\":\"list_files\",\"arguments\":{}}],"
    "\"usage\":{\"input_tokens\":20,\"output_tokens\":2}}},"
    "{\"reply\":{\"text\":\"done\",\"usage\":{\"input_tokens\":30,"
    "\"output_tokens\":1}}}]";

/* One conversation: its history and what the callbacks saw. */
struct convo {
    up_request rq;
    up_msg m[8];
    up_tool_call calls[4]; /* copies of the turns' calls */
    int starts, nexts, dones;
    long input; /* summed over the turns by next */
    int done_turns, done_code;
    char text[32];
    int fail_start; /* next(NULL) hands back no request */
};

static const up_request *convo_next(void *ud, size_t i, up_response *res)
{
    struct convo *c = ud;
    size_t n = c->rq.nmsgs;

    (void)i;
    if (!res) {
        c->starts++;
        return c->fail_start ? NULL : &c->rq;
    }
    c->nexts++;
    c->input += res->usage.input;
    if (!res->ncalls)
        return NULL;
    c->calls[c->nexts] = res->calls[0];
    res->calls[0] = (up_tool_call){NULL, NULL, NULL}; /* taken */
    c->m[n] = (up_msg){
        UP_ROLE_ASSISTANT, NULL, &c->calls[c->nexts], 1, NULL, 0, NULL};
    c->m[n + 1] = (up_msg){UP_ROLE_TOOL,          "a.txt", NULL, 0,
                           c->calls[c->nexts].id, 0,       NULL};
    c->rq.nmsgs = n + 2;
    return &c->rq;
}

static void convo_done(void *ud, size_t i, up_response *res)
{
    struct convo *c = ud;

    (void)i;
    c->dones++;
    c->done_turns = res->turns;
    c->done_code = res->code;
    snprintf(c->text, sizeof(c->text), "%s", res->text ? res->text : "");
}

static void convo_run(struct convo *c, int kind, int stream, fake *f)
{
    up_endpoint ep;
    up_job job;
    up_sched_opts o;
    up_error err;
    up_request unused;

    setup(&ep, &unused, kind, f);
    ep.stream = stream;
    up_request_init(&c->rq);
    c->m[0] = (up_msg){UP_ROLE_USER, "go", NULL, 0, NULL, 0, NULL};
    c->rq.msgs = c->m;
    c->rq.nmsgs = 1;
    c->rq.tools = read_tool;
    c->rq.ntools = 1;
    job = (up_job){&ep, NULL, convo_done, c, convo_next, NULL};
    up_sched_opts_init(&o);
    cr_assert_eq(up_sched_run(&job, 1, &o, NULL, &err), 0);
    for (size_t k = 0; k < 4; k++) {
        free(c->calls[k].id);
        free(c->calls[k].name);
        free(c->calls[k].args);
    }
}

static void multi_turn(int kind, int stream)
{
    fake f;
    struct convo c;
    json_t *rec;

    memset(&c, 0, sizeof(c));
    fake_start(&f, turns_scenario);
    convo_run(&c, kind, stream, &f);
    cr_assert_eq(c.starts, 1, "the first request comes from next(NULL)");
    cr_assert_eq(c.nexts, 3, "next sees every answered turn");
    cr_assert_eq(c.dones, 1, "done once, at the end");
    cr_assert_eq(c.done_code, 0);
    cr_assert_eq(c.done_turns, 3, "turns are counted over the conversation");
    cr_assert_str_eq(c.text, "done", "done gets the last turn's reply");
    cr_assert_eq(c.input, 60, "each turn's usage reaches next");
    rec = records(&f);
    cr_assert_eq(json_array_size(rec), 3);
    json_decref(rec);
    fake_stop(&f);
}

Test(sched_e2e, openai_multi_turn_job_stream)
{
    multi_turn(UP_WIRE_OPENAI, 1);
}

Test(sched_e2e, anthropic_multi_turn_job_json)
{
    multi_turn(UP_WIRE_ANTHROPIC, 0);
}

Test(sched_e2e, a_job_whose_first_request_fails_ends_with_an_error)
{
    fake f;
    struct convo c;
    json_t *rec;

    memset(&c, 0, sizeof(c));
    c.fail_start = 1;
    fake_start(&f, turns_scenario);
    convo_run(&c, UP_WIRE_OPENAI, 1, &f);
    cr_assert_eq(c.dones, 1);
    cr_assert_eq(c.done_code, UP_EIO);
    rec = records(&f);
    cr_assert_eq(json_array_size(rec), 0, "nothing was sent");
    json_decref(rec);
    fake_stop(&f);
}

/* ---- parked jobs (UP_JOB_PARKED): slow work holds only its own job ---- */

/* A conversation that parks after its first turn until fd is readable,
 * and one that runs its three turns and then writes to that fd. */
struct parked {
    struct convo c;
    int fds[2];     /* the pipe: the other's done writes, this one waits */
    int parked;     /* 1 while next says UP_JOB_PARKED */
    int other_done; /* the other conversation had ended when it woke */
    int woke;       /* times next(NULL) found the fd readable */
    struct convo *other;
};

static const up_request *parked_next(void *ud, size_t i, up_response *res)
{
    struct parked *p = ud;
    char b;

    if (!p->parked) {
        const up_request *rq = convo_next(&p->c, i, res);

        if (res && p->c.nexts == 1) { /* slow work starts after turn 1 */
            p->parked = 1;
            return UP_JOB_PARKED;
        }
        return rq;
    }
    cr_assert_null(res, "a parked job is asked again with NULL");
    if (read(p->fds[0], &b, 1) != 1)
        return UP_JOB_PARKED;
    p->woke++;
    p->parked = 0;
    p->other_done = p->other->dones;
    return &p->c.rq;
}

static int parked_wait(void *ud, size_t i, int *fds, int max, int *ms)
{
    struct parked *p = ud;

    (void)i;
    cr_assert_geq(max, 1);
    *ms = 10000; /* the fd wakes the loop, not this */
    fds[0] = p->fds[0];
    return 1;
}

static void parked_done(void *ud, size_t i, up_response *res)
{
    convo_done(&((struct parked *)ud)->c, i, res);
}

struct releaser {
    struct convo c;
    int fd; /* written when done */
};

static void releaser_done(void *ud, size_t i, up_response *res)
{
    struct releaser *r = ud;

    convo_done(&r->c, i, res);
    cr_assert_eq(write(r->fd, "x", 1), 1);
}

static const up_request *releaser_next(void *ud, size_t i, up_response *res)
{
    return convo_next(&((struct releaser *)ud)->c, i, res);
}

static void convo_init(struct convo *c)
{
    memset(c, 0, sizeof(*c));
    up_request_init(&c->rq);
    c->m[0] = (up_msg){UP_ROLE_USER, "go", NULL, 0, NULL, 0, NULL};
    c->rq.msgs = c->m;
    c->rq.nmsgs = 1;
    c->rq.tools = read_tool;
    c->rq.ntools = 1;
}

static void convo_free_calls(struct convo *c)
{
    for (size_t k = 0; k < 4; k++) {
        free(c->calls[k].id);
        free(c->calls[k].name);
        free(c->calls[k].args);
    }
}

Test(sched_e2e, a_parked_job_holds_only_itself)
{
    fake f;
    up_endpoint ep;
    up_request unused;
    up_job jobs[2];
    up_sched_opts o;
    up_error err;
    struct parked p;
    struct releaser r;

    memset(&p, 0, sizeof(p));
    convo_init(&p.c);
    convo_init(&r.c);
    cr_assert_eq(pipe(p.fds), 0);
    fcntl(p.fds[0], F_SETFL, O_NONBLOCK);
    r.fd = p.fds[1];
    p.other = &r.c;
    fake_start(&f, turns_scenario);
    setup(&ep, &unused, UP_WIRE_OPENAI, &f);
    jobs[0] = (up_job){&ep, NULL, parked_done, &p, parked_next, parked_wait};
    jobs[1] = (up_job){&ep, NULL, releaser_done, &r, releaser_next, NULL};
    up_sched_opts_init(&o);
    o.jobs = 2;
    cr_assert_eq(up_sched_run(jobs, 2, &o, NULL, &err), 0);
    /* The parked job woke only from the other's done, so the other ran
     * all its turns while this one was parked: no deadlock, no wait. */
    cr_assert_eq(p.woke, 1);
    cr_assert_eq(p.other_done, 1, "the other had finished all its turns");
    cr_assert_eq(r.c.done_turns, 3);
    cr_assert_eq(p.c.dones, 1);
    cr_assert_eq(p.c.done_code, 0);
    cr_assert_eq(p.c.done_turns, 3, "it goes on after waking");
    cr_assert_str_eq(p.c.text, "done");
    convo_free_calls(&p.c);
    convo_free_calls(&r.c);
    close(p.fds[0]);
    close(p.fds[1]);
    fake_stop(&f);
}
