/*
 * Case artifacts written by the session's run log: chat mode's three
 * messages, and the hook agent mode fills (a job's transcript, workspace
 * and tool counts) showing up as written, capped.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/cases/suite_lib.h"
#include "lib/skill/skill_lib.h"
#include "lib/eval/session_lib.h"
#include "lib/eval/eval_job.h"
#include "upskill/alloc.h"
#include "upskill/session.h"

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

struct fixture {
    char root[64];
    up_config cfg;
    up_skill skill;
    up_suite suite;
    up_eval_plan p;
    up_session s;
};

static void setup(struct fixture *f)
{
    static const char tests[] =
        "[{\"input\": \"first\", \"expected\": {\"contains\": [\"ok\"]}},"
        "{\"input\": \"second\", \"expected\": {\"contains\": [\"ok\"]}}]";
    const char *models[] = {"generic.local"};
    up_session_opts o;
    up_error err;

    snprintf(f->root, sizeof(f->root), "/tmp/upskill-artifact.XXXXXX");
    cr_assert_not_null(mkdtemp(f->root));
    up_config_init(&f->cfg);
    up_skill_init(&f->skill);
    f->skill.name = up_xstrdup("s");
    f->skill.body = up_xstrdup("# S\n\nSay ok.");
    up_suite_init(&f->suite);
    cr_assert_eq(up_suite_parse(&f->suite, tests, strlen(tests), "t", "", NULL),
                 0);
    up_eval_plan_init(&f->p, &f->skill, &f->suite, models, 1, 1, 1,
                      UP_INJECT_UPSKILL);
    cr_assert_eq(up_eval_prepare(&f->p, NULL, &err), 0);
    up_session_opts_init(&o);
    up_session_init(&f->s, &o, &f->cfg);
    cr_assert_eq(up_session_add_target(&f->s, "local", "http://127.0.0.1:9/v1",
                                       NULL, NULL, &err),
                 0, "%s", err.msg);
    up_buf_adds(&f->s.batch_dir, f->root);
    up_buf_adds(&f->s.batch_id, "b");
}

static void teardown(struct fixture *f)
{
    up_session_release(&f->s);
    up_eval_plan_release(&f->p);
    up_suite_release(&f->suite);
    up_skill_release(&f->skill);
    up_config_release(&f->cfg);
    nftw(f->root, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void answer(up_eval_plan *p, up_eval_job *j, const char *text)
{
    up_eval_keep_answer(p, j, text, strlen(text));
    j->done = 1;
}

/* The artifact of case k (0-based) in the with-skill run (run_2). */
static json_t *skill_artifact(struct fixture *f, size_t k)
{
    json_t *v = NULL, *a;
    up_error err;

    cr_assert_eq(up_store_case_load(&v, f->root, k, &err), 0, "%s", err.msg);
    cr_assert_eq(json_array_size(v), 2, "both arms");
    a = json_incref(json_array_get(v, 1));
    json_decref(v);
    cr_assert_str_eq(json_string_value(json_object_get(a, "arm")),
                     "with_skill");
    return a;
}

static json_t *message(json_t *a, size_t i)
{
    return json_array_get(json_object_get(a, "messages"), i);
}

Test(artifact, agent_transcript_workspace_and_tools_are_written)
{
    struct fixture f;
    up_error err;
    json_t *a, *call;
    char big[4000];

    setup(&f);
    memset(big, 'y', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    f.cfg.artifact_max_bytes.value = 2048;
    for (size_t i = 0; i < f.p.njobs; i++) {
        up_eval_job *j = &f.p.jobs[i];

        answer(&f.p, j, "ok");
        if (j->arm != UP_ARM_SKILL || j->kase != 1)
            continue;
        up_eval_job_agent(j)->transcript = json_pack(
            "[{s:s, s:s}, {s:s, s:n, s:n, s:[{s:s, s:s, s:s}]},"
            " {s:s, s:s, s:s, s:b}, {s:s, s:s, s:n, s:[]}]",
            "role", "user", "content", "second", "role", "assistant", "content",
            "reasoning", "tool_calls", "id", "c1", "name", "write_file",
            "arguments", big, "role", "tool", "tool_call_id", "c1", "content",
            big, "is_error", 1, "role", "assistant", "content", "ok",
            "reasoning", "tool_calls");
        up_eval_job_agent(j)->workspace_json =
            json_pack("{s:[], s:b}", "files", "truncated", 0);
        up_eval_job_agent(j)->tools_json = json_pack("{s:i}", "tool_calls", 1);
    }
    up_eval_grade(&f.p);
    cr_assert_eq(up_session_log_runs(&f.s, &f.p, "task", 0, &err), 0, "%s",
                 err.msg);

    a = skill_artifact(&f, 0); /* chat mode: system, user, assistant */
    cr_assert_eq(json_array_size(json_object_get(a, "messages")), 3);
    cr_assert_str_eq(
        json_string_value(json_object_get(message(a, 0), "content_file")),
        "cases/system_prompt.md");
    cr_assert(json_is_null(json_object_get(a, "workspace")));
    cr_assert(json_is_null(json_object_get(a, "tools")));
    json_decref(a);

    a = skill_artifact(&f, 1); /* the hook: the loop's messages */
    cr_assert_eq(json_array_size(json_object_get(a, "messages")), 5);
    cr_assert_str_eq(json_string_value(json_object_get(message(a, 3), "role")),
                     "tool");
    cr_assert(json_is_true(json_object_get(message(a, 3), "is_error")));
    cr_assert(json_is_true(json_object_get(message(a, 3), "content_cut")));
    call = json_array_get(json_object_get(message(a, 2), "tool_calls"), 0);
    cr_assert(json_is_true(json_object_get(call, "arguments_cut")));
    cr_assert_eq(json_integer_value(json_object_get(call, "arguments_bytes")),
                 3999);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(a, "tools"),
                                                    "tool_calls")),
                 1);
    cr_assert(json_is_array(
        json_object_get(json_object_get(a, "workspace"), "files")));
    cr_assert(json_is_true(json_object_get(a, "passed")));
    json_decref(a);
    teardown(&f);
}

/* A large suite's assertion lists are not held per case (issue 15, item
 * 6): a job parses its case's when graded, holding what the case has, no
 * grown spare room, and lets it go with its live part; chat jobs carry no
 * tool counters. */
Test(artifact, plan_keeps_no_lists_and_a_job_no_spare_room)
{
    struct fixture f;

    setup(&f);
    cr_assert(f.p.prepared);
    for (size_t i = 0; i < f.p.njobs; i++) {
        up_eval_job *j = &f.p.jobs[i];
        const up_assert_list *l;

        cr_assert_null(j->live, "nothing parsed before grading");
        l = up_eval_job_asserts(&f.p, j);
        cr_assert_eq(l->n, 1);
        cr_assert_eq(l->cap, l->n);
        cr_assert_eq(l, up_eval_job_asserts(&f.p, j), "parsed once");
        cr_assert_null(j->ag);
        up_eval_job_live_free(j);
    }
    teardown(&f);
}

/* The plan borrows the suite's strings (issue 15, item 6): a case
 * without context files has its input as the user message, and the
 * expected.contains assertions point at the suite's strings; a case with
 * files gets its own message. */
Test(artifact, plan_borrows_the_suite_strings)
{
    static const char tests[] =
        "[{\"input\": \"plain\", \"expected\": {\"contains\": [\"ok\"]}},"
        "{\"input\": \"with\", \"context\": {\"files\": {\"a\": \"1\"}},"
        "\"expected\": {\"contains\": [\"ok\", \"1\"]}}]";
    const char *models[] = {"generic.local"};
    up_skill skill;
    up_suite suite;
    up_eval_plan p;
    up_assert_list l;
    up_error err;

    up_skill_init(&skill);
    up_suite_init(&suite);
    cr_assert_eq(up_suite_parse(&suite, tests, strlen(tests), "t", "", NULL),
                 0);
    up_eval_plan_init(&p, &skill, &suite, models, 1, 1, 1, UP_INJECT_UPSKILL);
    cr_assert_eq(up_eval_prepare(&p, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(p.user[0], suite.cases[0].input);
    cr_assert_neq(p.user[1], suite.cases[1].input);
    cr_assert_str_eq(p.user[1], "with\n\n```a\n1\n```");
    up_eval_case_asserts(&p, 0, &l);
    cr_assert_eq(l.items[0].value, suite.cases[0].contains[0]);
    up_assert_list_release(&l);
    up_eval_case_asserts(&p, 1, &l);
    cr_assert_eq(l.n, 2);
    cr_assert_eq(l.items[1].value, suite.cases[1].contains[1]);
    up_assert_list_release(&l);
    up_eval_plan_release(&p);
    cr_assert_str_eq(suite.cases[0].input, "plain"); /* left to the suite */
    up_suite_release(&suite);
    up_skill_release(&skill);
}

/* The job table holds one job per conversation (200,000 at 100,000
 * cases x 2 arms; issue 15, item 6): each is kept narrow, 200 bytes
 * before.  Its indexes and counters still hold what a plan puts there. */
Test(artifact, a_job_is_narrow_and_keeps_its_indexes)
{
    struct fixture f;
    size_t seen = 0;

    cr_assert_leq(sizeof(up_eval_job), 88, "%zu", sizeof(up_eval_job));
    setup(&f);
    for (size_t i = 0; i < f.p.njobs; i++) {
        const up_eval_job *j = &f.p.jobs[i];

        cr_assert_lt(j->kase, f.suite.ncases);
        cr_assert_eq(j->model, 0);
        cr_assert_eq(j->repeat, 1);
        cr_assert_null(j->live, "no live part before an answer");
        seen += j->arm == UP_ARM_SKILL;
    }
    cr_assert_eq(seen, f.suite.ncases);
    /* the answer and verdicts live apart, from the answer on */
    up_eval_keep_answer(&f.p, &f.p.jobs[0], "ok", 2);
    f.p.jobs[0].done = 1;
    up_eval_grade_job(&f.p, &f.p.jobs[0]);
    cr_assert_str_eq(up_eval_job_live_view(&f.p.jobs[0])->answer, "ok");
    cr_assert_not_null(up_eval_job_live_view(&f.p.jobs[0])->results);
    cr_assert(f.p.jobs[0].passed);
    up_eval_job_live_free(&f.p.jobs[0]);
    cr_assert_null(f.p.jobs[0].live);
    cr_assert_null(up_eval_job_live_view(&f.p.jobs[0])->answer);
    teardown(&f);
}

/* A plan past the job's 32-bit indexes is refused with a message, and
 * the narrow counters saturate rather than wrap. */
Test(artifact, plan_limits_and_narrow_counters)
{
    up_error err;

    cr_assert_eq(up_eval_check_size(1, UP_EVAL_MAX_INDEX, &err), 0);
    cr_assert_eq(up_eval_check_size(1, (size_t)UP_EVAL_MAX_INDEX + 1, &err),
                 UP_ETOOBIG);
    cr_assert(strstr(err.msg, "4294967296 cases given"), "%s", err.msg);
    cr_assert_eq(up_eval_check_size((size_t)UP_EVAL_MAX_INDEX + 1, 1, &err),
                 UP_ETOOBIG);
    cr_assert_eq(up_eval_attempts(3), 3);
    cr_assert_eq(up_eval_attempts(70000), UINT16_MAX);
    cr_assert_eq(up_eval_attempts(-1), 0);
    cr_assert_eq(up_eval_error_code(UP_EINVALID), UP_EINVALID);
    cr_assert_eq(up_eval_error_code(-1000), SCHAR_MIN);
    cr_assert_eq(up_eval_error_code(1000), SCHAR_MAX);
    cr_assert_eq(up_eval_count16(65535), UINT16_MAX);
    cr_assert_eq(up_eval_count16(70000), UINT16_MAX);
    cr_assert_eq(up_eval_count16(7), 7);
    cr_assert_eq(up_eval_latency(1234), 1234);
    cr_assert_eq(up_eval_latency(-5), 0);
    cr_assert_eq(up_eval_latency(1e12), UINT32_MAX);
    cr_assert_eq(up_eval_latency(4294967295.0), UINT32_MAX);
}

/* A job keeps its tokens in 32 bits: stored through one helper that
 * clamps to [0, UINT32_MAX], widened back through another; sums of them
 * are taken in a long, so two counts near the limit do not wrap. */
Test(artifact, job_usage_saturates_and_widens)
{
    up_eval_job j;
    up_usage u = {5000000000L, 7, -3, 11, 2, 1}, w;

    memset(&j, 0, sizeof(j));
    up_eval_job_set_usage(&j, &u);
    cr_assert_eq(j.usage.input, UINT32_MAX);
    cr_assert_eq(j.usage.output, 7);
    cr_assert_eq(j.usage.cached, 0);
    cr_assert_eq(j.usage.cache_write, 11);
    cr_assert_eq(j.usage.reasoning, 2);
    cr_assert_eq(j.usage.estimated, 1);
    up_eval_job_usage(&j, &w);
    cr_assert_eq(w.input, (long)UINT32_MAX);
    cr_assert_eq(w.output, 7);
    cr_assert_eq(w.cached, 0);
    cr_assert_eq(w.cache_write, 11);
    cr_assert_eq(w.reasoning, 2);
    cr_assert_eq(w.estimated, 1);
}

/* The whole line is held to artifact_max_bytes (issue 23 item 6): a
 * workspace listing of 2,000 files loses its end, counted in "more";
 * then texts; then whole members, named in artifact_cut. */
Test(artifact, every_line_is_held_to_the_cap)
{
    struct fixture f;
    up_error err;
    json_t *a, *ws, *files = json_array(), *cut;
    char path[32], *line;

    setup(&f);
    f.cfg.artifact_max_bytes.value = 4096;
    for (int i = 0; i < 2000; i++) {
        snprintf(path, sizeof(path), "f%04d", i);
        json_array_append_new(files,
                              json_pack("{s:s, s:i}", "path", path, "size", 0));
    }
    for (size_t i = 0; i < f.p.njobs; i++) {
        up_eval_job *j = &f.p.jobs[i];

        answer(&f.p, j, "ok");
        if (j->arm != UP_ARM_SKILL || j->kase != 1)
            continue;
        up_eval_job_agent(j)->workspace_json = json_pack(
            "{s:O, s:b, s:i}", "files", files, "truncated", 1, "more", 5);
        up_eval_job_agent(j)->tools_json = json_pack("{s:i}", "tool_calls", 1);
    }
    up_eval_grade(&f.p);
    cr_assert_eq(up_session_log_runs(&f.s, &f.p, "task", 0, &err), 0, "%s",
                 err.msg);
    a = skill_artifact(&f, 1);
    line = json_dumps(a, JSON_COMPACT);
    cr_assert_leq(strlen(line), 4096, "a line of %zu bytes", strlen(line));
    ws = json_object_get(a, "workspace");
    cr_assert_gt(json_array_size(json_object_get(ws, "files")), 10,
                 "the listing's start is kept");
    cr_assert_eq(json_array_size(json_object_get(ws, "files")) +
                     (size_t)json_integer_value(json_object_get(ws, "more")),
                 2005, "every file left out is counted");
    cut = json_object_get(a, "artifact_cut");
    cr_assert_gt(json_integer_value(json_object_get(cut, "bytes")), 4096);
    cr_assert_eq(json_array_size(json_object_get(cut, "dropped")), 0);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(a, "tools"),
                                                    "tool_calls")),
                 1, "nothing else dropped");
    free(line);
    json_decref(a);

    a = skill_artifact(&f, 0); /* a line within the cap is left alone */
    cr_assert_null(json_object_get(a, "artifact_cut"));
    json_decref(a);
    json_decref(files);
    teardown(&f);
}

Test(artifact, a_line_still_over_drops_members_in_order)
{
    struct fixture f;
    up_error err;
    json_t *a, *cut;
    char *big = up_xcalloc(6000, 1);

    setup(&f);
    memset(big, 'z', 5999);
    f.cfg.artifact_max_bytes.value = 2048;
    for (size_t i = 0; i < f.p.njobs; i++) {
        up_eval_job *j = &f.p.jobs[i];

        answer(&f.p, j, "ok");
        if (j->arm != UP_ARM_SKILL || j->kase != 1)
            continue;
        up_eval_job_agent(j)->workspace_json =
            json_pack("{s:[], s:b}", "files", "truncated", 0);
        up_eval_job_agent(j)->tools_json = json_pack("{s:s}", "x", big);
    }
    up_eval_grade(&f.p);
    cr_assert_eq(up_session_log_runs(&f.s, &f.p, "task", 0, &err), 0, "%s",
                 err.msg);
    a = skill_artifact(&f, 1);
    cut = json_object_get(a, "artifact_cut");
    cr_assert_eq(json_array_size(json_object_get(cut, "dropped")), 2);
    cr_assert_str_eq(
        json_string_value(json_array_get(json_object_get(cut, "dropped"), 0)),
        "workspace");
    cr_assert_str_eq(
        json_string_value(json_array_get(json_object_get(cut, "dropped"), 1)),
        "tools");
    cr_assert(json_is_null(json_object_get(a, "tools")));
    cr_assert(json_is_array(json_object_get(a, "assertions")), "kept");
    free(big);
    json_decref(a);
    teardown(&f);
}
