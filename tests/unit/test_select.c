/*
 * Unit tests for the decision core of `upskill select`: three students
 * of known quality and price, the cheapest that clears is chosen, and a
 * suite too small to tell says "not enough evidence"; the same against
 * another model's baseline (--beat) on paired cases.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "upskill/upskill.h"

static const up_select_goal target80 = {0.8, NULL, 0, 1, 0, 0};

static up_select_cand cand(const char *model, int skill, size_t s, size_t n,
                           int priced, double cost)
{
    up_select_cand c = {
        .model = model, .skill = skill, .priced = priced, .cost = cost};

    up_stats_rate(&c.rate, s, n);
    return c;
}

Test(select, cheapest_that_clears_wins)
{
    up_select_cand c[] = {
        cand("big", 0, 196, 200, 1, 20.0),  /* clears, expensive */
        cand("mid", 1, 190, 200, 1, 4.0),   /* clears, cheapest per pass */
        cand("small", 1, 100, 200, 1, 0.5), /* too weak */
        cand("free", 1, 197, 200, 0, 0.0),  /* clears, unpriced */
    };
    up_select_row rows[4];
    size_t chosen = 99;
    up_error err = {0};
    up_select_goal allow = target80;

    allow.allow_unpriced = 1;
    cr_assert_eq(up_select_decide(rows, &chosen, c, 4, &allow, &err), 0);
    cr_expect_eq(chosen, 1);
    cr_expect_eq(rows[1].why, UP_SELECT_CHOSEN);
    cr_expect_eq(rows[0].why, UP_SELECT_RUNNER_UP);
    cr_expect_eq(rows[2].why, UP_SELECT_TOO_WEAK);
    cr_expect_eq(rows[3].why, UP_SELECT_UNPRICED, "never too expensive");
    cr_expect_str_eq(up_select_why_label(rows[2].why), "too weak");
}

/* Issue 26, item 7: an unpriced candidate that meets the goal may be the
 * cheapest, so without --allow-unpriced no choice is made on cost, and
 * nobody is called "too expensive". */
Test(select, unpriced_contender_blocks_a_choice_on_cost)
{
    up_select_cand c[] = {
        cand("big", 0, 196, 200, 1, 20.0),
        cand("mid", 1, 190, 200, 1, 4.0),
        cand("free", 1, 197, 200, 0, 0.0),
    };
    up_select_row rows[3];
    size_t chosen = 99;
    up_error err = {0};

    cr_assert_eq(up_select_decide(rows, &chosen, c, 3, &target80, &err), 0);
    cr_expect_eq(chosen, 3, "none chosen");
    cr_expect_eq(rows[0].why, UP_SELECT_MEETS);
    cr_expect_eq(rows[1].why, UP_SELECT_MEETS);
    cr_expect_eq(rows[2].why, UP_SELECT_UNPRICED);
    cr_expect_str_eq(up_select_why_label(rows[0].why), "meets the goal");
}

/* Without any price, --allow-unpriced chooses by pass rate, never by the
 * order the models were given in. */
Test(select, without_prices_the_pass_rate_decides)
{
    up_select_cand c[] = {cand("tiny", 1, 185, 200, 0, 0.0),
                          cand("big", 0, 199, 200, 0, 0.0)};
    up_select_row rows[2];
    size_t chosen = 99;
    up_error err = {0};
    up_select_goal allow = {0.8, NULL, 0, 1, 1, 0};

    cr_assert_eq(up_select_decide(rows, &chosen, c, 2, &allow, &err), 0);
    cr_expect_eq(chosen, 1, "big passes more");
    cr_expect_eq(rows[0].why, UP_SELECT_RUNNER_UP);
}

/* Issue 26, item 9: a candidate whose conversations all errored was not
 * measured; it needs no "more cases". */
Test(select, all_errored_is_not_measured)
{
    up_select_cand c[] = {cand("dead", 1, 0, 0, 1, 0.0)};
    up_select_row rows[1];
    size_t chosen = 99;
    up_error err = {0};

    cr_assert_eq(up_select_decide(rows, &chosen, c, 1, &target80, &err), 0);
    cr_expect_eq(chosen, 1);
    cr_expect_eq(rows[0].why, UP_SELECT_NOT_MEASURED);
    cr_expect_eq(rows[0].more_cases, 0);
}

Test(select, small_suite_is_not_enough_evidence)
{
    up_select_cand c[] = {cand("mid", 1, 9, 10, 1, 1.0)};
    up_select_row rows[1];
    size_t chosen = 99;
    up_error err = {0};

    cr_assert_eq(up_select_decide(rows, &chosen, c, 1, &target80, &err), 0);
    cr_expect_eq(chosen, 1); /* none clears */
    cr_expect_eq(rows[0].why, UP_SELECT_UNSURE);
    cr_expect_str_eq(up_select_why_label(rows[0].why), "not enough evidence");
    cr_expect_gt(rows[0].more_cases, 0);
    /* after the extra trials at the same rate the interval clears */
    {
        double lo, hi;
        size_t n = 10 + rows[0].more_cases;

        up_stats_wilson((size_t)(0.9 * (double)n + 0.5), n, UP_STATS_Z95, &lo,
                        &hi);
        cr_expect_geq(lo, 0.8);
    }
}

Test(select, unpriced_is_chosen_only_when_alone)
{
    up_select_cand c[] = {cand("free", 0, 199, 200, 0, 0.0),
                          cand("weak", 0, 10, 200, 1, 1.0)};
    up_select_row rows[2];
    size_t chosen = 99;
    up_error err = {0};

    up_select_goal allow = target80;

    cr_assert_eq(up_select_decide(rows, &chosen, c, 2, &target80, &err), 0);
    cr_expect_eq(chosen, 2, "no choice on cost without --allow-unpriced");
    allow.allow_unpriced = 1;
    cr_assert_eq(up_select_decide(rows, &chosen, c, 2, &allow, &err), 0);
    cr_expect_eq(chosen, 0);
    cr_expect_lt(rows[0].cost_per_pass, 0);
}

Test(select, target_out_of_range_is_refused)
{
    up_select_row rows[1];
    size_t chosen;
    up_error err = {0};
    up_select_goal g = {1.5, NULL, 0, 1, 0, 0};

    cr_expect_eq(up_select_decide(rows, &chosen, NULL, 0, &g, &err),
                 UP_EINVALID);
    g = (up_select_goal){0, "ref", 0.6, 1, 0, 0};
    cr_expect_eq(up_select_decide(rows, &chosen, NULL, 0, &g, &err),
                 UP_EINVALID, "a margin over 50 points");
    cr_expect_eq(up_select_trials_for(0.8, 0.8), 0);
}

/* n cases: the first `good` pass in both arms, the rest in none. */
static up_select_model model(const char *name, size_t n, size_t base_good,
                             size_t skill_good, double cost)
{
    up_select_model m = {0};

    m.model = strdup(name);
    m.ncases = n;
    m.cases = calloc(n, sizeof(*m.cases));
    for (size_t k = 0; k < n; k++) {
        m.cases[k].base_runs = m.cases[k].skill_runs = 1;
        m.cases[k].base_pass = k < base_good;
        m.cases[k].skill_pass = k < skill_good;
    }
    m.cost[0] = m.cost[1] = cost;
    return m;
}

/* --beat big: mid with the skill passes what big passes and is cheaper;
 * mid's baseline and small are too weak.  The reference's baseline is no
 * candidate; its skill arm is. */
Test(select, beat_picks_the_cheapest_as_good)
{
    up_select_model m[3] = {model("big", 80, 80, 80, 8.0),
                            model("mid", 80, 0, 80, 1.0),
                            model("small", 80, 0, 0, 0.1)};
    /* each interval at 95%: the candidate logic alone (Bonferroni's
     * level: select_intervals_hold_for_every_candidate) */
    up_select_goal g = {0, "big", 0.05, 1, 0, UP_STATS_ALPHA};
    up_select s;
    up_error err = {0};

    cr_assert_eq(up_select_run(&s, m, 3, &g, &err), 0, "%s", err.msg);
    cr_assert_eq(s.n, 5, "big's baseline is the bar, not a candidate");
    cr_expect_str_eq(s.ref->model, "big");
    cr_expect_float_eq(s.ref_rate.rate, 1.0, 1e-12);
    cr_expect_str_eq(s.c[s.chosen].model, "mid");
    cr_expect_eq(s.c[s.chosen].skill, 1);
    cr_expect_eq(s.rows[0].why, UP_SELECT_RUNNER_UP, "big with the skill");
    cr_expect_eq(s.rows[1].why, UP_SELECT_TOO_WEAK, "mid's baseline");
    cr_expect_float_eq(s.rows[1].vs.diff, -1.0, 1e-12);
    cr_expect_geq(s.rows[s.chosen].vs.ci_lo, -0.05);
    up_select_release(&s);
    for (int i = 0; i < 3; i++)
        up_select_model_release(&m[i]);
}

/* 30 tied cases cannot tell a 5-point loss from none: not enough
 * evidence, and the cases named settle it. */
Test(select, beat_on_a_small_suite_is_not_enough_evidence)
{
    up_select_model m[2] = {model("big", 30, 30, 30, 8.0),
                            model("mid", 30, 0, 30, 1.0)};
    up_select_goal g = {0, "big", 0.05, 1, 0, UP_STATS_ALPHA};
    up_select s;
    up_error err = {0};
    up_paired d;
    size_t total;
    up_stats_case *v;

    cr_assert_eq(up_select_run(&s, m, 2, &g, &err), 0, "%s", err.msg);
    cr_expect_eq(s.chosen, s.n, "none meets the goal");
    cr_assert_eq(s.rows[2].why, UP_SELECT_UNSURE);
    cr_assert_gt(s.rows[2].more_cases, 0);
    total = 30 + s.rows[2].more_cases;
    v = calloc(total, sizeof(*v));
    for (size_t k = 0; k < total; k++)
        v[k] = (up_stats_case){1, 1, 1, 1, 0, 0, 0, 0};
    up_stats_lift(&d, v, total);
    cr_expect_geq(d.ci_lo, -0.05, "so many tied cases settle it");
    up_stats_lift(&d, v, total - 1);
    cr_expect_lt(d.ci_lo, -0.05, "one fewer does not");
    free(v);
    up_select_release(&s);
    for (int i = 0; i < 2; i++)
        up_select_model_release(&m[i]);
}

Test(select, beat_needs_the_reference)
{
    up_select_model m[1] = {model("mid", 3, 0, 3, 1.0)};
    up_select_goal g = {0, "big", 0.05, 1, 0, 0};
    up_select s;
    up_error err = {0};

    cr_expect_eq(up_select_run(&s, m, 1, &g, &err), UP_EINVALID);
    cr_expect(strstr(err.msg, "'big'"));
    up_select_release(&s);
    up_select_model_release(&m[0]);
}

/* Several runs per case: the paired t interval (eval's lift with
 * --runs > 1) decides, and the cases named settle it. */
Test(select, beat_with_runs_uses_the_t_interval)
{
    up_select_model m[2] = {model("big", 10, 10, 10, 8.0),
                            model("mid", 10, 0, 10, 1.0)};
    up_select_goal g = {0, "big", 0.05, 3, 0, UP_STATS_ALPHA};
    up_select s;
    up_error err = {0};
    size_t need;

    for (int i = 0; i < 2; i++)
        for (size_t k = 0; k < 10; k++) {
            up_stats_case *c = &m[i].cases[k];

            c->base_pass *= 3, c->skill_pass *= 3;
            c->base_runs = c->skill_runs = 3;
        }
    cr_assert_eq(up_select_run(&s, m, 2, &g, &err), 0, "%s", err.msg);
    cr_assert_eq(s.rows[2].vs.pmethod, UP_P_T);
    cr_assert_eq(s.rows[2].why, UP_SELECT_UNSURE, "[%g, %g]",
                 s.rows[2].vs.ci_lo, s.rows[2].vs.ci_hi);
    need = up_select_cases_for(s.c[2].vs, s.c[2].nvs, -0.05);
    cr_expect_gt(need, 10);
    cr_expect_eq(s.rows[2].more_cases, need - 10);
    up_select_release(&s);
    for (int i = 0; i < 2; i++)
        up_select_model_release(&m[i]);
}

/* n cases of runs 3 repeating the pattern 3/3, 3/3, 3/3, 3/3, 0/3 (a
 * pass rate of 0.8 whose repeats are correlated: n_eff < trials). */
static up_rate corr_rate(size_t n)
{
    unsigned *k = calloc(n, sizeof(*k)), *m = calloc(n, sizeof(*m));
    up_rate r;

    for (size_t i = 0; i < n; i++)
        k[i] = i % 5 == 4 ? 0 : 3, m[i] = 3;
    up_stats_rate_cases(&r, k, m, n);
    free(k);
    free(m);
    return r;
}

/* Issue 26, item 8: with --runs > 1 the "more cases" count is in the
 * effective sample size the interval uses, so that many more cases like
 * these settle the question by the interval shown; counted in raw
 * trials (the old way) it promised too few. */
Test(select, more_cases_use_the_effective_sample_size)
{
    up_select_cand c = {.model = "m", .skill = 1, .priced = 1, .cost = 1};
    up_select_goal g = {0.7, NULL, 0, 3, 0, 0};
    up_select_row row;
    size_t chosen, need, raw;
    up_rate grown;
    up_error err = {0};

    c.rate = corr_rate(40);
    cr_assert_lt(c.rate.n_eff, (double)c.rate.trials - 1, "correlated");
    cr_assert_eq(up_select_decide(&row, &chosen, &c, 1, &g, &err), 0);
    cr_assert_eq(row.why, UP_SELECT_UNSURE, "lo %g", c.rate.lo);
    need = up_select_trials_for(c.rate.rate, g.target);
    raw = need > c.rate.trials ? (need - c.rate.trials + 2) / 3 : 0;
    cr_expect_gt(row.more_cases, raw, "the two methods differ here");
    grown = corr_rate(40 + row.more_cases);
    cr_expect_geq(grown.lo, g.target, "%zu more: [%g, %g]", row.more_cases,
                  grown.lo, grown.hi);
    grown = corr_rate(40 + raw);
    cr_expect_lt(grown.lo, g.target, "the raw count did not settle it");
}

/* By default every interval is at 1 - 0.05 / candidates (Bonferroni), so
 * that all hold at once: wider than 95%, and the 80 tied cases that meet
 * "within 5 points" at 95% (beat_picks_the_cheapest_as_good) no longer
 * do at 99%. */
Test(select, intervals_hold_for_every_candidate)
{
    up_select_model m[3] = {model("big", 80, 80, 80, 8.0),
                            model("mid", 80, 0, 80, 1.0),
                            model("small", 80, 0, 0, 0.1)};
    up_select_goal g = {0, "big", 0.05, 1, 0, 0};
    up_select s;
    up_error err = {0};
    up_rate r95;

    cr_assert_eq(up_select_run(&s, m, 3, &g, &err), 0, "%s", err.msg);
    cr_expect_float_eq(s.alpha, 0.05 / 5, 1e-15, "5 candidates");
    up_stats_arm_rate(&r95, m[1].cases, 80, 1);
    cr_expect_lt(s.c[2].rate.lo, r95.lo, "a wider interval than 95%%");
    cr_expect_lt(s.rows[2].vs.ci_lo, -0.05, "[%g, %g]", s.rows[2].vs.ci_lo,
                 s.rows[2].vs.ci_hi);
    cr_expect_eq(s.rows[2].why, UP_SELECT_UNSURE,
                 "mid with the skill: not enough evidence at 99%%");
    up_select_release(&s);
    for (int i = 0; i < 3; i++)
        up_select_model_release(&m[i]);
}
