/* Unit tests for trace ingestion: formats, events, warnings, budget. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/upskill.h"

static void parse_ok(up_trace *t, const char *text, const char *name)
{
    up_error err;
    int rc = up_trace_parse(t, text, strlen(text), name, &err);

    cr_assert_eq(rc, 0, "parse failed: %s", err.msg);
}

/* Assert the kinds of t's events, given as a string of letters: u user,
 * a assistant, h thinking, c call, r result, e error, t text. */
static void assert_kinds(const up_trace *t, const char *want)
{
    static const char letters[] = "uahcret";
    char got[256];
    size_t i;

    for (i = 0; i < t->nevents && i < sizeof(got) - 1; i++)
        got[i] = letters[t->events[i].kind];
    got[i] = '\0';
    cr_assert_str_eq(got, want);
}

static char *render(const up_trace *t, size_t budget, up_trace_stats *st)
{
    up_buf b = UP_BUF_INIT;

    up_trace_render(t, budget, &b, st);
    return up_buf_detach(&b);
}

static const char claude[] =
    "{\"type\":\"summary\",\"summary\":\"x\",\"leafUuid\":\"l\"}\n"
    "{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\","
    "\"content\":\"Fix the crash in formatUser\"}}\n"
    "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":"
    "[{\"type\":\"thinking\",\"thinking\":\"run the tests\"}]}}\n"
    "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":"
    "[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\",\"input\":"
    "{\"command\":\"npm test\"}}]}}\n"
    "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":"
    "\"tool_result\",\"tool_use_id\":\"t1\",\"is_error\":true,\"content\":"
    "\"TypeError: x is undefined\"}]}}\n"
    "{\"type\":\"user\",\"isMeta\":true,\"message\":{\"role\":\"user\","
    "\"content\":\"meta\"}}\n"
    "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":"
    "[{\"type\":\"text\",\"text\":\"use optional chaining\"}]}}\n";

Test(trace, claude_code_events)
{
    up_trace t;

    parse_ok(&t, claude, "s.jsonl");
    cr_assert_eq(t.format, UP_TRACE_CLAUDE_CODE);
    assert_kinds(&t, "uhcea");
    cr_assert_str_eq(t.events[0].text, "Fix the crash in formatUser");
    cr_assert_eq(t.events[0].line, 2);
    cr_assert_str_eq(t.events[2].name, "Bash");
    cr_assert_str_eq(t.events[2].text, "command: npm test");
    cr_assert_str_eq(t.events[3].name, "Bash", "result named by its call");
    cr_assert_eq(t.events[3].line, 5);
    cr_assert_eq(t.nwarnings, 0);
    up_trace_release(&t);
}

static const char codex[] =
    "{\"type\":\"session_meta\",\"payload\":{\"id\":\"s\",\"cwd\":\"/w\"}}\n"
    "{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":"
    "\"user\",\"content\":[{\"type\":\"input_text\",\"text\":"
    "\"<environment_context>cwd</environment_context>\"}]}}\n"
    "{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":"
    "\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"add /health"
    "\"}]}}\n"
    "{\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\","
    "\"message\":\"add /health\"}}\n"
    "{\"type\":\"response_item\",\"payload\":{\"type\":\"reasoning\","
    "\"summary\":[{\"type\":\"summary_text\",\"text\":\"find routes\"}]}}\n"
    "{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\","
    "\"name\":\"shell\",\"arguments\":\"{\\\"command\\\":[\\\"bash\\\","
    "\\\"-lc\\\",\\\"pytest\\\"]}\",\"call_id\":\"c1\"}}\n"
    "{\"type\":\"response_item\",\"payload\":{\"type\":"
    "\"function_call_output\",\"call_id\":\"c1\",\"output\":\"{\\\"output\\\":"
    "\\\"1 failed\\\",\\\"metadata\\\":{\\\"exit_code\\\":1}}\"}}\n"
    "{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output"
    "\",\"call_id\":\"c1\",\"output\":\"Exit code: 0\\nok\"}}\n"
    "{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":"
    "\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"done\"}]"
    "}}\n";

Test(trace, codex_events)
{
    up_trace t;

    parse_ok(&t, codex, "rollout.jsonl");
    cr_assert_eq(t.format, UP_TRACE_CODEX);
    assert_kinds(&t, "tuhcera");
    cr_assert_str_eq(t.events[0].name, "Context");
    cr_assert_str_eq(t.events[3].text, "command: bash -lc pytest");
    cr_assert_str_eq(t.events[4].text, "1 failed");
    cr_assert_str_eq(t.events[4].name, "shell");
    up_trace_release(&t);
}

static const char openai[] =
    "[{\"role\":\"system\",\"content\":\"be brief\"},"
    "{\"role\":\"user\",\"content\":\"why does make fail?\"},"
    "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\","
    "\"type\":\"function\",\"function\":{\"name\":\"sh\",\"arguments\":"
    "\"{\\\"command\\\":\\\"cat -A Makefile\\\"}\"}}]},"
    "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"all:$\"},"
    "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"Error: no such "
    "file\"},"
    "{\"role\":\"assistant\",\"content\":\"use a tab\"}]";

Test(trace, openai_array)
{
    up_trace t;

    parse_ok(&t, openai, "chat.json");
    cr_assert_eq(t.format, UP_TRACE_OPENAI);
    assert_kinds(&t, "tucrea");
    cr_assert_str_eq(t.events[0].name, "System");
    cr_assert_str_eq(t.events[2].text, "command: cat -A Makefile");
    cr_assert_str_eq(t.events[3].name, "sh");
    cr_assert_eq(t.events[3].line, 0);
    up_trace_release(&t);
}

static const char anthropic[] =
    "[{\"role\":\"user\",\"content\":\"add an index\"},"
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"},"
    "{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"bash\",\"input\":"
    "{\"command\":\"alembic revision\"}}]},"
    "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
    "\"tool_use_id\":\"a\",\"is_error\":true,\"content\":[{\"type\":\"text\","
    "\"text\":\"Multiple heads\"}]}]},"
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":"
    "\"merge heads first\"}]}]";

Test(trace, anthropic_array)
{
    up_trace t;

    parse_ok(&t, anthropic, "messages.json");
    cr_assert_eq(t.format, UP_TRACE_ANTHROPIC);
    assert_kinds(&t, "uacea");
    cr_assert_str_eq(t.events[3].text, "Multiple heads");
    cr_assert_str_eq(t.events[3].name, "bash");
    up_trace_release(&t);
}

static const char fast_agent[] =
    "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\","
    "\"text\":\"list bugs\"}]},"
    "{\"role\":\"assistant\",\"content\":[],\"channels\":{\"reasoning\":"
    "[{\"type\":\"text\",\"text\":\"filter by label\"}]},\"tool_calls\":"
    "{\"c7\":{\"method\":\"tools/call\",\"params\":{\"name\":\"gh-issues\","
    "\"arguments\":{\"labels\":[\"bug\"]}}}}},"
    "{\"role\":\"user\",\"content\":[],\"tool_results\":{\"c7\":{\"content\":"
    "[{\"type\":\"text\",\"text\":\"401 Bad credentials\"}],\"isError\":true}"
    "}},"
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":"
    "\"token missing\"}]}]}";

Test(trace, fast_agent_history)
{
    up_trace t;

    parse_ok(&t, fast_agent, "history.json");
    cr_assert_eq(t.format, UP_TRACE_FAST_AGENT);
    assert_kinds(&t, "uhcea");
    cr_assert_str_eq(t.events[2].name, "gh-issues");
    cr_assert_str_eq(t.events[2].text, "labels: bug");
    cr_assert_str_eq(t.events[3].name, "gh-issues");
    up_trace_release(&t);
}

Test(trace, request_body_is_named_by_vendor)
{
    static const char body[] =
        "{\"model\":\"claude-x\",\"system\":\"sys\",\"messages\":[{\"role\":"
        "\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":"
        "[{\"type\":\"tool_use\",\"id\":\"1\",\"name\":\"n\",\"input\":{}}]}]}";
    up_trace t;

    parse_ok(&t, body, "req.json");
    cr_assert_eq(t.format, UP_TRACE_ANTHROPIC);
    assert_kinds(&t, "tuc");
    cr_assert_str_eq(t.events[0].text, "sys");
    up_trace_release(&t);
}

Test(trace, markdown_roles)
{
    static const char md[] = "# Session\n\n## User\n\nfix it\n\n"
                             "### Tool error pytest\n\nTimeoutError\n\n"
                             "Assistant: close the file first\n"
                             "---USER\nthanks\n## User stories\nmore\n";
    up_trace t;

    parse_ok(&t, md, "s.md");
    cr_assert_eq(t.format, UP_TRACE_TEXT);
    assert_kinds(&t, "tueau");
    cr_assert_str_eq(t.events[2].name, "pytest");
    cr_assert_str_eq(t.events[3].text, "close the file first");
    cr_assert_str_eq(t.events[4].text, "thanks\n## User stories\nmore");
    cr_assert_eq(t.events[1].line, 3);
    cr_assert_eq(t.nwarnings, 0);
    up_trace_release(&t);
}

Test(trace, plain_text_is_chunked)
{
    up_buf text = UP_BUF_INIT;
    up_trace t;

    for (int i = 0; i < 40; i++)
        up_buf_addf(&text, "paragraph %d %0200d\n\n", i, 0);
    parse_ok(&t, text.data, "notes.txt");
    cr_assert_eq(t.format, UP_TRACE_TEXT);
    cr_assert_gt(t.nevents, 3, "long text is cut into several events");
    for (size_t i = 0; i < t.nevents; i++)
        cr_assert_eq(t.events[i].kind, UP_TEV_TEXT);
    cr_assert_eq(t.nwarnings, 0);
    up_trace_release(&t);
    up_buf_release(&text);
}

Test(trace, unknown_json_read_as_text)
{
    static const char *const cases[][2] = {
        {"{\"build\": {\"id\": 1}}", "b.json"},
        {"[1, 2, 3]", "a.json"},
        {"{\"a\": [1, 2", "broken.json"},
        {"just text", "x.jsonl"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        up_trace t;

        parse_ok(&t, cases[i][0], cases[i][1]);
        cr_assert_eq(t.format, UP_TRACE_UNKNOWN_TEXT, "case %zu", i);
        cr_assert_eq(t.nwarnings, 1);
        cr_assert(strstr(t.warnings[0], "unknown trace format, read as text"));
        cr_assert(strstr(t.warnings[0], cases[i][1]));
        assert_kinds(&t, "t");
        up_trace_release(&t);
    }
}

Test(trace, malformed_line_skipped_with_number)
{
    static const char text[] =
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}"
        "\n"
        "\n"
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\n"
        "[1]\n"
        "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\","
        "\"content\":\"b\"}}\n";
    up_trace t;

    parse_ok(&t, text, "m.jsonl");
    cr_assert_eq(t.format, UP_TRACE_CLAUDE_CODE);
    assert_kinds(&t, "ua");
    cr_assert_eq(t.nskipped, 2);
    cr_assert_eq(t.nwarnings, 2);
    cr_assert(
        strncmp(t.warnings[0], "'m.jsonl':3: skipped: invalid JSON", 34) == 0,
        "%s", t.warnings[0]);
    cr_assert_str_eq(t.warnings[1], "'m.jsonl':4: skipped: not a JSON object");
    cr_assert_eq(t.events[1].line, 5);
    up_trace_release(&t);
}

Test(trace, many_malformed_lines_are_counted)
{
    up_buf text = UP_BUF_INIT;
    up_trace t;

    for (int i = 0; i < 300; i++)
        up_buf_addf(&text,
                    "{\"type\":\"user\",\"message\":{\"role\":\"user\","
                    "\"content\":\"m%d\"}}\n{bad\n",
                    i);
    parse_ok(&t, text.data, "big.jsonl");
    cr_assert_eq(t.nevents, 300);
    cr_assert_eq(t.nskipped, 300);
    cr_assert_eq(t.nwarnings, UP_TRACE_MAX_WARNINGS + 1);
    cr_assert_str_eq(t.warnings[UP_TRACE_MAX_WARNINGS],
                     "'big.jsonl': 200 more malformed lines skipped");
    up_trace_release(&t);
    up_buf_release(&text);
}

Test(trace, empty_and_missing)
{
    static const char summary[] = "{\"type\":\"summary\",\"leafUuid\":\"x\"}";
    up_trace t;
    up_error err;

    cr_assert_eq(up_trace_parse(&t, " \n\t", 3, "e.md", &err), UP_EPARSE);
    cr_assert_str_eq(err.msg, "'e.md': trace is empty");
    up_trace_release(&t);
    cr_assert_eq(up_trace_parse(&t, summary, strlen(summary), "s.jsonl", &err),
                 UP_EPARSE);
    cr_assert(strstr(err.msg, "no conversation"));
    up_trace_release(&t);
    cr_assert_eq(up_trace_load(&t, "/nonexistent/trace.jsonl", &err),
                 UP_ENOTFOUND);
    cr_assert(strstr(err.msg, "/nonexistent/trace.jsonl"));
    up_trace_release(&t);
}

Test(trace, text_made_valid_utf8)
{
    static const char bad[] = "## User\n\nbad \xff byte \xe2\x82 nul\0 ok "
                              "\xe2\x82\xac\n";
    up_trace t;
    up_error err;
    json_t *s;

    cr_assert_eq(up_trace_parse(&t, bad, sizeof(bad) - 1, "b.md", &err), 0);
    cr_assert_eq(t.format, UP_TRACE_UNKNOWN_TEXT, "a NUL byte is not text");
    s = json_string(t.events[0].text);
    cr_assert_not_null(s, "event text is valid UTF-8");
    cr_assert(strstr(t.events[0].text, "ok \xe2\x82\xac"));
    json_decref(s);
    up_trace_release(&t);
}

/* ---- rendering -------------------------------------------------------- */

Test(trace, render_headers_and_round_trip)
{
    up_trace t, again;
    char *out;

    parse_ok(&t, claude, "s.jsonl");
    out = render(&t, 0, NULL);
    cr_assert(strstr(out, "## User\n\nFix the crash in formatUser\n"));
    cr_assert(strstr(out, "### Tool call Bash\n\ncommand: npm test\n"));
    cr_assert(strstr(out, "### Tool error Bash\n\nTypeError: x is undefined"));
    cr_assert(strstr(out, "## Assistant\n\nuse optional chaining\n"));
    parse_ok(&again, out, "rendered.md");
    assert_kinds(&again, "uhcea");
    free(out);
    up_trace_release(&t);
    up_trace_release(&again);
}

Test(trace, long_tool_output_keeps_head_and_tail)
{
    up_buf text = UP_BUF_INIT;
    up_trace t;
    char *out;

    up_buf_adds(&text, "## User\n\nbuild it\n\n### Tool result make\n\n");
    for (int i = 1; i <= 500; i++)
        up_buf_addf(&text, "output line %d\n", i);
    parse_ok(&t, text.data, "t.md");
    out = render(&t, 0, NULL);
    cr_assert(strstr(out, "output line 1\n"));
    cr_assert(strstr(out, "output line 15\n[... 475 lines omitted ...]\n"
                          "output line 491\n"));
    cr_assert(strstr(out, "output line 500\n"));
    cr_assert_null(strstr(out, "output line 100\n"));
    free(out);
    up_trace_release(&t);
    up_buf_release(&text);
}

Test(trace, thinking_is_cut_short)
{
    up_buf text = UP_BUF_INIT;
    up_trace t;
    up_trace_stats st;
    char *out;

    up_buf_adds(&text, "## User\n\nq\n\n### Thinking\n\n");
    for (int i = 0; i < 100; i++)
        up_buf_adds(&text, "I wonder about this and that at length. ");
    up_buf_adds(&text, "\n\n## Assistant\n\nanswer\n");
    parse_ok(&t, text.data, "t.md");
    out = render(&t, 0, &st);
    cr_assert_lt(strlen(out), 1000);
    cr_assert_eq(st.events_shrunk, 1);
    cr_assert_eq(st.events_kept, 3);
    free(out);
    up_trace_release(&t);
    up_buf_release(&text);
}

/* A Claude Code session of more than 200k bytes: a request, many tool
 * calls with long outputs, a decisive error and its fix at about 70%, and
 * a final answer. */
static void large_trace(up_buf *b, size_t *error_at)
{
    up_buf_adds(b,
                "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":"
                "\"FIRST-REQUEST: build the dashboard widget\"}}\n");
    for (int i = 0; i < 120; i++) {
        up_buf_addf(b,
                    "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant"
                    "\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t%d\","
                    "\"name\":\"Read\",\"input\":{\"file_path\":\"src/f%d.js"
                    "\"}}]}}\n",
                    i, i);
        up_buf_addf(b,
                    "{\"type\":\"user\",\"message\":{\"role\":\"user\","
                    "\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":"
                    "\"t%d\",\"content\":\"",
                    i);
        for (int k = 0; k < 40; k++)
            up_buf_addf(b, "line %d of file %d: const value = compute();\\n", k,
                        i);
        up_buf_adds(b, "\"}]}}\n");
        if (i != 84)
            continue;
        *error_at = b->len;
        up_buf_adds(
            b, "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":"
               "[{\"type\":\"tool_result\",\"tool_use_id\":\"t84\",\"is_error\""
               ":true,\"content\":\"TypeError: x is undefined\\n    at render "
               "(widget.js:10)\"}]}}\n"
               "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\","
               "\"content\":[{\"type\":\"text\",\"text\":\"x is read before "
               "the data loads: use optional chaining, x?.value\"}]}}\n");
    }
    up_buf_adds(b,
                "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\","
                "\"content\":[{\"type\":\"text\",\"text\":\"FINAL-ANSWER: "
                "the widget renders\"}]}}\n");
}

Test(trace, large_trace_keeps_the_correction)
{
    static const size_t budgets[] = {0, 8000, 2000, 500};
    up_buf text = UP_BUF_INIT;
    size_t error_at = 0;
    up_trace t;

    large_trace(&text, &error_at);
    cr_assert_gt(text.len, 200000);
    cr_assert_gt(error_at, 4000, "the correction is past upstream's cut");
    cr_assert_gt(error_at, text.len / 2);
    parse_ok(&t, text.data, "big.jsonl");
    for (size_t i = 0; i < sizeof(budgets) / sizeof(*budgets); i++) {
        up_trace_stats st;
        char *out = render(&t, budgets[i], &st);
        size_t limit = (budgets[i] ? budgets[i] : UP_TRACE_DEFAULT_BUDGET) * 4;

        cr_assert_leq(strlen(out), limit, "budget %zu", budgets[i]);
        cr_assert_eq(st.chars_after, strlen(out));
        cr_assert(strstr(out, "TypeError: x is undefined"), "budget %zu",
                  budgets[i]);
        cr_assert(strstr(out, "use optional chaining"));
        cr_assert(strstr(out, "file_path: src/f84.js"), "the failed call");
        cr_assert(strstr(out, "FIRST-REQUEST"), "beginning kept");
        cr_assert(strstr(out, "FINAL-ANSWER"), "end kept");
        cr_assert(strstr(out, " events omitted ...]") ||
                  strstr(out, " event omitted ...]"));
        cr_assert_gt(st.events_dropped, 0);
        cr_assert_eq(st.events_kept + st.events_dropped, st.events_total);
        cr_assert_eq(st.tokens_after, (st.chars_after + 3) / 4);
        cr_assert_gt(st.tokens_before, st.tokens_after);
        free(out);
    }
    up_trace_release(&t);
    up_buf_release(&text);
}

Test(trace, tiny_budgets_are_respected)
{
    up_buf text = UP_BUF_INIT;
    size_t error_at;
    up_trace t;

    large_trace(&text, &error_at);
    parse_ok(&t, text.data, "big.jsonl");
    for (size_t budget = 1; budget < 400; budget = budget * 3 + 1) {
        char *out = render(&t, budget, NULL);
        json_t *js = json_string(out);

        cr_assert_leq(strlen(out), budget * 4, "budget %zu", budget);
        cr_assert_not_null(js, "cut output stays valid UTF-8");
        json_decref(js);
        free(out);
    }
    up_trace_release(&t);
    up_buf_release(&text);
}

Test(trace, names)
{
    cr_assert_str_eq(up_trace_format_name(UP_TRACE_CLAUDE_CODE), "claude-code");
    cr_assert_str_eq(up_trace_format_name(UP_TRACE_UNKNOWN_TEXT), "unknown");
    cr_assert_str_eq(up_trace_kind_name(UP_TEV_TOOL_ERROR), "tool_error");
}
