/*
 * Unit tests for what a coding-agent CLI sent to and got from its model
 * (src/lib/harness/harness_wire.h): tokens from each wire's responses,
 * streamed and not, in the shapes the servers (and fake-llm) send; the
 * skill's activation from the content of the requests, never from a
 * command line that names SKILL.md.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/harness/harness_wire.h"
#include "upskill/upskill.h"
#include "util/json.h"

/* ---- tokens ----------------------------------------------------------- */

static const char req_min[] = "{\"messages\":[{\"role\":\"user\","
                              "\"content\":\"hi\"}]}";

/* The usage of one 200 exchange with body resp on wire. */
static up_usage one(int wire, const char *ctype, const char *resp)
{
    up_harness_obs *o = up_harness_obs_new(NULL, wire, NULL);
    up_usage u;

    cr_assert_not_null(o);
    up_harness_obs_add(o, "/v1/x", req_min, strlen(req_min), 200, ctype, resp,
                       strlen(resp));
    cr_assert_eq(up_harness_obs_requests(o), 1);
    up_harness_obs_usage(o, &u);
    up_harness_obs_free(o);
    return u;
}

static void expect(up_usage u, long in, long out, long reasoning, long cached)
{
    cr_expect_eq(u.input, in, "input %ld, want %ld", u.input, in);
    cr_expect_eq(u.output, out, "output %ld, want %ld", u.output, out);
    cr_expect_eq(u.reasoning, reasoning, "reasoning %ld, want %ld", u.reasoning,
                 reasoning);
    cr_expect_eq(u.cached, cached, "cached %ld, want %ld", u.cached, cached);
    cr_expect_eq(u.estimated, 0);
}

Test(harness_wire, anthropic_json)
{
    up_usage u =
        one(UP_WIRE_ANTHROPIC, "application/json",
            "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
            "\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"text\","
            "\"text\":\"Hi\"}],\"stop_reason\":\"end_turn\",\"usage\":{"
            "\"input_tokens\":100,\"cache_creation_input_tokens\":20,"
            "\"cache_read_input_tokens\":300,\"output_tokens\":50}}");

    /* input holds the cached tokens, read and written, as anthropic.c */
    expect(u, 420, 50, 0, 300);
    cr_expect_eq(u.cache_write, 20);
}

Test(harness_wire, anthropic_sse)
{
    up_usage u = one(
        UP_WIRE_ANTHROPIC, "text/event-stream",
        "event: message_start\n"
        "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","
        "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\","
        "\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":10,"
        "\"cache_creation_input_tokens\":7,\"cache_read_input_tokens\":5,"
        "\"output_tokens\":1}}}\n\n"
        "event: ping\ndata: {\"type\":\"ping\"}\n\n"
        "event: content_block_start\n"
        "data: {\"type\":\"content_block_start\",\"index\":0,"
        "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
        "event: content_block_delta\n"
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{"
        "\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n"
        "event: content_block_stop\n"
        "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
        "event: message_delta\n"
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
        "\"end_turn\",\"stop_sequence\":null},\"usage\":{"
        "\"output_tokens\":42}}\n\n"
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");

    expect(u, 22, 42, 0, 5);
    cr_expect_eq(u.cache_write, 7);
}

Test(harness_wire, openai_json)
{
    up_usage u =
        one(UP_WIRE_OPENAI, "application/json",
            "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\","
            "\"model\":\"gpt-5\",\"choices\":[{\"index\":0,\"message\":{"
            "\"role\":\"assistant\",\"content\":\"Hi\"},\"finish_reason\":"
            "\"stop\"}],\"usage\":{\"prompt_tokens\":120,"
            "\"completion_tokens\":30,\"total_tokens\":150,"
            "\"prompt_tokens_details\":{\"cached_tokens\":64},"
            "\"completion_tokens_details\":{\"reasoning_tokens\":12}}}");

    expect(u, 120, 30, 12, 64);
}

Test(harness_wire, openai_sse_usage_chunk)
{
    up_usage u =
        one(UP_WIRE_OPENAI, "text/event-stream",
            "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
            "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
            "\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n"
            "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
            "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":"
            "\"stop\"}]}\n\n"
            "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
            "\"choices\":[],\"usage\":{\"prompt_tokens\":9,"
            "\"completion_tokens\":2,\"total_tokens\":11,"
            "\"prompt_tokens_details\":{\"cached_tokens\":4},"
            "\"completion_tokens_details\":{\"reasoning_tokens\":1}}}\n\n"
            "data: [DONE]\n\n");

    expect(u, 9, 2, 1, 4);
}

Test(harness_wire, responses_json)
{
    up_usage u = one(
        UP_WIRE_RESPONSES, "application/json",
        "{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\","
        "\"model\":\"gpt-5-codex\",\"output\":[{\"type\":\"message\","
        "\"id\":\"msg_1\",\"role\":\"assistant\",\"content\":[{\"type\":"
        "\"output_text\",\"text\":\"Hi\"}]}],\"usage\":{\"input_tokens\":200,"
        "\"input_tokens_details\":{\"cached_tokens\":100},"
        "\"output_tokens\":40,\"output_tokens_details\":{"
        "\"reasoning_tokens\":25},\"total_tokens\":240}}");

    expect(u, 200, 40, 25, 100);
}

Test(harness_wire, responses_sse_completed)
{
    up_usage u = one(
        UP_WIRE_RESPONSES, "text/event-stream",
        "event: response.created\n"
        "data: {\"type\":\"response.created\",\"sequence_number\":0,"
        "\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\","
        "\"output\":[],\"usage\":null}}\n\n"
        "event: response.output_text.delta\n"
        "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":"
        "1,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,"
        "\"delta\":\"Hi\"}\n\n"
        "event: response.completed\n"
        "data: {\"type\":\"response.completed\",\"sequence_number\":2,"
        "\"response\":{\"id\":\"resp_1\",\"status\":\"completed\","
        "\"output\":[{\"type\":\"message\",\"id\":\"msg_1\",\"role\":"
        "\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":"
        "\"Hi\"}]}],\"usage\":{\"input_tokens\":77,\"input_tokens_details\":"
        "{\"cached_tokens\":70},\"output_tokens\":9,"
        "\"output_tokens_details\":{\"reasoning_tokens\":3}}}}\n\n");

    expect(u, 77, 9, 3, 70);
}

Test(harness_wire, gemini_json)
{
    up_usage u =
        one(UP_WIRE_GEMINI, "application/json",
            "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],"
            "\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],"
            "\"usageMetadata\":{\"promptTokenCount\":300,"
            "\"candidatesTokenCount\":20,\"thoughtsTokenCount\":7,"
            "\"cachedContentTokenCount\":100,\"totalTokenCount\":327},"
            "\"modelVersion\":\"gemini-2.5-pro\",\"responseId\":\"r1\"}");

    /* output holds the thoughts, as up_usage says */
    expect(u, 300, 27, 7, 100);
}

/* Gemini sends the running total in every chunk: the last one wins. */
Test(harness_wire, gemini_sse_last_wins)
{
    up_usage u = one(
        UP_WIRE_GEMINI, "text/event-stream",
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"He\"}],"
        "\"role\":\"model\"},\"index\":0}],\"usageMetadata\":{"
        "\"promptTokenCount\":300,\"candidatesTokenCount\":5,"
        "\"totalTokenCount\":305}}\r\n\r\n"
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"llo\"}],"
        "\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],"
        "\"usageMetadata\":{\"promptTokenCount\":300,"
        "\"candidatesTokenCount\":20,\"thoughtsTokenCount\":7,"
        "\"totalTokenCount\":327},\"modelVersion\":\"gemini-2.5-pro\"}"
        "\r\n\r\n");

    expect(u, 300, 27, 7, 0);
}

Test(harness_wire, gemini_json_array_last_wins)
{
    up_usage u =
        one(UP_WIRE_GEMINI, "application/json",
            "[{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"He\"}],"
            "\"role\":\"model\"},\"index\":0}],\"usageMetadata\":{"
            "\"promptTokenCount\":50,\"candidatesTokenCount\":1}}\r\n,"
            "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"llo\"}],"
            "\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],"
            "\"usageMetadata\":{\"promptTokenCount\":50,"
            "\"candidatesTokenCount\":4,\"cachedContentTokenCount\":32}}]");

    expect(u, 50, 4, 0, 32);
}

/* A 200 without usage is an estimate, never a silent 0. */
Test(harness_wire, no_usage_is_estimated)
{
    up_usage u =
        one(UP_WIRE_OPENAI, "text/event-stream",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":"
            "\"Hello there, a reply of some length\"}}]}\n\ndata: [DONE]\n\n");

    cr_expect_eq(u.estimated, 1);
    cr_expect_gt(u.input, 0);
    cr_expect_gt(u.output, 0);
}

/* A rejected request counts, with no tokens; each request is counted. */
Test(harness_wire, errors_count_without_tokens)
{
    static const char err[] = "{\"type\":\"error\",\"error\":{\"type\":"
                              "\"rate_limit_error\",\"message\":\"slow\"}}";
    static const char ok[] = "{\"type\":\"message\",\"content\":[{\"type\":"
                             "\"text\",\"text\":\"t\"}],\"usage\":{"
                             "\"input_tokens\":5,\"output_tokens\":1}}";
    up_harness_obs *o = up_harness_obs_new(NULL, UP_WIRE_ANTHROPIC, NULL);
    up_usage u;

    up_harness_obs_add(o, "/v1/messages", req_min, strlen(req_min), 429,
                       "application/json", err, strlen(err));
    up_harness_obs_add(o, "/v1/messages", req_min, strlen(req_min), 200,
                       "application/json", ok, strlen(ok));
    up_harness_obs_add(o, "/v1/messages", req_min, strlen(req_min), 200,
                       "application/json", ok, strlen(ok));
    up_harness_obs_usage(o, &u);
    cr_expect_eq(up_harness_obs_requests(o), 3);
    expect(u, 10, 2, 0, 0);
    up_harness_obs_free(o);
}

/* ---- activation ------------------------------------------------------- */

static char tmp[64];

static void put(const char *rel, const char *text, size_t len)
{
    up_buf p = UP_BUF_INIT, d = UP_BUF_INIT;

    up_fs_join(&p, tmp, rel);
    up_fs_dirname(&d, p.data);
    cr_assert_eq(up_fs_mkdir_p(d.data, 0755, NULL), 0);
    cr_assert_eq(up_fs_write_atomic(p.data, text, len, 0644, NULL), 0);
    up_buf_release(&p);
    up_buf_release(&d);
}

#define DESC                                                                   \
    "Use when asked to write a report about a CSV file; explains the "         \
    "report format."
#define BODY                                                                   \
    "# CSV report\n"                                                           \
    "\n" DESC "\n"                                                             \
    "Read references/format.md for the column format, then write "             \
    "report.txt.\n"                                                            \
    "Every report starts with the line \"REPORT v2\" and one line per "        \
    "column.\n"                                                                \
    "\tNever include the raw rows: summarise them with count, min, max.\n"
#define FORMAT                                                                 \
    "FORMAT-MARKER: one line per column, \"name: type\".\n"                    \
    "Types are int, float, text and date (ISO 8601 only).\n"

/* every line has a quote or a backslash: JSON escapes each */
#define QUOTES                                                                 \
    "Match digits with \"\\\\d+\" in the \"amount\" column.\n"                 \
    "\"Quoted\": a header in quotes stays \"as is\".\n"

static void mk_skill(void)
{
    static const char bin[] = "PNG\0\0binary data that is long enough";

    snprintf(tmp, sizeof(tmp), "/tmp/upskill-wire.XXXXXX");
    cr_assert_not_null(mkdtemp(tmp));
    put("SKILL.md", "---\nname: csv-report\ndescription: " DESC "\n---\n" BODY,
        strlen("---\nname: csv-report\ndescription: " DESC "\n---\n" BODY));
    put("references/format.md", FORMAT, strlen(FORMAT));
    put("references/charts.md", "Charts: bars for counts, lines for time.\n",
        strlen("Charts: bars for counts, lines for time.\n"));
    put("references/tiny.md", "x = 1\n", 6);
    put("references/quotes.md", QUOTES, strlen(QUOTES));
    put("assets/logo.png", bin, sizeof(bin));
}

static void rm_skill(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
    cr_assert_eq(system(cmd), 0);
}

/* text with "     N→" before each line, as Claude Code's Read shows it */
static char *numbered(const char *text)
{
    up_buf b = UP_BUF_INIT;
    int n = 1;

    for (const char *p = text; *p; n++) {
        size_t len = strcspn(p, "\n");

        up_buf_addf(&b, "%6d\xe2\x86\x92%.*s\n", n, (int)len, p);
        p += len + (p[len] == '\n');
    }
    return up_buf_detach(&b);
}

/* An Anthropic request: the system prompt lists the skill, one tool
 * result says result; its JSON text (escaped by jansson). */
static char *anthropic_req(const char *result)
{
    json_t *j = json_pack(
        "{ss s[{ss ss}] s[{ss ss} {ss s[{ss ss ss}]}]}", "model", "claude",
        "system", "type", "text", "text", "Skills available: csv-report: " DESC,
        "messages", "role", "user", "content", "Write the report for data.csv",
        "role", "user", "content", "type", "tool_result", "tool_use_id",
        "toolu_1", "content", result);
    char *s = json_dumps(j, JSON_COMPACT);

    json_decref(j);
    return s;
}

static const char ok_reply[] =
    "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"t\"}],"
    "\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}";

/* A new obs of the skill in tmp, fed one 200 exchange with request req. */
static up_harness_obs *obs_of(const char *dir, const char *req)
{
    up_error err;
    up_harness_obs *o = up_harness_obs_new(dir, UP_WIRE_ANTHROPIC, &err);

    cr_assert_not_null(o, "%s", err.msg);
    up_harness_obs_add(o, "/v1/messages", req, strlen(req), 200,
                       "application/json", ok_reply, strlen(ok_reply));
    return o;
}

static size_t nrefs(const up_harness_obs *o, const char *const **names)
{
    return up_harness_obs_refs(o, names);
}

Test(harness_wire, skill_body_escaped_and_numbered_counts, .init = mk_skill,
     .fini = rm_skill)
{
    char *file =
        numbered("---\nname: csv-report\ndescription: " DESC "\n---\n" BODY);
    char *req = anthropic_req(file);
    up_harness_obs *o = obs_of(tmp, req);
    const char *const *names;

    cr_expect(strstr(req, "\\\"REPORT v2\\\""), "the body is JSON-escaped");
    cr_expect(strstr(req, "\\t"), "a tab is JSON-escaped");
    cr_expect_eq(up_harness_obs_skill_read(o), 1);
    cr_expect_eq(nrefs(o, &names), 0);
    up_harness_obs_free(o);
    free(req);
    free(file);
}

/* Codex: a function_call_output whose output is JSON text in a string. */
Test(harness_wire, skill_body_in_json_in_a_string_counts, .init = mk_skill,
     .fini = rm_skill)
{
    json_t *out = json_pack("{ss s{si}}", "output", BODY QUOTES, "metadata",
                            "exit_code", 0);
    char *inner = json_dumps(out, JSON_COMPACT);
    json_t *j =
        json_pack("{ss s[{ss ss ss}]}", "model", "gpt-5-codex", "input", "type",
                  "function_call_output", "call_id", "call_1", "output", inner);
    char *req = json_dumps(j, JSON_COMPACT);
    up_harness_obs *o = obs_of(tmp, req);
    const char *const *names;

    cr_expect(strstr(req, "\\\\\\\"REPORT v2"), "escaped twice");
    cr_expect_eq(up_harness_obs_skill_read(o), 1);
    cr_assert_eq(nrefs(o, &names), 1);
    cr_expect_str_eq(names[0], "references/quotes.md");
    up_harness_obs_free(o);
    free(req);
    json_decref(j);
    free(inner);
    json_decref(out);
}

Test(harness_wire, ls_and_failed_read_do_not_count, .init = mk_skill,
     .fini = rm_skill)
{
    char *req = anthropic_req(
        "-rw-r--r-- 1 user user 412 Dec  2 04:00 "
        "/ws/.claude/skills/csv-report/SKILL.md\n"
        "cat: /ws/.claude/skills/csv-report/references/format.md: "
        "No such file or directory\n"
        "<tool_use_error>File does not exist: "
        "/ws/.claude/skills/csv-report/SKILL.md</tool_use_error>");
    up_harness_obs *o = obs_of(tmp, req);
    const char *const *names;

    cr_expect_eq(up_harness_obs_skill_read(o), 0);
    cr_expect_eq(nrefs(o, &names), 0);
    up_harness_obs_free(o);
    free(req);
}

/* The description (every CLI lists it) is no read, though the body
 * repeats it as a line. */
Test(harness_wire, description_alone_does_not_count, .init = mk_skill,
     .fini = rm_skill)
{
    char *req = anthropic_req("csv-report: " DESC "\n# CSV report\n");
    up_harness_obs *o = obs_of(tmp, req);

    cr_expect_eq(up_harness_obs_skill_read(o), 0);
    up_harness_obs_free(o);
    free(req);
}

/* A short body that repeats the description: the description alone is
 * still no read. */
Test(harness_wire, description_repeated_by_a_short_body)
{
    static const char md[] = "---\nname: tiny\ndescription: " DESC "\n---\n"
                             "# Tiny\n\n" DESC "\n"
                             "Then run scripts/tiny.sh on the input.\n";
    char *req = anthropic_req("tiny: " DESC);
    up_harness_obs *o;

    snprintf(tmp, sizeof(tmp), "/tmp/upskill-wire.XXXXXX");
    cr_assert_not_null(mkdtemp(tmp));
    put("SKILL.md", md, strlen(md));
    o = obs_of(tmp, req);
    cr_expect_eq(up_harness_obs_skill_read(o), 0);
    up_harness_obs_free(o);
    free(req);
    req = anthropic_req("Then run scripts/tiny.sh on the input.");
    o = obs_of(tmp, req);
    cr_expect_eq(up_harness_obs_skill_read(o), 1);
    up_harness_obs_free(o);
    free(req);
    rm_skill();
}

/* One line of three is not half of the body. */
Test(harness_wire, one_line_of_the_body_is_not_a_read, .init = mk_skill,
     .fini = rm_skill)
{
    char *req = anthropic_req("Read references/format.md for the column "
                              "format, then write report.txt.");
    up_harness_obs *o = obs_of(tmp, req);

    cr_expect_eq(up_harness_obs_skill_read(o), 0);
    up_harness_obs_free(o);
    free(req);
}

/* `cat -n` of one reference: that reference only. */
Test(harness_wire, reference_read_counts_for_it_only, .init = mk_skill,
     .fini = rm_skill)
{
    char *req = anthropic_req(
        "     1\tFORMAT-MARKER: one line per column, \"name: type\".\n"
        "     2\tTypes are int, float, text and date (ISO 8601 only).\n");
    up_harness_obs *o = obs_of(tmp, req);
    const char *const *names;
    json_t *j = up_harness_obs_json(o), *rec;

    cr_expect_eq(up_harness_obs_skill_read(o), 0);
    cr_assert_eq(nrefs(o, &names), 1);
    cr_expect_str_eq(names[0], "references/format.md");
    rec = json_array_get(json_object_get(j, "requests"), 0);
    cr_expect_str_eq(
        json_string_value(json_array_get(json_object_get(rec, "refs"), 0)),
        "references/format.md");
    cr_expect(json_is_false(json_object_get(rec, "skill_read")));
    json_decref(j);
    up_harness_obs_free(o);
    free(req);
}

/* A file with no line long enough is sought whole. */
Test(harness_wire, short_file_sought_whole, .init = mk_skill, .fini = rm_skill)
{
    char *req = anthropic_req("     1\tx = 1\n");
    up_harness_obs *o = obs_of(tmp, req);
    const char *const *names;

    cr_assert_eq(nrefs(o, &names), 1);
    cr_expect_str_eq(names[0], "references/tiny.md");
    up_harness_obs_free(o);
    free(req);
}

Test(harness_wire, baseline_never_reads, .init = mk_skill, .fini = rm_skill)
{
    char *req = anthropic_req(BODY FORMAT);
    up_harness_obs *o = obs_of(NULL, req);
    const char *const *names;
    json_t *j = up_harness_obs_json(o);

    cr_expect_eq(up_harness_obs_skill_read(o), 0);
    cr_expect_eq(nrefs(o, &names), 0);
    cr_expect(json_is_false(
        json_object_get(json_object_get(j, "totals"), "skill_read")));
    json_decref(j);
    up_harness_obs_free(o);
    free(req);
}

/* A rejected request reached no model. */
Test(harness_wire, rejected_request_is_no_read, .init = mk_skill,
     .fini = rm_skill)
{
    char *req = anthropic_req(BODY);
    up_harness_obs *o = up_harness_obs_new(tmp, UP_WIRE_ANTHROPIC, NULL);

    up_harness_obs_add(o, "/v1/messages", req, strlen(req), 400,
                       "application/json", "{}", 2);
    cr_expect_eq(up_harness_obs_skill_read(o), 0);
    up_harness_obs_free(o);
    free(req);
}

/* The JSON: per request and totals; a query (a key may ride in it) is
 * cut from the path. */
Test(harness_wire, json_per_request_and_totals, .init = mk_skill,
     .fini = rm_skill)
{
    static const char resp[] =
        "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]}}],"
        "\"usageMetadata\":{\"promptTokenCount\":10,"
        "\"candidatesTokenCount\":2,\"thoughtsTokenCount\":1}}";
    char *req = anthropic_req(BODY);
    up_harness_obs *o = up_harness_obs_new(tmp, UP_WIRE_GEMINI, NULL);
    json_t *j, *rec, *tot;
    char *text;

    up_harness_obs_add(o, "/v1beta/models/g:generateContent?key=AIzaSECRET",
                       req_min, strlen(req_min), 200, "application/json", resp,
                       strlen(resp));
    up_harness_obs_add(o, "/v1beta/models/g:generateContent", req, strlen(req),
                       200, "application/json", resp, strlen(resp));
    j = up_harness_obs_json(o);
    text = json_dumps(j, 0);
    cr_expect_null(strstr(text, "AIza"), "%s", text);
    rec = json_array_get(json_object_get(j, "requests"), 0);
    cr_expect_str_eq(up_json_str(rec, "path"),
                     "/v1beta/models/g:generateContent");
    cr_expect_eq(up_json_long(rec, "status", 0), 200);
    cr_expect_eq(up_json_long(json_object_get(rec, "tokens"), "output", 0), 3);
    cr_expect_eq(up_json_long(json_object_get(rec, "tokens"), "reasoning", 0),
                 1);
    cr_expect(json_is_false(json_object_get(rec, "skill_read")));
    rec = json_array_get(json_object_get(j, "requests"), 1);
    cr_expect(json_is_true(json_object_get(rec, "skill_read")));
    tot = json_object_get(j, "totals");
    cr_expect_eq(up_json_long(tot, "requests", 0), 2);
    cr_expect_eq(up_json_long(json_object_get(tot, "tokens"), "input", 0), 20);
    cr_expect(json_is_true(json_object_get(tot, "skill_read")));
    free(text);
    json_decref(j);
    up_harness_obs_free(o);
    free(req);
}

Test(harness_wire, unreadable_skill_folder)
{
    up_error err;

    err.msg[0] = '\0';
    cr_expect_null(
        up_harness_obs_new("/nonexistent/skill", UP_WIRE_OPENAI, &err));
    cr_expect(strstr(err.msg, "SKILL.md"), "%s", err.msg);
}

/* A request is read up to 32 MiB: what lies beyond is not seen. */
Test(harness_wire, request_read_up_to_its_cap, .init = mk_skill,
     .fini = rm_skill)
{
    size_t fill = (32u << 20) + 16;
    up_buf b = UP_BUF_INIT;
    up_harness_obs *o = up_harness_obs_new(tmp, UP_WIRE_ANTHROPIC, NULL);
    up_usage u;

    up_buf_adds(&b, "{\"messages\":[{\"role\":\"user\",\"content\":\"");
    up_buf_grow(&b, fill);
    memset(b.data + b.len, 'x', fill);
    b.len += fill;
    up_buf_adds(&b, "\\nRead references/format.md for the column format, then "
                    "write report.txt.\\nNever include the raw rows: summarise "
                    "them with count, min, max.\"}]}");
    up_harness_obs_add(o, "/v1/messages", b.data, b.len, 200,
                       "application/json", ok_reply, strlen(ok_reply));
    up_harness_obs_usage(o, &u);
    cr_expect_eq(up_harness_obs_requests(o), 1);
    cr_expect_eq(up_harness_obs_skill_read(o), 0);
    cr_expect_eq(u.input, 5, "the response is still read");
    up_harness_obs_free(o);
    up_buf_release(&b);
}

/* At most 256 files of a skill are fingerprinted (sorted by path). */
Test(harness_wire, files_over_the_cap_are_not_sought, .init = mk_skill,
     .fini = rm_skill)
{
    char name[64], text[128];
    const char *const *names;
    up_harness_obs *o;
    char *req;

    for (int i = 0; i < 260; i++) {
        snprintf(name, sizeof(name), "references/r%03d.md", i);
        snprintf(text, sizeof(text), "Reference number %03d of many.\n", i);
        put(name, text, strlen(text));
    }
    req = anthropic_req("Reference number 000 of many.\n"
                        "Reference number 259 of many.\n");
    o = obs_of(tmp, req);
    cr_assert_eq(nrefs(o, &names), 1);
    cr_expect_str_eq(names[0], "references/r000.md");
    up_harness_obs_free(o);
    free(req);
}
