/*
 * The agent part of a job (up_eval_agent_job): a large agent run holds one
 * per conversation until its run records are summed, so it keeps only the
 * counters they read, narrow and saturated, and the per-tool counts still
 * reach the run record's tool_call_map and tool_error_map.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "upskill/alloc.h"
#include "upskill/upskill.h"

struct plan {
    up_skill skill;
    up_suite suite;
    up_eval_plan p;
};

/* Two cases, both arms, one model, one repeat. */
static void plan_init(struct plan *t)
{
    static const char tests[] =
        "[{\"input\": \"first\", \"expected\": {\"contains\": [\"ok\"]}},"
        "{\"input\": \"second\", \"expected\": {\"contains\": [\"ok\"]}}]";
    const char *models[] = {"generic.local"};
    up_error err;

    up_skill_init(&t->skill);
    t->skill.name = up_xstrdup("s");
    t->skill.body = up_xstrdup("# S\n\nSay ok.");
    up_suite_init(&t->suite);
    cr_assert_eq(up_suite_parse(&t->suite, tests, strlen(tests), "t", "", NULL),
                 0);
    up_eval_plan_init(&t->p, &t->skill, &t->suite, models, 1, 1, 1,
                      UP_INJECT_UPSKILL);
    cr_assert_eq(up_eval_prepare(&t->p, NULL, &err), 0, "%s", err.msg);
}

static void plan_release(struct plan *t)
{
    up_eval_plan_release(&t->p);
    up_suite_release(&t->suite);
    up_skill_release(&t->skill);
}

/* The row of the tool named name (up_tool_stat_name). */
static size_t row(const char *name)
{
    for (size_t i = 0; up_tool_stat_name(i); i++)
        if (!strcmp(up_tool_stat_name(i), name))
            return i;
    cr_assert_fail("no tool row %s", name);
    return 0;
}

/* The skill arm's record of t's run, as up_session_log_runs sums it. */
static void skill_record(up_run_record *r, struct plan *t)
{
    up_run_record_init(r);
    up_eval_run_totals(r, &t->p, 0, 1, UP_ARM_SKILL, NULL);
}

/* 472 bytes before, 384 of them 16 rows of {long, long, double}: the
 * per-tool times nothing summed, and counters wider than their range. */
Test(agent_job, the_agent_part_is_narrow)
{
    cr_assert_leq(sizeof(up_eval_agent_job), 192, "%zu",
                  sizeof(up_eval_agent_job));
    cr_assert_eq(sizeof(((up_eval_agent_job *)0)->tool_count),
                 UP_TOOL_ROWS * 2 * sizeof(uint32_t));
}

Test(agent_job, per_tool_counts_reach_the_run_record)
{
    struct plan t;
    up_run_record r;

    plan_init(&t);
    for (size_t i = 0; i < t.p.njobs; i++) {
        up_eval_job *j = &t.p.jobs[i];
        up_eval_agent_job *x;

        if (j->arm != UP_ARM_SKILL)
            continue;
        x = up_eval_job_agent(j);
        j->agent = 1;
        j->done = 1;
        x->turns = 3;
        x->tool_calls = 4;
        x->tool_errors = 1;
        x->skill_read = j->kase == 0;
        x->tool_count[row("read_file")] = (up_eval_tool_count){2, 1};
        x->tool_count[row("write_file")].calls = 1;
        x->tool_count[row("unknown")].calls = j->kase == 1;
        x->tool_count[row("unknown")].errors = j->kase == 1;
    }
    skill_record(&r, &t);
    cr_assert_str_eq(r.tool_call_map,
                     "{\"read_file\":4,\"unknown\":1,\"write_file\":2}");
    cr_assert_str_eq(r.tool_error_map, "{\"read_file\":2,\"unknown\":1}");
    cr_assert_eq(r.agent_convs, 2);
    cr_assert_eq(r.tool_calls, 8);
    cr_assert_eq(r.tool_errors, 2);
    cr_assert_eq(r.model_turns, 6);
    cr_assert_eq(r.skill_reads, 1);
    up_run_record_release(&r);
    /* the baseline arm ran no tool loop: empty maps */
    up_run_record_init(&r);
    up_eval_run_totals(&r, &t.p, 0, 1, UP_ARM_BASELINE, NULL);
    cr_assert_str_eq(r.tool_call_map, "{}");
    cr_assert_eq(r.agent_convs, 0);
    up_run_record_release(&r);
    plan_release(&t);
}

/* A conversation's counters saturate rather than wrap; the run's sums
 * over conversations stay wide. */
Test(agent_job, counters_saturate_and_sums_stay_wide)
{
    struct plan t;
    up_run_record r;
    char want[64];

    cr_assert_eq(up_eval_count32(7), 7);
    cr_assert_eq(up_eval_count32(-1), 0);
    cr_assert_eq(up_eval_count32(LONG_MAX), UINT32_MAX);
    cr_assert_eq(up_eval_count16(9), 9);
    cr_assert_eq(up_eval_count16(70000), UINT16_MAX);
    plan_init(&t);
    for (size_t i = 0; i < t.p.njobs; i++) {
        up_eval_job *j = &t.p.jobs[i];
        up_eval_agent_job *x;

        if (j->arm != UP_ARM_SKILL)
            continue;
        x = up_eval_job_agent(j);
        j->agent = 1;
        x->tool_calls = up_eval_count32(LONG_MAX);
        x->tool_count[row("run")].calls = up_eval_count32(LONG_MAX);
    }
    skill_record(&r, &t);
    snprintf(want, sizeof(want), "{\"run\":%lu}", 2UL * UINT32_MAX);
    cr_assert_str_eq(r.tool_call_map, want);
    cr_assert_eq(r.tool_calls, 2L * UINT32_MAX);
    up_run_record_release(&r);
    plan_release(&t);
}
