/*
 * Unit tests for `upskill compare` (upskill/ab.h, docs/compare.md): the
 * cases that differ, the verdicts worded for A and B, and the plan whose
 * baseline arm carries skill A (prompts, batch identity, run records).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "lib/cases/suite_lib.h"
#include "lib/skill/skill_lib.h"
#include "lib/store/store_lib.h"
#include "lib/eval/eval_job.h"
#include "lib/report/report_int.h"
#include "upskill/upskill.h"

#define C(ap, ar, bp, br)                                                      \
    {                                                                          \
        ap, ar, bp, br, 0.0, 0.0, 0, 0                                         \
    }

Test(ab, diffs_sorted_by_size_then_case_order)
{
    const up_stats_case c[] = {
        C(1, 2, 2, 2), /* +50 */
        C(2, 2, 2, 2), /* the same */
        C(0, 2, 2, 2), /* +100 */
        C(2, 2, 0, 2), /* -100 */
        C(1, 2, 2, 4), /* 1/2 and 2/4: the same rate */
        C(0, 0, 2, 2), /* A never answered: no evidence */
        C(0, 2, 0, 0), /* B never answered */
        C(2, 2, 1, 2), /* -50 */
    };
    up_ab_case d[8];
    size_t n = up_ab_diffs(d, c, 8);

    cr_assert_eq(n, 4);
    cr_expect_eq(d[0].kase, 2);
    cr_expect_eq(d[1].kase, 3);
    cr_expect_eq(d[2].kase, 0);
    cr_expect_eq(d[3].kase, 7);
    cr_expect_float_eq(d[0].diff, 1.0, 1e-12);
    cr_expect_float_eq(d[1].diff, -1.0, 1e-12);
    cr_expect_eq(d[1].a_pass, 2);
    cr_expect_eq(d[1].a_runs, 2);
    cr_expect_eq(d[1].b_pass, 0);
    cr_expect_eq(d[1].b_runs, 2);
}

Test(ab, none_differ)
{
    const up_stats_case c[] = {C(1, 1, 1, 1), C(0, 1, 0, 1)};
    up_ab_case d[2];

    cr_expect_eq(up_ab_diffs(d, c, 2), 0);
    cr_expect_eq(up_ab_diffs(d, c, 0), 0);
}

Test(ab, verdict_labels_speak_of_a_and_b)
{
    cr_expect_str_eq(up_ab_verdict_label(UP_VERDICT_BENEFICIAL), "B is better");
    cr_expect_str_eq(up_ab_verdict_label(UP_VERDICT_HARMFUL), "B is worse");
    cr_expect_str_eq(up_ab_verdict_label(UP_VERDICT_TOKEN_SAVER),
                     "B saves tokens");
    cr_expect_str_eq(up_ab_verdict_label(UP_VERDICT_NO_EFFECT),
                     "no meaningful effect");
    cr_expect_str_eq(up_ab_verdict_label(UP_VERDICT_INCONCLUSIVE),
                     "inconclusive");
    cr_expect_str_eq(up_ab_verdict_label(UP_VERDICT_NOT_MEASURED),
                     "not measured");
    cr_expect_str_eq(up_ab_verdict_label((up_verdict)99), "not measured");
}

/* n cases where A passes a of 2 runs and B b of 2. */
static void compare_n(up_comparison *out, size_t n, unsigned a, unsigned b)
{
    up_stats_case c[20];
    up_error err;

    for (size_t i = 0; i < n; i++)
        c[i] = (up_stats_case)C(a, 2, b, 2);
    cr_assert_eq(up_stats_compare(out, c, n, 1, 0.05, &err), 0);
}

Test(ab, verdict_text_direction)
{
    up_comparison cmp;
    up_buf b = UP_BUF_INIT;

    compare_n(&cmp, 20, 0, 2);
    up_ab_verdict_text(&b, &cmp);
    cr_expect(!strncmp(b.data, "B is better: a lift of ", 23), "%s", b.data);
    compare_n(&cmp, 20, 2, 0);
    up_buf_reset(&b);
    up_ab_verdict_text(&b, &cmp);
    cr_expect(!strncmp(b.data, "B is worse: a drop of ", 22), "%s", b.data);
    up_buf_release(&b);
}

Test(ab, a_skill_against_itself_is_never_better)
{
    up_comparison cmp;

    for (unsigned k = 0; k <= 2; k++) {
        compare_n(&cmp, 20, k, k);
        cr_expect_neq(cmp.verdict, UP_VERDICT_BENEFICIAL, "%u of 2", k);
        cr_expect_neq(cmp.verdict, UP_VERDICT_HARMFUL, "%u of 2", k);
    }
}

/* ---- the plan with skill A in the baseline arm --------------------------- */

struct abplan {
    up_skill a, b;
    up_suite suite;
    up_eval_plan p;
};

static void skill(up_skill *s, const char *name, const char *body)
{
    up_skill_init(s);
    s->name = up_xstrdup(name);
    s->description = up_xstrdup("a test skill");
    s->body = up_xstrdup(body);
}

static void abplan_init(struct abplan *t, const char *body_a, int with_a)
{
    static const char tests[] =
        "[{\"input\": \"first\", \"expected\": {\"contains\": [\"ok\"]}}]";
    const char *models[] = {"m"};

    skill(&t->a, "s", body_a);
    skill(&t->b, "s", "BODY-B");
    up_suite_init(&t->suite);
    cr_assert_eq(up_suite_parse(&t->suite, tests, strlen(tests), "t", "", NULL),
                 0);
    up_eval_plan_init(&t->p, &t->b, &t->suite, models, 1, 1, 1,
                      UP_INJECT_UPSKILL);
    if (with_a)
        up_eval_plan_set_base(&t->p, &t->a);
}

static void abplan_release(struct abplan *t)
{
    up_eval_plan_release(&t->p);
    up_suite_release(&t->suite);
    up_skill_release(&t->a);
    up_skill_release(&t->b);
}

Test(ab_plan, arm_zero_carries_skill_a)
{
    struct abplan t;
    size_t neutral = strlen(up_eval_neutral_prompt);

    abplan_init(&t, "BODY-A", 1);
    cr_expect_eq(up_eval_arm_skill(&t.p, UP_ARM_BASELINE), &t.a);
    cr_expect_eq(up_eval_arm_skill(&t.p, UP_ARM_SKILL), &t.b);
    cr_expect(!strncmp(t.p.system_base, up_eval_neutral_prompt, neutral));
    cr_expect(!strncmp(t.p.system_skill, up_eval_neutral_prompt, neutral));
    cr_expect(strstr(t.p.system_base, "BODY-A"));
    cr_expect(!strstr(t.p.system_base, "BODY-B"));
    cr_expect(strstr(t.p.system_skill, "BODY-B"));
    cr_expect_str_eq(up_eval_system(&t.p, &t.p.jobs[0]), t.p.system_base);
    cr_expect_eq(t.p.jobs[0].arm, UP_ARM_BASELINE);
    /* the same shape: only the two bodies differ */
    cr_expect_eq(strlen(t.p.system_base), strlen(t.p.system_skill));
    up_eval_plan_set_base(&t.p, NULL); /* back to a plain baseline */
    cr_expect_str_eq(t.p.system_base, up_eval_neutral_prompt);
    cr_expect_null(up_eval_arm_skill(&t.p, UP_ARM_BASELINE));
    abplan_release(&t);
}

Test(ab_plan, run_records_name_each_arms_skill)
{
    struct abplan t, e;
    up_run_record r;

    abplan_init(&t, "BODY-A", 1);
    up_run_record_init(&r);
    up_eval_run_totals(&r, &t.p, 0, 1, UP_ARM_BASELINE, NULL);
    cr_expect_str_eq(r.compare_arm, "A");
    cr_expect_str_eq(r.arm_skill, "s");
    cr_expect_str_eq(r.run_type, "baseline");
    up_run_record_release(&r);
    up_eval_run_totals(&r, &t.p, 0, 1, UP_ARM_SKILL, NULL);
    cr_expect_str_eq(r.compare_arm, "B");
    up_run_record_release(&r);
    abplan_init(&e, "BODY-A", 0);
    up_eval_run_totals(&r, &e.p, 0, 1, UP_ARM_BASELINE, NULL);
    cr_expect_null(r.compare_arm, "an eval's records say nothing of compare");
    cr_expect_null(r.arm_skill);
    up_run_record_release(&r);
    abplan_release(&t);
    abplan_release(&e);
}

static void rm_batch(char *dir)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/%s", dir, UP_EVAL_BATCH_PLAN);
    unlink(path);
    rmdir(dir);
}

Test(ab_plan, a_batch_remembers_skill_a)
{
    char dir[] = "/tmp/upskill-ab.XXXXXX";
    struct abplan t, other, e;
    up_error err;

    cr_assert_not_null(mkdtemp(dir));
    abplan_init(&t, "BODY-A", 1);
    abplan_init(&other, "BODY-A2", 1);
    abplan_init(&e, "BODY-A", 0);
    cr_assert_eq(up_eval_batch_mark(&t.p, dir, &err), 0, "%s", err.msg);
    cr_expect_eq(up_eval_batch_match(&t.p, dir, &err), 0, "%s", err.msg);
    cr_expect_eq(up_eval_batch_match(&other.p, dir, &err), UP_EPARSE);
    cr_expect(strstr(err.msg, "compared skill"), "%s", err.msg);
    cr_expect_eq(up_eval_batch_match(&e.p, dir, &err), UP_EPARSE,
                 "an eval does not resume a compare batch");
    cr_assert_eq(up_eval_batch_mark(&e.p, dir, &err), 0);
    cr_expect_eq(up_eval_batch_match(&t.p, dir, &err), UP_EPARSE,
                 "nor a compare an eval batch");
    abplan_release(&t);
    abplan_release(&other);
    abplan_release(&e);
    rm_batch(dir);
}

Test(ab_plan, skill_size_is_the_skill_arms_block)
{
    struct abplan t, e;
    up_eval_summary s, se;
    up_error err;

    abplan_init(&t, "A much longer body for skill A than B's", 1);
    abplan_init(&e, "x", 0);
    cr_assert_eq(up_eval_summarize(&t.p, 0, NULL, 1, &s, &err), 0);
    cr_assert_eq(up_eval_summarize(&e.p, 0, NULL, 1, &se, &err), 0);
    cr_expect_eq(s.skill_tokens, se.skill_tokens,
                 "B's size, whatever A's (no wrap-around)");
    cr_expect_lt(s.skill_tokens, 100);
    abplan_release(&t);
    abplan_release(&e);
}

/* compare's words and its report's come from one table: they agree on
 * every verdict (an eval batch's report keeps eval's words). */
Test(ab, the_report_words_a_compare_verdict_as_compare_does)
{
    up_report_batch b;
    char a[] = "A: s 1.0";

    memset(&b, 0, sizeof(b));
    for (int v = 0; v < UP_VERDICT_COUNT; v++)
        cr_expect_str_eq(up_report_verdict_label(&b, (up_verdict)v),
                         up_stats_verdict_label((up_verdict)v));
    b.arm_name[0] = a;
    for (int v = 0; v < UP_VERDICT_COUNT; v++)
        cr_expect_str_eq(up_report_verdict_label(&b, (up_verdict)v),
                         up_ab_verdict_label((up_verdict)v), "verdict %d", v);
}
