/*
 * Unit tests for the decision core of `upskill select`: three students
 * of known quality and price, the cheapest that clears is chosen, and a
 * suite too small to tell says "not enough evidence".
 */
#include <string.h>

#include <criterion/criterion.h>

#include "upskill/upskill.h"

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

    cr_assert_eq(up_select_decide(rows, &chosen, c, 4, 0.8, &err), 0);
    cr_expect_eq(chosen, 1);
    cr_expect_eq(rows[1].why, UP_SELECT_CHOSEN);
    cr_expect_eq(rows[0].why, UP_SELECT_RUNNER_UP);
    cr_expect_eq(rows[2].why, UP_SELECT_TOO_WEAK);
    cr_expect_eq(rows[3].why, UP_SELECT_TOO_EXPENSIVE);
    cr_expect_str_eq(up_select_why_label(rows[2].why), "too weak");
}

Test(select, small_suite_is_not_enough_evidence)
{
    up_select_cand c[] = {cand("mid", 1, 9, 10, 1, 1.0)};
    up_select_row rows[1];
    size_t chosen = 99;
    up_error err = {0};

    cr_assert_eq(up_select_decide(rows, &chosen, c, 1, 0.8, &err), 0);
    cr_expect_eq(chosen, 1); /* none clears */
    cr_expect_eq(rows[0].why, UP_SELECT_UNSURE);
    cr_expect_str_eq(up_select_why_label(rows[0].why), "not enough evidence");
    cr_expect_gt(rows[0].more_trials, 0);
    /* after the extra trials at the same rate the interval clears */
    {
        double lo, hi;
        size_t n = 10 + rows[0].more_trials;

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

    cr_assert_eq(up_select_decide(rows, &chosen, c, 2, 0.8, &err), 0);
    cr_expect_eq(chosen, 0);
    cr_expect_lt(rows[0].cost_per_pass, 0);
}

Test(select, target_out_of_range_is_refused)
{
    up_select_row rows[1];
    size_t chosen;
    up_error err = {0};

    cr_expect_eq(up_select_decide(rows, &chosen, NULL, 0, 1.5, &err),
                 UP_EINVALID);
    cr_expect_eq(up_select_trials_for(0.8, 0.8), 0);
}

Test(select, candidates_from_summaries)
{
    up_eval_summary s[1];
    up_select_cand c[2];

    memset(s, 0, sizeof(s));
    s[0].model = "m";
    s[0].arm[UP_ARM_BASELINE].rate.successes = 3;
    s[0].arm[UP_ARM_BASELINE].cost_usd = -1; /* no price */
    s[0].arm[UP_ARM_SKILL].rate.successes = 9;
    s[0].arm[UP_ARM_SKILL].cost_usd = 0.5;
    cr_assert_eq(up_select_from_summaries(c, s, 1), 2);
    cr_expect_str_eq(c[0].model, "m");
    cr_expect_eq(c[0].skill, 0);
    cr_expect_eq(c[0].priced, 0);
    cr_expect_eq(c[0].rate.successes, 3);
    cr_expect_eq(c[1].skill, 1);
    cr_expect_eq(c[1].priced, 1);
    cr_expect_float_eq(c[1].cost, 0.5, 1e-12);
}
