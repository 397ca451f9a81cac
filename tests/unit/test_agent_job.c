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

#include "lib/cases/suite_lib.h"
#include "lib/skill/skill_lib.h"
#include "lib/store/store_lib.h"
#include "lib/eval/eval_job.h"
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

/* The skill arm's two conversations ran as tool loops, with these
 * counts. */
static void fill(struct plan *t)
{
    for (size_t i = 0; i < t->p.njobs; i++) {
        up_eval_job *j = &t->p.jobs[i];
        up_eval_agent_job *x;

        if (j->arm != UP_ARM_SKILL)
            continue;
        x = up_eval_job_agent(j);
        j->agent = 1;
        j->done = 1;
        x->llm_ms = 10.0 + (double)j->kase;
        x->refs_read = j->kase == 1;
        x->turns = 3;
        x->tool_calls = 4;
        x->tool_errors = 1;
        x->skill_read = j->kase == 0;
        x->tool_count[row("read_file")] = (up_eval_tool_count){2, 1};
        x->tool_count[row("write_file")].calls = 1;
        x->tool_count[row("unknown")].calls = j->kase == 1;
        x->tool_count[row("unknown")].errors = j->kase == 1;
    }
}

Test(agent_job, per_tool_counts_reach_the_run_record)
{
    struct plan t;
    up_run_record r;

    plan_init(&t);
    fill(&t);
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

/* A conversation's agent part, once its artifact is written, is summed
 * into its run's counters and let go (issue 15, item 6): the run record,
 * the arm totals and the skill-loaded flag read the same from the sums.
 * A conversation a limit ended keeps its part (the report prints why). */
Test(agent_job, folded_parts_sum_as_before)
{
    struct plan t;
    up_run_record r0, r1;
    up_eval_summary s0, s1;
    up_error err;
    up_eval_job *limited = NULL, *plain = NULL;

    plan_init(&t);
    fill(&t);
    for (size_t i = 0; i < t.p.njobs; i++)
        if (t.p.jobs[i].arm == UP_ARM_SKILL)
            *(t.p.jobs[i].kase ? &limited : &plain) = &t.p.jobs[i];
    up_eval_job_agent(limited)->limit = up_xstrdup("turn limit (3)");
    skill_record(&r0, &t);
    cr_assert_eq(up_eval_summarize(&t.p, 0, NULL, 1, &s0, &err), 0);
    for (size_t i = 0; i < t.p.njobs; i++)
        up_eval_job_fold_agent(&t.p, &t.p.jobs[i]);
    cr_assert_null(plain->ag);
    cr_assert(plain->folded);
    cr_assert(up_eval_job_skill_loaded(plain));
    cr_assert_not_null(limited->ag, "a limit keeps its part");
    cr_assert_not(limited->folded);
    cr_assert_not(up_eval_job_skill_loaded(limited));
    skill_record(&r1, &t);
    cr_assert_str_eq(r1.tool_call_map, r0.tool_call_map);
    cr_assert_str_eq(r1.tool_error_map, r0.tool_error_map);
    cr_assert_eq(r1.agent_convs, 2);
    cr_assert_eq(r1.tool_calls, r0.tool_calls);
    cr_assert_eq(r1.tool_errors, r0.tool_errors);
    cr_assert_eq(r1.model_turns, r0.model_turns);
    cr_assert_eq(r1.skill_reads, 1);
    cr_assert_eq(r1.llm_time_ms, 21.0);
    cr_assert_eq(r1.llm_time_ms, r0.llm_time_ms);
    cr_assert_eq(up_eval_summarize(&t.p, 0, NULL, 1, &s1, &err), 0);
    cr_assert_eq(s1.arm[UP_ARM_SKILL].agent_jobs, 2);
    cr_assert_eq(s1.arm[UP_ARM_SKILL].skill_reads, 1);
    cr_assert_eq(s1.arm[UP_ARM_SKILL].ref_reads, 1);
    cr_assert_eq(s1.arm[UP_ARM_SKILL].limited, 1);
    cr_assert_eq(s1.arm[UP_ARM_SKILL].turns, s0.arm[UP_ARM_SKILL].turns);
    cr_assert_eq(s1.arm[UP_ARM_SKILL].tool_calls,
                 s0.arm[UP_ARM_SKILL].tool_calls);
    cr_assert_eq(s1.arm[UP_ARM_SKILL].tool_errors,
                 s0.arm[UP_ARM_SKILL].tool_errors);
    cr_assert_eq(s1.arm[UP_ARM_BASELINE].agent_jobs, 0);
    up_run_record_release(&r0);
    up_run_record_release(&r1);
    plan_release(&t);
}
