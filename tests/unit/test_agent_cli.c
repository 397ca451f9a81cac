/*
 * Unit tests for the CLI event-stream parsers
 * (src/lib/harness/harness_events.h) on the streams recorded from the real CLIs
 * against fake-llm (tests/fixtures/clis/<cli>/events.jsonl, by
 * tests/clis/live.sh: skill activated, reference read, report.txt written,
 * answered; the server counted 1000+1100+1200+1300 input and 10+20+30+8 output
 * tokens), on hand-written Codex events (no live Codex run yet: they follow
 * docs/agent-clis.md), and on hostile streams.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/harness/harness_events.h"
#include "upskill/upskill.h"

static void parse_file(up_harness_result *r, up_harness_format fmt,
                       const char *cli, const char *skill)
{
    up_buf b = UP_BUF_INIT;
    up_error err;
    char path[256];
    int rc;

    snprintf(path, sizeof(path), "tests/fixtures/clis/%s/events.jsonl", cli);
    rc = up_fs_read(&b, path, 1u << 20, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    rc = up_harness_parse(r, fmt, skill, b.data, b.len, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    up_buf_release(&b);
}

static void parse_text(up_harness_result *r, up_harness_format fmt,
                       const char *text)
{
    up_error err;
    int rc = up_harness_parse(r, fmt, "csv-report", text, strlen(text), &err);

    cr_assert_eq(rc, 0, "%s", err.msg);
}

static const up_harness_tool *tool(const up_harness_result *r, const char *name)
{
    for (size_t i = 0; i < r->ntools; i++)
        if (!strcmp(r->tools[i].name, name))
            return &r->tools[i];
    cr_assert_fail("no tool '%s'", name);
    return NULL;
}

/* The recorded run: SKILL.md and references/format.md, in that order. */
static void assert_activation(const up_harness_result *r)
{
    cr_assert(r->skill_loaded);
    cr_assert_eq(r->nskill_files, 2);
    cr_assert_str_eq(r->skill_files[0], "SKILL.md");
    cr_assert_str_eq(r->skill_files[1], "references/format.md");
}

static void assert_server_counts(const up_harness_result *r)
{
    cr_assert_eq(r->input_tokens, 4600);
    cr_assert_eq(r->output_tokens, 68);
    cr_assert_eq(r->cached_tokens, 0);
    cr_assert_eq(r->tool_calls, 3);
    cr_assert_eq(r->tool_errors, 0);
    cr_assert_eq(r->skipped, 0);
    cr_assert(r->complete);
    cr_assert(!r->is_error);
}

Test(agent_cli, claude_code_fixture)
{
    up_harness_result r;

    parse_file(&r, UP_HARNESS_CLAUDE_CODE, "claude-code", "csv-report");
    cr_assert_str_eq(r.answer, "DONE: report.txt written.");
    cr_assert_eq(r.turns, 4);
    assert_server_counts(&r);
    cr_assert_eq(tool(&r, "Skill")->calls, 1);
    cr_assert_eq(tool(&r, "Read")->calls, 1);
    cr_assert_eq(tool(&r, "Write")->calls, 1);
    cr_assert(r.has_cost);
    cr_assert_float_eq(r.cost_usd, 0.0247, 1e-9);
    cr_assert_eq(r.duration_ms, 543);
    cr_assert_str_eq(r.model, "claude-opus-4-8[1m]"); /* system/init */
    assert_activation(&r);
    up_harness_result_release(&r);
}

Test(agent_cli, opencode_fixture)
{
    up_harness_result r;

    parse_file(&r, UP_HARNESS_OPENCODE, "opencode", "csv-report");
    cr_assert_str_eq(r.answer, "DONE: report.txt written.");
    cr_assert_eq(r.turns, 4);
    assert_server_counts(&r);
    cr_assert_eq(tool(&r, "skill")->calls, 1);
    cr_assert_eq(tool(&r, "read")->calls, 1);
    cr_assert_eq(tool(&r, "write")->calls, 1);
    cr_assert(r.has_cost);
    cr_assert_eq(r.duration_ms, 1217);
    assert_activation(&r);
    up_harness_result_release(&r);
}

Test(agent_cli, gemini_fixture)
{
    up_harness_result r;

    parse_file(&r, UP_HARNESS_GEMINI, "gemini", "csv-report");
    cr_assert_str_eq(r.answer, "DONE: report.txt written.");
    cr_assert_eq(r.turns, 4);
    assert_server_counts(&r);
    cr_assert_eq(tool(&r, "activate_skill")->calls, 1);
    cr_assert_eq(tool(&r, "read_file")->calls, 1);
    cr_assert_eq(tool(&r, "write_file")->calls, 1);
    cr_assert(!r.has_cost);
    cr_assert_eq(r.duration_ms, 275);
    cr_assert_str_eq(r.model, "gemini-2.5-flash");
    assert_activation(&r);
    up_harness_result_release(&r);
}

Test(agent_cli, another_skill_is_not_activation)
{
    up_harness_result r;

    parse_file(&r, UP_HARNESS_CLAUDE_CODE, "claude-code", "other-skill");
    cr_assert(!r.skill_loaded);
    cr_assert_eq(r.nskill_files, 0);
    up_harness_result_release(&r);
    parse_file(&r, UP_HARNESS_GEMINI, "gemini", NULL); /* NULL: any skill */
    assert_activation(&r);
    up_harness_result_release(&r);
}

/* Hand-written, following docs/agent-clis.md (Codex not yet run live). */
static const char codex[] =
    "{\"type\":\"thread.started\",\"thread_id\":\"t1\"}\n"
    "{\"type\":\"turn.started\"}\n"
    "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_0\",\"type\":"
    "\"error\",\"message\":\"Model metadata for `m` not found\"}}\n"
    "{\"type\":\"item.started\",\"item\":{\"id\":\"item_1\",\"type\":"
    "\"command_execution\",\"command\":\"bash -lc 'cat "
    ".agents/skills/csv-report/SKILL.md'\",\"status\":\"in_progress\"}}\n"
    "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_1\",\"type\":"
    "\"command_execution\",\"command\":\"bash -lc 'cat "
    ".agents/skills/csv-report/SKILL.md'\",\"aggregated_output\":\"# CSV\","
    "\"exit_code\":0,\"status\":\"completed\"}}\n"
    "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_2\",\"type\":"
    "\"command_execution\",\"command\":\"cat /w/.agents/skills/csv-report/"
    "references/format.md && false\",\"aggregated_output\":\"\","
    "\"exit_code\":1,\"status\":\"failed\"}}\n"
    "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_3\",\"type\":"
    "\"agent_message\",\"text\":\"DONE\"}}\n"
    "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":900,"
    "\"cached_input_tokens\":300,\"output_tokens\":40,"
    "\"reasoning_output_tokens\":12}}\n";

Test(agent_cli, codex_hand_written)
{
    up_harness_result r;

    parse_text(&r, UP_HARNESS_CODEX, codex);
    cr_assert_str_eq(r.answer, "DONE");
    cr_assert_eq(r.turns, -1);
    cr_assert_eq(r.input_tokens, 900);
    cr_assert_eq(r.cached_tokens, 300);
    cr_assert_eq(r.output_tokens, 40);
    cr_assert_eq(r.reasoning_tokens, 12);
    cr_assert_eq(tool(&r, "shell")->calls, 2);
    cr_assert_eq(tool(&r, "shell")->errors, 1);
    cr_assert(!r.has_cost);
    cr_assert(r.complete);
    assert_activation(&r);
    cr_assert_eq(r.skipped, 0);
    up_harness_result_release(&r);
}

Test(agent_cli, codex_turn_failed_and_truncated)
{
    up_harness_result r;

    parse_text(&r, UP_HARNESS_CODEX,
               "{\"type\":\"turn.failed\",\"error\":{}}\n");
    cr_assert(r.is_error);
    up_harness_result_release(&r);
    parse_text(&r, UP_HARNESS_CODEX,
               "{\"type\":\"turn.started\"}\n{\"type\":\"it");
    cr_assert(!r.complete);
    cr_assert_eq(r.skipped, 1);
    cr_assert_not_null(strstr(r.first_skip, "line 2: not JSON"));
    up_harness_result_release(&r);
}

Test(agent_cli, claude_errors_and_cache)
{
    static const char s[] =
        "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"content\":[{"
        "\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\",\"input\":{"
        "\"command\":\"cat ~/.claude/skills/csv-report/scripts/run.sh\"}}]}}\n"
        "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_"
        "result\","
        "\"tool_use_id\":\"t1\",\"is_error\":true,\"content\":\"denied\"}]}}\n"
        "{\"type\":\"result\",\"subtype\":\"error_max_turns\",\"is_error\":"
        "true,"
        "\"usage\":{\"input_tokens\":10,\"cache_creation_input_tokens\":5,"
        "\"cache_read_input_tokens\":100,\"output_tokens\":7}}\n";
    up_harness_result r;

    parse_text(&r, UP_HARNESS_CLAUDE_CODE, s);
    cr_assert(r.is_error);
    cr_assert_eq(tool(&r, "Bash")->errors, 1);
    cr_assert_eq(r.input_tokens, 115);
    cr_assert_eq(r.cached_tokens, 100);
    cr_assert(!r.skill_loaded); /* a script read, not SKILL.md */
    cr_assert_eq(r.nskill_files, 1);
    cr_assert_str_eq(r.skill_files[0], "scripts/run.sh");
    cr_assert(!r.has_cost);
    cr_assert_eq(r.duration_ms, -1);
    up_harness_result_release(&r);
}

/* A run killed before its result event (the harness's time limit). */
Test(agent_cli, claude_truncated_keeps_input_tokens)
{
    up_buf b = UP_BUF_INIT;
    up_harness_result r;
    up_error err;
    char *cut;

    cr_assert_eq(up_fs_read(&b, "tests/fixtures/clis/claude-code/events.jsonl",
                            1u << 20, &err),
                 0, "%s", err.msg);
    cut = strstr(b.data, "{\"type\":\"result\"");
    cr_assert_not_null(cut);
    cr_assert_eq(up_harness_parse(&r, UP_HARNESS_CLAUDE_CODE, "csv-report",
                                  b.data, (size_t)(cut - b.data) + 40, &err),
                 0, "%s", err.msg);
    cr_assert(!r.complete);
    cr_assert_eq(r.skipped, 1); /* the half line */
    cr_assert_eq(r.input_tokens, 4600);
    cr_assert_eq(r.turns, 4);
    cr_assert_str_eq(r.answer, "DONE: report.txt written.");
    cr_assert(!r.has_cost);
    assert_activation(&r);
    up_harness_result_release(&r);
    up_buf_release(&b);
}

Test(agent_cli, opencode_tool_error)
{
    static const char s[] =
        "{\"type\":\"step_start\",\"timestamp\":100}\n"
        "{\"type\":\"tool_use\",\"timestamp\":150,\"part\":{\"tool\":\"read\","
        "\"state\":{\"status\":\"error\",\"input\":{\"filePath\":\"/x\"}}}}\n";
    up_harness_result r;

    parse_text(&r, UP_HARNESS_OPENCODE, s);
    cr_assert_eq(tool(&r, "read")->errors, 1);
    cr_assert(!r.complete);
    cr_assert_eq(r.duration_ms, 50);
    up_harness_result_release(&r);
}

/* Found by the fuzz target: a second result for one call was a second
   error, so a tool had more errors than calls. */
Test(agent_cli, a_call_fails_once)
{
    static const char s[] =
        "{\"type\":\"tool_use\",\"tool_name\":\"read_file\",\"tool_id\":"
        "\"r1\",\"parameters\":{}}\n"
        "{\"type\":\"tool_result\",\"tool_id\":\"r1\",\"status\":\"error\"}\n"
        "{\"type\":\"tool_result\",\"tool_id\":\"r1\",\"status\":\"error\"}\n";
    up_harness_result r;

    parse_text(&r, UP_HARNESS_GEMINI, s);
    cr_assert_eq(tool(&r, "read_file")->calls, 1);
    cr_assert_eq(tool(&r, "read_file")->errors, 1);
    cr_assert_eq(r.tool_errors, 1);
    up_harness_result_release(&r);
}

Test(agent_cli, plain_stdout)
{
    up_harness_result r;

    parse_text(&r, UP_HARNESS_PLAIN, "the answer\n\n");
    cr_assert_str_eq(r.answer, "the answer");
    cr_assert(r.complete);
    cr_assert_eq(r.ntools, 0);
    up_harness_result_release(&r);
}

Test(agent_cli, hostile_lines_are_skipped_and_counted)
{
    static const char s[] =
        "[1,2]\n"
        "{\"type\":\"nonsense\"}\n"
        "{\"type\":7,\"message\":\"x\"}\n"
        "{\"type\":\"assistant\",\"message\":[]}\n"
        "{\"type\":\"assistant\",\"message\":{\"id\":5,\"content\":{\"a\":1}}}"
        "\n"
        "{\"type\":\"result\",\"result\":\"ok\\u0001\\u001b[31m\","
        "\"usage\":{\"input_tokens\":-5,\"output_tokens\":\"9\"},"
        "\"total_cost_usd\":\"free\",\"num_turns\":null}\n"
        "\x01\x02\xff\xfe\n";
    up_harness_result r;

    parse_text(&r, UP_HARNESS_CLAUDE_CODE, s);
    cr_assert_eq(r.lines, 7);
    cr_assert_eq(r.skipped, 5);
    cr_assert_str_eq(r.first_skip, "line 1: not a JSON object");
    cr_assert_str_eq(r.answer, "ok\x01\x1b[31m");
    cr_assert_eq(r.input_tokens, 0);
    cr_assert_eq(r.output_tokens, 0);
    cr_assert(!r.has_cost);
    up_harness_result_release(&r);
}

Test(agent_cli, huge_line_and_stream)
{
    static const char tail[] = "\n{\"type\":\"init\",\"model\":\"g\"}\n";
    size_t n = UP_HARNESS_MAX_LINE + 16;
    char *s = malloc(n + 64);
    up_harness_result r;
    up_error err;
    int rc;

    memset(s, 'x', n);
    memcpy(s + n, tail, strlen(tail));
    rc = up_harness_parse(&r, UP_HARNESS_GEMINI, NULL, s, n + strlen(tail),
                          &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(r.skipped, 1);
    cr_assert_str_eq(r.first_skip, "line 1: line too long");
    cr_assert_str_eq(r.model, "g");
    up_harness_result_release(&r);
    rc = up_harness_parse(&r, UP_HARNESS_GEMINI, NULL, s,
                          UP_HARNESS_MAX_STREAM + 1u, &err);
    cr_assert_eq(rc, UP_ETOOBIG);
    cr_assert_not_null(strstr(err.msg, "over the"));
    up_harness_result_release(&r);
    free(s);
}

Test(agent_cli, nothing_readable_is_an_error)
{
    up_harness_result r;
    up_error err;
    int rc = up_harness_parse(&r, UP_HARNESS_OPENCODE, NULL, "oops\nnot json\n",
                              14, &err);

    cr_assert_eq(rc, UP_EPARSE);
    cr_assert_str_eq(err.msg,
                     "opencode output has no readable event (2 lines; line "
                     "1: not JSON ('[' or '{' expected near 'oops'))");
    cr_assert_str_eq(r.answer, "");
    up_harness_result_release(&r);
    rc = up_harness_parse(&r, UP_HARNESS_OPENCODE, NULL, "", 0, &err);
    cr_assert_eq(rc, 0); /* empty: nothing happened, not malformed */
    up_harness_result_release(&r);
}

Test(agent_cli, format_names)
{
    up_harness_format f;
    up_error err;

    for (int i = 0; i < UP_HARNESS_FORMAT_COUNT; i++) {
        cr_assert_eq(
            up_harness_format_parse(
                up_harness_format_name((up_harness_format)i), &f, &err),
            0);
        cr_assert_eq((int)f, i);
    }
    cr_assert_eq(up_harness_format_parse("cursor", &f, &err), UP_EUSAGE);
    cr_assert_not_null(strstr(err.msg, "'cursor'"));
}
