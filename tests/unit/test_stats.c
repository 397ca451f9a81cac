/*
 * Unit tests for the statistics module, against hand-computed and
 * textbook values (docs/statistics.md shows the arithmetic).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "upskill/upskill.h"

#define EPS 1e-9

/* ---- Wilson ---- */

static const struct {
    size_t s, n;
    double lo, hi; /* z = 1.959964, values from the formula to 1e-4 */
} wilson_cases[] = {
    {0, 10, 0.0, 0.2775},      {10, 10, 0.7225, 1.0}, {5, 10, 0.2366, 0.7634},
    {81, 263, 0.2553, 0.3662}, {1, 1, 0.2065, 1.0},   {0, 1, 0.0, 0.7935},
    {0, 0, 0.0, 1.0},          {12, 10, 0.7225, 1.0}, /* s > n clamps */
};

Test(stats, wilson_table)
{
    size_t ncases = sizeof(wilson_cases) / sizeof(wilson_cases[0]);

    for (size_t i = 0; i < ncases; i++) {
        double lo, hi;

        up_stats_wilson(wilson_cases[i].s, wilson_cases[i].n, UP_STATS_Z95, &lo,
                        &hi);
        cr_expect(fabs(lo - wilson_cases[i].lo) < 5e-5, "case %zu lo %f", i,
                  lo);
        cr_expect(fabs(hi - wilson_cases[i].hi) < 5e-5, "case %zu hi %f", i,
                  hi);
    }
}

Test(stats, wilson_extremes_exact)
{
    double lo, hi;

    up_stats_wilson(0, 7, UP_STATS_Z95, &lo, &hi);
    cr_assert_eq(lo, 0.0);
    up_stats_wilson(7, 7, UP_STATS_Z95, &lo, &hi);
    cr_assert_eq(hi, 1.0);
}

Test(stats, rate_empty_is_defined)
{
    up_rate r;

    up_stats_rate(&r, 0, 0);
    cr_assert_eq(r.rate, 0.0);
    cr_assert_eq(r.lo, 0.0);
    cr_assert_eq(r.hi, 1.0);
    up_stats_rate(&r, 3, 4);
    cr_assert_float_eq(r.rate, 0.75, EPS);
    cr_assert(r.lo < 0.75 && r.hi > 0.75);
}

/* ---- sign-flip = McNemar's exact test ---- */

/* Two-sided exact binomial (McNemar) p from the textbook formula. */
static double mcnemar_exact(unsigned b, unsigned c)
{
    unsigned m = b + c, k = b < c ? b : c;
    double tail = 0.0, coef = 1.0;

    for (unsigned i = 0; i <= k; i++) {
        tail += coef;
        coef = coef * (m - i) / (i + 1);
    }
    tail = 2.0 * tail * pow(0.5, m);
    return tail > 1.0 ? 1.0 : tail;
}

/* b cases +1, c cases -1, z cases 0 into d; returns the count. */
static size_t discordant(double *d, unsigned b, unsigned c, unsigned z)
{
    size_t n = 0;

    for (unsigned i = 0; i < b; i++)
        d[n++] = 1.0;
    for (unsigned i = 0; i < z; i++)
        d[n++] = 0.0;
    for (unsigned i = 0; i < c; i++)
        d[n++] = -1.0;
    return n;
}

static const struct {
    unsigned b, c, z;
    double p; /* hand-computed where shown, else 0: use the formula */
} mcnemar_cases[] = {
    {8, 2, 5, 0.109375},                   /* 2 * (1 + 10 + 45) / 1024 */
    {6, 0, 0, 0.03125},                    /* 2 / 64 */
    {5, 0, 3, 0.0625},                     /* 2 / 32 */
    {0, 7, 1, 0.015625},                   /* 2 / 128 */
    {10, 10, 0, 1.0},    {3, 1, 2, 0.625}, /* 2 * 5 / 16 */
    {1, 0, 0, 1.0},      {0, 0, 9, 1.0},   {30, 15, 4, 0},
    {25, 5, 0, 0},       {40, 25, 10, 0},  {100, 70, 0, 0},
};

Test(stats, signflip_equals_mcnemar)
{
    size_t ncases = sizeof(mcnemar_cases) / sizeof(mcnemar_cases[0]);
    double d[200];

    for (size_t i = 0; i < ncases; i++) {
        unsigned b = mcnemar_cases[i].b, c = mcnemar_cases[i].c;
        size_t n = discordant(d, b, c, mcnemar_cases[i].z);
        double want = mcnemar_exact(b, c);
        int how = -1;
        double p = up_stats_signflip(d, n, 1, 0, &how);

        if (mcnemar_cases[i].p > 0)
            cr_expect_float_eq(want, mcnemar_cases[i].p, 1e-12, "formula %zu",
                               i);
        cr_expect(fabs(p - want) <= 1e-12 * want + 1e-15,
                  "case %zu: p %.17g want %.17g", i, p, want);
        cr_expect(how == (b + c ? UP_P_LATTICE : UP_P_TRIVIAL), "case %zu", i);
    }
}

/* Real-valued differences: hand enumeration of the 8 sign patterns. */
static const struct {
    double d[3];
    double p;
} enum_cases[] = {
    {{1, 2, 3}, 0.25},             /* |sum| 6: only +++ and --- */
    {{3, 2, -1}, 0.5},             /* |sum| 4: sums 6,4,2,0,0,-2,-4,-6 */
    {{3, -1, -1}, 1.0},            /* |sum| 1: every pattern is as extreme */
    {{2.0 / 3, 1.0 / 3, 1}, 0.25}, /* rates over 3 runs */
};

Test(stats, signflip_enum_and_lattice_agree)
{
    size_t ncases = sizeof(enum_cases) / sizeof(enum_cases[0]);

    for (size_t i = 0; i < ncases; i++) {
        double scaled[3];
        int how1, how2;
        double p1 = up_stats_signflip(enum_cases[i].d, 3, 7, 0, &how1);

        /* An irrational scale leaves p unchanged but defeats the lattice. */
        for (int j = 0; j < 3; j++)
            scaled[j] = enum_cases[i].d[j] * M_SQRT2;
        double p2 = up_stats_signflip(scaled, 3, 7, 0, &how2);

        cr_expect_float_eq(p1, enum_cases[i].p, 1e-12, "case %zu", i);
        cr_expect_float_eq(p2, enum_cases[i].p, 1e-12, "case %zu", i);
        cr_expect_eq(how1, UP_P_LATTICE);
        cr_expect_eq(how2, UP_P_ENUM);
    }
}

Test(stats, signflip_enum_twenty)
{
    double d[20];
    int how;

    /* 15 up, 5 down, all the same size: the binomial again, by brute force */
    for (int i = 0; i < 20; i++)
        d[i] = (i < 15 ? 1.0 : -1.0) * M_SQRT2;
    double p = up_stats_signflip(d, 20, 7, 0, &how);

    cr_assert_eq(how, UP_P_ENUM);
    cr_assert_float_eq(p, mcnemar_exact(15, 5), 1e-12);
}

Test(stats, signflip_monte_carlo_is_seeded_and_close)
{
    double d[40], scaled[40];
    int how, how2;

    discordant(d, 28, 12, 0);
    for (int i = 0; i < 40; i++)
        scaled[i] = d[i] * M_SQRT2;
    double exact = up_stats_signflip(d, 40, 3, 0, NULL);
    double p1 = up_stats_signflip(scaled, 40, 3, 20000, &how);
    double p2 = up_stats_signflip(scaled, 40, 3, 20000, &how2);

    cr_assert_eq(how, UP_P_MONTE_CARLO);
    cr_assert_eq(p1, p2, "same seed must give the same estimate");
    cr_assert(fabs(p1 - exact) < 0.01, "mc %f exact %f", p1, exact);
    cr_assert(p1 > 0.0);
}

/* ---- paired analysis ---- */

Test(stats, paired_bootstrap_reproducible)
{
    double base[12] = {1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    double skill[12] = {1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1};
    up_paired a, b;

    cr_assert_eq(up_stats_paired(&a, base, skill, 12, 42, 0, NULL), 0);
    cr_assert_eq(up_stats_paired(&b, base, skill, 12, 42, 0, NULL), 0);
    cr_assert_eq(a.ci_lo, b.ci_lo);
    cr_assert_eq(a.ci_hi, b.ci_hi);
    cr_assert_float_eq(a.diff, 4.0 / 12, EPS);
    cr_assert(a.ci_lo <= a.diff && a.diff <= a.ci_hi);
    cr_assert(a.ci_lo >= 0.0 && a.ci_hi <= 1.0);
    cr_assert_eq(a.better, 4);
    cr_assert_eq(a.worse, 0);
    cr_assert_float_eq(a.p, 0.125, 1e-12); /* 4 discordant: 2/16 */
    cr_assert_float_eq(a.m2, 4.0 / 12, EPS);
}

Test(stats, paired_bootstrap_seed_matters)
{
    double base[8] = {0};
    double skill[8] = {0.13, 0.71, -0.2, 0.44, 0.05, 0.9, -0.33, 0.27};
    up_paired a, b, c;

    cr_assert_eq(up_stats_paired(&a, base, skill, 8, 1, 0, NULL), 0);
    cr_assert_eq(up_stats_paired(&b, base, skill, 8, 1, 0, NULL), 0);
    cr_assert_eq(up_stats_paired(&c, base, skill, 8, 2, 0, NULL), 0);
    cr_assert_eq(a.ci_lo, b.ci_lo);
    cr_assert_eq(a.ci_hi, b.ci_hi);
    cr_assert(a.ci_lo != c.ci_lo || a.ci_hi != c.ci_hi);
    cr_assert_float_eq(a.diff, 1.97 / 8, EPS);
    cr_assert(a.ci_lo < a.diff && a.diff < a.ci_hi);
    cr_assert(c.ci_lo < c.diff && c.diff < c.ci_hi);
    /* a resampled mean lies between the smallest and largest value */
    cr_assert(a.ci_lo > -0.33 && a.ci_hi < 0.9);
    /* multiples of 1/100: p by the exact integer-sum method */
    cr_assert_eq(a.pmethod, UP_P_LATTICE);
}

Test(stats, paired_empty)
{
    up_paired p;
    up_buf b = UP_BUF_INIT;

    cr_assert_eq(up_stats_paired(&p, NULL, NULL, 0, 1, 0, NULL), 0);
    cr_assert_eq(p.n, 0);
    cr_assert_eq(p.diff, 0.0);
    cr_assert_eq(p.p, 1.0);
    cr_assert_eq(p.ci_lo, 0.0);
    cr_assert_eq(p.ci_hi, 0.0);
    cr_assert_eq(up_stats_verdict(&p, &p, UP_STATS_MARGIN),
                 UP_VERDICT_NOT_MEASURED);
    up_buf_release(&b);
}

Test(stats, paired_one_case)
{
    double base = 0.0, skill = 1.0;
    up_paired p;

    cr_assert_eq(up_stats_paired(&p, &base, &skill, 1, 1, 0, NULL), 0);
    cr_assert_eq(p.diff, 1.0);
    cr_assert_eq(p.p, 1.0);
    cr_assert_eq(p.ci_lo, 1.0);
    cr_assert_eq(p.ci_hi, 1.0);
}

static const struct {
    double base, skill; /* the same value on all 10 cases */
    double p;
} extreme_cases[] = {
    {1, 1, 1.0},              /* all pass, identical */
    {0, 0, 1.0},              /* all fail, identical */
    {0, 1, 2.0 / 1024},       /* perfect lift */
    {1, 0, 2.0 / 1024},       /* perfect harm */
    {0.5, 0.5, 1.0},          /* identical rates */
    {1.0 / 3, 1, 2.0 / 1024}, /* runs > 1 */
};

Test(stats, paired_extremes)
{
    size_t ncases = sizeof(extreme_cases) / sizeof(extreme_cases[0]);

    for (size_t i = 0; i < ncases; i++) {
        double base[10], skill[10];
        up_paired p;
        double d = extreme_cases[i].skill - extreme_cases[i].base;

        for (int j = 0; j < 10; j++) {
            base[j] = extreme_cases[i].base;
            skill[j] = extreme_cases[i].skill;
        }
        cr_assert_eq(up_stats_paired(&p, base, skill, 10, 9, 0, NULL), 0);
        cr_expect_float_eq(p.p, extreme_cases[i].p, 1e-12, "case %zu", i);
        cr_expect_float_eq(p.diff, d, EPS, "case %zu", i);
        cr_expect_float_eq(p.ci_lo, d, EPS, "case %zu", i);
        cr_expect_float_eq(p.ci_hi, d, EPS, "case %zu", i);
    }
}

Test(stats, paired_rejects_nan)
{
    double base[2] = {0, NAN}, skill[2] = {1, 1};
    up_error err = {0};
    up_paired p;

    cr_assert_eq(up_stats_paired(&p, base, skill, 2, 1, 0, &err), UP_EINVALID);
    cr_assert_str_eq(err.msg,
                     "stats: baseline value for case 1 is not a finite number");
    cr_assert_eq(p.p, 1.0);
}

static const struct {
    double lift, savings;
    int want;
} upstream_cases[] = {
    {0.06, 0.0, 1}, {0.05, 0.0, 0},  {0.0, 0.21, 1},
    {0.0, 0.2, 0},  {-0.01, 0.9, 0}, {0.2, -1.0, 1},
};

Test(stats, upstream_is_beneficial)
{
    size_t ncases = sizeof(upstream_cases) / sizeof(upstream_cases[0]);

    for (size_t i = 0; i < ncases; i++)
        cr_expect_eq(up_stats_is_beneficial(upstream_cases[i].lift,
                                            upstream_cases[i].savings),
                     upstream_cases[i].want, "case %zu", i);
    cr_assert_eq(up_stats_token_savings(0, 100), 0.0);
    cr_assert_float_eq(up_stats_token_savings(1000, 800), 0.2, EPS);
}

/* ---- power ---- */

Test(stats, min_discordant)
{
    cr_assert_eq(up_stats_min_discordant(0.05), 6); /* 2/64 < .05 <= 2/32 */
    cr_assert_eq(up_stats_min_discordant(0.01), 8); /* 2/256 < .01 */
    cr_assert_eq(up_stats_min_discordant(0.1), 5);  /* 2/32 < .1 <= 2/16 */
}

/* ---- the whole comparison ---- */

Test(stats, compare_runs)
{
    /* 3 runs per arm; the skill passes more and uses fewer tokens */
    up_stats_case c[6] = {
        {0, 3, 3, 3, 3000, 2400, 0, 0}, {1, 3, 3, 3, 3000, 2400, 0, 0},
        {0, 3, 2, 3, 3000, 2400, 0, 0}, {3, 3, 3, 3, 3000, 2400, 0, 0},
        {0, 3, 1, 3, 3000, 2400, 0, 0}, {2, 3, 3, 3, 3000, 2400, 0, 0},
    };
    up_comparison cmp;

    cr_assert_eq(up_stats_compare(&cmp, c, 6, 11, UP_STATS_MARGIN, NULL), 0);
    cr_assert_eq(cmp.base.successes, 6);
    cr_assert_eq(cmp.base.trials, 18);
    cr_assert_eq(cmp.skill.successes, 15);
    cr_assert_float_eq(cmp.lift.diff, 9.0 / 18, EPS);
    /* runs > 1: the t-test on per-case differences */
    cr_assert_eq(cmp.lift.pmethod, UP_P_T);
    cr_assert(cmp.lift.p < 0.05 && cmp.lift.ci_lo > 0);
    cr_assert_float_eq(cmp.tokens.base_mean, 1000, EPS);
    cr_assert_float_eq(cmp.tokens.skill_mean, 800, EPS);
    cr_assert_float_eq(cmp.token_change, -0.2, EPS);
    cr_assert_float_eq(cmp.token_savings, 0.2, EPS);
    cr_assert_float_eq(cmp.tokens.p, 2.0 / 64, 1e-12);
    cr_assert_eq(cmp.is_beneficial, 1);
    cr_assert_eq(cmp.verdict, UP_VERDICT_BENEFICIAL);
    cr_assert_eq(cmp.paired, 6);
    cr_assert_eq(cmp.runs, 3);
}

Test(stats, compare_empty)
{
    up_comparison cmp;

    cr_assert_eq(up_stats_compare(&cmp, NULL, 0, 1, UP_STATS_MARGIN, NULL), 0);
    cr_assert_eq(cmp.base.rate, 0.0);
    cr_assert_eq(cmp.base.hi, 1.0);
    cr_assert_eq(cmp.lift.p, 1.0);
    cr_assert_eq(cmp.is_beneficial, 0);
    cr_assert_eq(cmp.verdict, UP_VERDICT_NOT_MEASURED);
}

static const struct {
    up_stats_case c;
    const char *msg;
} bad_cases[] = {
    {{2, 1, 1, 1, 0, 0, 0, 0}, "stats: case 1: more passes than runs"},
    {{1, 1, 1, 1, -5, 0, 0, 0},
     "stats: case 1: tokens must be finite and not negative"},
    {{1, 1, 1, 1, 0, INFINITY, 0, 0},
     "stats: case 1: tokens must be finite and not negative"},
    {{1, 1, 1, 1, 0, 0, 0, 2},
     "stats: case 1: more runs without tokens than runs"},
};

Test(stats, compare_rejects_bad_cases)
{
    size_t ncases = sizeof(bad_cases) / sizeof(bad_cases[0]);

    for (size_t i = 0; i < ncases; i++) {
        up_stats_case c[2] = {{1, 1, 1, 1, 10, 10, 0, 0}, bad_cases[i].c};
        up_error err = {0};
        up_comparison cmp;

        cr_expect_eq(up_stats_compare(&cmp, c, 2, 1, UP_STATS_MARGIN, &err),
                     UP_EINVALID);
        cr_expect_str_eq(err.msg, bad_cases[i].msg, "case %zu", i);
    }
}

/* Runs whose tokens are untold (a request that outgrew the context)
 * count in the pass rates and the lift, not in the token means: a skill
 * whose every run overflowed is harmful, not a token saver. */
Test(stats, untold_tokens_are_left_out)
{
    up_stats_case c[20];
    up_comparison cmp;

    for (size_t i = 0; i < 20; i++) /* baseline passes, 100 tokens */
        c[i] = (up_stats_case){1, 1, 0, 1, 100, 0, 0, 1};
    cr_assert_eq(up_stats_compare(&cmp, c, 20, 1, UP_STATS_MARGIN, NULL), 0);
    cr_expect_eq(cmp.paired, 20);
    cr_expect_eq(cmp.tokens.n, 0, "no case has tokens in both arms");
    cr_expect_eq(cmp.token_savings, 0.0);
    cr_expect_eq(cmp.verdict, UP_VERDICT_HARMFUL, "%s",
                 up_stats_verdict_label(cmp.verdict));
    /* half of a case's skill runs untold: the mean is over the rest */
    for (size_t i = 0; i < 20; i++)
        c[i] = (up_stats_case){1, 1, 1, 2, 100, 50, 0, 1};
    cr_assert_eq(up_stats_compare(&cmp, c, 20, 1, UP_STATS_MARGIN, NULL), 0);
    cr_expect_eq(cmp.tokens.n, 20);
    cr_expect_float_eq(cmp.tokens.skill_mean, 50.0, 1e-9);
    cr_expect_float_eq(cmp.tokens.base_mean, 100.0, 1e-9);
}

/* up_stats_rate_cases: Wilson at Kish's effective n (values from a
 * direct transcription of the formulas in docs/statistics.md). */
static void expect_rate(const up_rate *r, double n_eff, double lo, double hi)
{
    cr_expect(fabs(r->n_eff - n_eff) < 1e-9, "n_eff %f", r->n_eff);
    cr_expect(fabs(r->lo - lo) < 1e-9, "lo %f", r->lo);
    cr_expect(fabs(r->hi - hi) < 1e-9, "hi %f", r->hi);
}

Test(stats, clustered_rate_one_run_per_case_is_plain_wilson)
{
    unsigned k[] = {1, 0, 1, 1, 0}, m[] = {1, 1, 1, 1, 1};
    up_rate r, plain;

    up_stats_rate_cases(&r, k, m, 5);
    up_stats_rate(&plain, 3, 5);
    expect_rate(&r, 5.0, plain.lo, plain.hi);
    cr_expect_eq(r.successes, 3);
    cr_expect_eq(r.trials, 5);
}

Test(stats, clustered_rate_fully_clustered_counts_cases)
{
    /* Each case always passes or always fails: 30 runs say no more than
     * the 10 cases, so the interval is Wilson's 5 of 10. */
    unsigned k[] = {3, 3, 3, 3, 3, 0, 0, 0, 0, 0};
    unsigned m[] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
    up_rate r;

    up_stats_rate_cases(&r, k, m, 10);
    expect_rate(&r, 10.0, 0.236593090512564, 0.7634069094874361);
    cr_expect_eq(r.trials, 30);
    cr_expect_float_eq(r.rate, 0.5, 1e-12);
}

Test(stats, clustered_rate_no_case_effect_keeps_all_runs)
{
    /* Every case passes 1 of 2: the negative ICC estimate is clamped to
     * 0, so all 8 runs count (Wilson's 4 of 8). */
    unsigned k[] = {1, 1, 1, 1}, m[] = {2, 2, 2, 2};
    up_rate r;

    up_stats_rate_cases(&r, k, m, 4);
    expect_rate(&r, 8.0, 0.21521606221387757, 0.7847839377861224);
}

Test(stats, clustered_rate_partial_and_unequal_runs)
{
    unsigned k1[] = {2, 2, 0, 1}, m1[] = {2, 2, 2, 2};
    unsigned k2[] = {3, 1, 2, 0, 3, 2}, m2[] = {3, 2, 3, 3, 3, 2};
    up_rate r;

    up_stats_rate_cases(&r, k1, m1, 4); /* icc = 4/7, deff = 11/7 */
    expect_rate(&r, 56.0 / 11.0, 0.24924039876651288, 0.8932444703435012);
    up_stats_rate_cases(&r, k2, m2, 6);
    expect_rate(&r, 8.59684957590445, 0.36557368106256966, 0.8936109675385027);
}

Test(stats, clustered_rate_edges)
{
    unsigned all[] = {3, 3, 3}, none[] = {0, 0, 0}, m[] = {3, 3, 3};
    unsigned one_k[] = {2}, one_m[] = {5};
    up_rate r, plain;

    /* Nothing varies: counted as fully clustered (3 cases). */
    up_stats_rate_cases(&r, all, m, 3);
    up_stats_wilson(3, 3, UP_STATS_Z95, &plain.lo, &plain.hi);
    expect_rate(&r, 3.0, plain.lo, 1.0);
    up_stats_rate_cases(&r, none, m, 3);
    up_stats_wilson(0, 3, UP_STATS_Z95, &plain.lo, &plain.hi);
    expect_rate(&r, 3.0, 0.0, plain.hi);
    /* One case: its runs are the sample. */
    up_stats_rate_cases(&r, one_k, one_m, 1);
    up_stats_rate(&plain, 2, 5);
    expect_rate(&r, 5.0, plain.lo, plain.hi);
    /* No cases. */
    up_stats_rate_cases(&r, NULL, NULL, 0);
    expect_rate(&r, 0.0, 0.0, 1.0);
}

/* ---- Student's t (textbook table values) ---- */

Test(stats, t_quantiles_match_tables)
{
    static const struct {
        double df, q;
    } t975[] = {{1, 12.706205},
                {7, 2.364624},
                {9, 2.262157},
                {29, 2.045230},
                {1000, 1.962339}};

    for (size_t i = 0; i < sizeof(t975) / sizeof(*t975); i++)
        cr_expect(fabs(up_stats_t_quantile(0.975, t975[i].df) - t975[i].q) <
                      1e-5,
                  "df %g", t975[i].df);
    cr_expect(fabs(up_stats_t_cdf(2.0, 10) - 0.963306) < 1e-6);
    cr_expect(fabs(up_stats_t_cdf(-1.0, 1) - 0.25) < 1e-12);
    cr_expect_eq(up_stats_t_cdf(0.0, 5), 0.5);
}

/* ---- Tango's score interval and the score test ---- */

static const struct {
    size_t b, c, n;
    double lo, hi; /* from an independent implementation that maximises
                      the profile likelihood numerically */
} tango_cases[] = {
    {40, 20, 160, 0.030865, 0.218064}, /* PropCIs' scoreci.mp example */
    {1, 7, 21, -0.517232, -0.026003},  /* Bentur et al. 2009 */
    {12, 2, 50, 0.061112, 0.344709},
    {8, 0, 8, 0.351185, 1.0},       /* (1-d)/(1+d) = 1.96^2/8: not [1, 1] */
    {0, 0, 8, -0.324408, 0.324408}, /* d/(1-d) = 1.96^2/8 */
    {2, 1, 10, -0.280053, 0.453544},
};

Test(stats, tango_textbook)
{
    for (size_t i = 0; i < sizeof(tango_cases) / sizeof(*tango_cases); i++) {
        double lo, hi;

        up_stats_tango(tango_cases[i].b, tango_cases[i].c, tango_cases[i].n,
                       UP_STATS_Z95, &lo, &hi);
        cr_expect(fabs(lo - tango_cases[i].lo) < 1e-5, "case %zu lo %f", i, lo);
        cr_expect(fabs(hi - tango_cases[i].hi) < 1e-5, "case %zu hi %f", i, hi);
    }
    /* McNemar's z without correction: (8 - 2) / sqrt(10) = 1.897 */
    cr_expect(fabs(up_stats_score_p(8, 2) - 0.057780) < 1e-5);
    cr_expect_eq(up_stats_score_p(0, 0), 1.0);
}

/* The interval excludes 0 exactly when the test rejects, and never
 * collapses to a point (issue 10, defects 2 and 3). */
Test(stats, tango_agrees_with_its_test)
{
    for (size_t n = 1; n <= 40; n++)
        for (size_t b = 0; b <= n; b++)
            for (size_t c = 0; b + c <= n; c++) {
                double lo, hi;
                int rejects = up_stats_score_p(b, c) < UP_STATS_ALPHA;

                up_stats_tango(b, c, n, UP_STATS_Z95, &lo, &hi);
                cr_assert_eq(lo > 0 || hi < 0, rejects, "b %zu c %zu n %zu", b,
                             c, n);
                cr_assert(hi - lo > 0.05, "b %zu c %zu n %zu", b, c, n);
            }
}

/* n cases, all with the same counts. */
static void same_cases(up_stats_case *c, size_t n, unsigned bp, unsigned sp,
                       unsigned runs)
{
    for (size_t i = 0; i < n; i++)
        c[i] = (up_stats_case){bp,           runs,         sp, runs,
                               100.0 * runs, 100.0 * runs, 0,  0};
}

Test(stats, lift_t_never_zero_width)
{
    up_stats_case c[8];
    up_paired l;

    same_cases(c, 8, 0, 3, 3); /* every case: 0/3 -> 3/3 */
    up_stats_lift(&l, c, 8);
    cr_assert_eq(l.pmethod, UP_P_T);
    cr_assert_float_eq(l.diff, 1.0, EPS);
    cr_assert(l.ci_lo < 0.95 && l.ci_lo > 0.5, "lo %f", l.ci_lo);
    cr_assert_eq(l.ci_hi, 1.0);
    cr_assert(l.p < 0.05);
    same_cases(c, 8, 3, 3, 3); /* all pass in both arms */
    up_stats_lift(&l, c, 8);
    cr_assert(l.ci_lo < -0.05 && l.ci_hi > 0.05);
    cr_assert_eq(l.p, 1.0);
}

Test(stats, lift_t_agrees_with_its_test)
{
    uint64_t x = 7;

    for (int rep = 0; rep < 2000; rep++) {
        up_stats_case c[12];
        size_t n = 2 + (size_t)(rep % 11);
        up_paired l;

        for (size_t i = 0; i < n; i++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            c[i] = (up_stats_case){(unsigned)(x >> 33) % 4,
                                   3,
                                   (unsigned)(x >> 45) % 4,
                                   3,
                                   0,
                                   0,
                                   0,
                                   0};
        }
        up_stats_lift(&l, c, n);
        cr_assert_eq(l.ci_lo > 0 || l.ci_hi < 0, l.p < UP_STATS_ALPHA, "rep %d",
                     rep);
        cr_assert(l.ci_hi > l.ci_lo);
    }
}

/* ---- verdicts ---- */

/* n cases, one run: b better, c worse; tokens per case tb -> ts. */
static up_comparison cmp_of(size_t n, size_t b, size_t c, double tb, double ts)
{
    up_stats_case *cs = calloc(n, sizeof(*cs));
    up_comparison cmp;

    for (size_t i = 0; i < n; i++) {
        double jitter = (double)(i % 7);

        cs[i] = (up_stats_case){i >= b && i < b + c, 1,           i < b, 1,
                                tb + jitter,         ts + jitter, 0,     0};
    }
    cr_assert_eq(up_stats_compare(&cmp, cs, n, 5, UP_STATS_MARGIN, NULL), 0);
    free(cs);
    return cmp;
}

static const struct {
    size_t n, b, c;
    double tb, ts;
    up_verdict want;
} verdict_cases[] = {
    {10, 9, 0, 1000, 1000, UP_VERDICT_BENEFICIAL},
    {10, 0, 9, 1000, 1000, UP_VERDICT_HARMFUL},
    {10, 9, 0, 1000, 500, UP_VERDICT_BENEFICIAL}, /* lift wins */
    /* issue 10 defect 1: 60% -> 20% at half the tokens is no saver */
    {8, 0, 4, 1000, 500, UP_VERDICT_TRADE_OFF},
    {10, 1, 0, 1000, 800, UP_VERDICT_TRADE_OFF}, /* could drop 20 points */
    {400, 0, 0, 1000, 800, UP_VERDICT_TOKEN_SAVER},
    {400, 5, 5, 1000, 1000, UP_VERDICT_NO_EFFECT}, /* [-2.4, +2.4] */
    {10, 2, 1, 1000, 1000, UP_VERDICT_INCONCLUSIVE},
    {10, 5, 0, 1000, 1000, UP_VERDICT_BENEFICIAL}, /* z = 2.24 */
    {10, 0, 0, 1000, 1000, UP_VERDICT_INCONCLUSIVE},
    {10, 2, 1, 1000, 970, UP_VERDICT_INCONCLUSIVE}, /* -3%: not counted */
};

Test(stats, verdict_table)
{
    for (size_t i = 0; i < sizeof(verdict_cases) / sizeof(*verdict_cases);
         i++) {
        up_comparison c =
            cmp_of(verdict_cases[i].n, verdict_cases[i].b, verdict_cases[i].c,
                   verdict_cases[i].tb, verdict_cases[i].ts);

        cr_expect_eq(c.verdict, verdict_cases[i].want, "case %zu: got %s", i,
                     up_stats_verdict_label(c.verdict));
    }
}

Test(stats, verdict_names_and_words)
{
    up_comparison c = cmp_of(10, 2, 1, 1000, 1000);
    up_buf b = UP_BUF_INIT;

    cr_assert_str_eq(up_stats_verdict_id(UP_VERDICT_NO_EFFECT), "no_effect");
    cr_assert_str_eq(up_stats_verdict_label(UP_VERDICT_NO_EFFECT),
                     "no meaningful effect");
    cr_assert_null(up_stats_verdict_id(UP_VERDICT_NOT_MEASURED));
    cr_assert_null(up_stats_verdict_id((up_verdict)99));
    up_stats_verdict_text(&b, &c);
    cr_assert_str_eq(b.data, "inconclusive: the lift could be anywhere from "
                             "-28 to +45 points");
    up_buf_reset(&b);
    c = cmp_of(8, 0, 4, 1000, 500);
    up_stats_verdict_text(&b, &c);
    /* 0 better, 4 worse of 8: z = 2, significant */
    cr_assert_str_eq(b.data, "trade-off: 50% fewer tokens, but the pass rate "
                             "drops by 1 to 78 points");
    up_buf_release(&b);
}

/* Issue 9: a case without an answered run in an arm is not paired; with
 * none paired there is no verdict at all, and no upstream "beneficial". */
Test(stats, compare_pairs_only_answered_cases)
{
    up_stats_case c[4] = {
        {0, 1, 0, 0, 100, 0, 0, 0},
        {0, 1, 0, 0, 100, 0, 0, 0}, /* skill arm errored */
        {0, 1, 0, 0, 100, 0, 0, 0},
        {1, 1, 0, 0, 100, 0, 0, 0},
    };
    up_comparison cmp;
    up_buf b = UP_BUF_INIT;

    cr_assert_eq(up_stats_compare(&cmp, c, 4, 1, UP_STATS_MARGIN, NULL), 0);
    cr_assert_eq(cmp.paired, 0);
    cr_assert_eq(cmp.verdict, UP_VERDICT_NOT_MEASURED);
    cr_assert_eq(cmp.is_beneficial, 0);
    cr_assert_eq(cmp.token_savings, 0.0);
    cr_assert_eq(cmp.base.trials, 4);
    cr_assert_eq(cmp.skill.trials, 0);
    cr_assert_eq(up_stats_power_sentence(&b, &cmp), 1);
    cr_assert_str_eq(b.data, "No case was answered in both arms, so there is "
                             "nothing to compare.");
    up_buf_release(&b);
    c[0] = (up_stats_case){0, 1, 1, 1, 100, 50, 0, 0}; /* one case paired */
    cr_assert_eq(up_stats_compare(&cmp, c, 4, 1, UP_STATS_MARGIN, NULL), 0);
    cr_assert_eq(cmp.paired, 1);
    cr_assert_float_eq(cmp.tokens.base_mean, 100, EPS);
    cr_assert_float_eq(cmp.tokens.skill_mean, 50, EPS);
    cr_assert_eq(cmp.verdict, UP_VERDICT_INCONCLUSIVE);
}

/* ---- power ---- */

/* Brute force: every (b, c) of the trinomial, score test by hand. */
static double power_brute(size_t n, double p0, double p1)
{
    double p12 = p1 * (1 - p0), p21 = p0 * (1 - p1), pw = 0;

    for (size_t ib = 0; ib <= n; ib++)
        for (size_t ic = 0; ib + ic <= n; ic++) {
            double b = (double)ib, c = (double)ic, dn = (double)n;
            double z = ib + ic ? (b - c) / sqrt(b + c) : 0;
            double lp = lgamma(dn + 1.0) - lgamma(b + 1.0) - lgamma(c + 1.0) -
                        lgamma(dn - b - c + 1.0) + b * log(p12) + c * log(p21) +
                        (dn - b - c) * log1p(-p12 - p21);

            if (z >= UP_STATS_Z95)
                pw += exp(lp);
        }
    return pw;
}

Test(stats, power_one_run_is_exact)
{
    static const struct {
        size_t n;
        double p0, lift;
    } pc[] = {{10, 0.5, 0.3}, {30, 0.4, 0.2}, {60, 0.2, 0.1}, {25, 0.5, 0}};

    for (size_t i = 0; i < sizeof(pc) / sizeof(*pc); i++)
        cr_expect(fabs(up_stats_power(pc[i].n, 1, pc[i].p0, pc[i].lift, 1) -
                       power_brute(pc[i].n, pc[i].p0, pc[i].p0 + pc[i].lift)) <
                      1e-9,
                  "case %zu", i);
    /* lift 0: the size of the test, one side, at most about 2.5% */
    cr_expect(up_stats_power(30, 1, 0.5, 0, 1) < 0.04);
}

Test(stats, mde_and_needed)
{
    double m10 = up_stats_mde(10, 1, 0.5, 1), m40 = up_stats_mde(40, 1, 0.5, 1);
    size_t need;

    cr_assert(m10 > m40 && m40 > 0, "%f %f", m10, m40);
    cr_assert(up_stats_power(40, 1, 0.5, m40, 1) >= UP_STATS_POWER);
    cr_assert(up_stats_power(40, 1, 0.5, m40 - 0.01, 1) < UP_STATS_POWER);
    cr_assert_eq(up_stats_mde(3, 1, 0.5, 1), -1.0); /* 3 cases: never */
    need = up_stats_cases_for(0.2, 1, 0.5, 1);
    cr_assert(up_stats_power(need, 1, 0.5, 0.2, 1) >= UP_STATS_POWER);
    cr_assert(up_stats_power(need - 1, 1, 0.5, 0.2, 1) < UP_STATS_POWER ||
              up_stats_power(need / 2, 1, 0.5, 0.2, 1) < UP_STATS_POWER);
    cr_assert(up_stats_runs_for(0.2, 30, 0.5, 1) > 1);
    cr_assert_eq(up_stats_cases_for(0.6, 1, 0.5, 1), 0); /* beyond 100% */
}

Test(stats, plan_text_names_the_lever)
{
    up_stats_plan pl = {30, 1, 0.5, 0.2, 1};
    up_buf b = UP_BUF_INIT;

    up_stats_plan_text(&b, &pl);
    cr_assert(strstr(b.data, "30 cases x 1 run per arm at a 50% baseline: "
                             "the smallest lift detected with 80% power is "),
              "%s", b.data);
    cr_assert(strstr(b.data, "more runs: --runs "), "%s", b.data);
    cr_assert(strstr(b.data, "cheaper lever here"), "%s", b.data);
    up_buf_release(&b);
}

Test(stats, power_sentence_looks_ahead)
{
    up_comparison c = cmp_of(10, 1, 0, 1000, 1000);
    up_buf b = UP_BUF_INIT;

    cr_assert_eq(up_stats_power_sentence(&b, &c), 1);
    /* the suite's detectable lift, not the observed +10 */
    cr_assert(strstr(b.data, "This suite (10 cases x 1 run) detects a true "
                             "lift of +"),
              "%s", b.data);
    cr_assert_null(strstr(b.data, "+10 points"), "%s", b.data);
    up_buf_release(&b);
}

/* ---- validation by simulation (issue 10, item 6) ---- */

static double unit(uint64_t *x)
{
    *x = *x * 6364136223846793005u + 1442695040888963407u;
    return (double)(*x >> 11) * 0x1.0p-53;
}

/*
 * Suites of n cases x runs drawn from a population whose cases differ
 * (baseline 0.2 or 0.6, mean 0.4) and a skill adding lift to each: the
 * share of suites whose interval holds the true lift, and of suites
 * called beneficial.
 */
static void simulate(size_t n, unsigned runs, double lift, unsigned reps,
                     double *cover, double *beneficial)
{
    up_stats_case c[40];
    uint64_t x = 1000 * n + 10 * runs + (uint64_t)(lift * 100);
    unsigned hold = 0, ben = 0;

    for (unsigned r = 0; r < reps; r++) {
        up_paired l;

        for (size_t i = 0; i < n; i++) {
            double pb = i % 2 ? 0.2 : 0.6;

            c[i] = (up_stats_case){0, runs, 0, runs, 0, 0, 0, 0};
            for (unsigned k = 0; k < runs; k++) {
                c[i].base_pass += unit(&x) < pb;
                c[i].skill_pass += unit(&x) < pb + lift;
            }
        }
        up_stats_lift(&l, c, n);
        hold += l.ci_lo <= lift + 1e-12 && lift - 1e-12 <= l.ci_hi;
        ben += l.p < UP_STATS_ALPHA && l.diff > 0;
    }
    *cover = (double)hold / reps;
    *beneficial = (double)ben / reps;
}

Test(stats, simulation_coverage_and_false_beneficial)
{
    static const size_t sizes[] = {10, 20, 40};
    static const unsigned runs[] = {1, 3};
    static const double lifts[] = {0, 0.1, 0.2, 0.3};

    for (size_t s = 0; s < 3; s++)
        for (size_t r = 0; r < 2; r++)
            for (size_t l = 0; l < 4; l++) {
                double cover, ben;

                simulate(sizes[s], runs[r], lifts[l], 1000, &cover, &ben);
                cr_expect(cover >= 0.93, "n %zu runs %u lift %.1f: cover %.3f",
                          sizes[s], runs[r], lifts[l], cover);
                if (lifts[l] == 0)
                    cr_expect(ben <= 0.05, "n %zu runs %u: beneficial %.3f",
                              sizes[s], runs[r], ben);
            }
}

/*
 * SkillsBench's across-task view, by hand: 4 tasks answered in both arms
 * (rates with 1, 1, 0, 1/2; without 0, 1, 0, 0) and one without a
 * baseline run, skipped.  with 0.625, without 0.25, diff 0.375, g =
 * 0.375 / 0.75 = 0.5; sample sds: with sqrt(0.6875/3), without
 * sqrt(0.75/3) = 0.5, differences sqrt(0.6875/3); half = 1.96 sd / 2.
 */
Test(stats, skillsbench_view_by_hand)
{
    up_stats_case c[5] = {
        {.base_pass = 0, .base_runs = 1, .skill_pass = 1, .skill_runs = 1},
        {.base_pass = 1, .base_runs = 1, .skill_pass = 1, .skill_runs = 1},
        {.base_pass = 0, .base_runs = 1, .skill_pass = 0, .skill_runs = 1},
        {.base_pass = 1, .base_runs = 0, .skill_pass = 1, .skill_runs = 1},
        {.base_pass = 0, .base_runs = 2, .skill_pass = 1, .skill_runs = 2}};
    up_sbview v;
    up_buf t = UP_BUF_INIT;

    up_stats_skillsbench(&v, c, 5);
    cr_assert_eq(v.n, 4);
    cr_assert_float_eq(v.with, 0.625, 1e-12);
    cr_assert_float_eq(v.without, 0.25, 1e-12);
    cr_assert_float_eq(v.diff, 0.375, 1e-12);
    cr_assert(v.has_g && v.has_ci);
    cr_assert_float_eq(v.g, 0.5, 1e-12);
    cr_assert_float_eq(v.ci_with, 1.959963984540054 * sqrt(0.6875 / 3) / 2,
                       1e-12);
    cr_assert_float_eq(v.ci_with, 0.469131, 1e-6);
    cr_assert_float_eq(v.ci_without, 0.489991, 1e-6);
    cr_assert_float_eq(v.ci_diff, 0.469131, 1e-6);
    up_stats_skillsbench_text(&t, &v);
    cr_assert_str_eq(t.data, "with 62.5%, without 25.0%, +37.5 points, g = "
                             "0.50, 95% CI +/-46.9 points over 4 tasks");
    up_buf_release(&t);
}

/* SkillsBench's published overall figures: 24.3% -> 40.6%, g = 21.5%. */
Test(stats, skillsbench_gain_matches_the_paper)
{
    double with = 0.406, without = 0.243;

    cr_assert_float_eq((with - without) / (1 - without), 0.2153, 1e-4);
}

/* A baseline passing every task leaves no room: g is undefined, never a
 * division by zero; one task has no interval. */
Test(stats, skillsbench_view_edges)
{
    up_stats_case all[2] = {{1, 1, 1, 1, 0, 0, 0, 0}, {2, 2, 1, 2, 0, 0, 0, 0}};
    up_sbview v;
    up_buf t = UP_BUF_INIT;

    up_stats_skillsbench(&v, all, 2);
    cr_assert_eq(v.has_g, 0);
    cr_assert_float_eq(v.g, 0, 0);
    cr_assert(isfinite(v.g));
    cr_assert_float_eq(v.diff, -0.25, 1e-12);
    up_stats_skillsbench_text(&t, &v);
    cr_assert(strstr(t.data, "g undefined (the baseline passes every task)"));
    up_buf_reset(&t);
    up_stats_skillsbench(&v, all, 1);
    cr_assert_eq(v.n, 1);
    cr_assert_eq(v.has_ci, 0);
    up_stats_skillsbench_text(&t, &v);
    cr_assert(strstr(t.data, "no interval (one task) over 1 task"));
    up_buf_reset(&t);
    up_stats_skillsbench(&v, NULL, 0);
    cr_assert_eq(v.n, 0);
    up_stats_skillsbench_text(&t, &v);
    cr_assert_str_eq(t.data, "no task answered in both arms");
    up_buf_release(&t);
}

/* up_stats_compare fills the view. */
Test(stats, compare_fills_skillsbench_view)
{
    up_stats_case c[2] = {{0, 1, 1, 1, 10, 10, 0, 0},
                          {0, 1, 0, 1, 10, 10, 0, 0}};
    up_comparison cmp;
    up_error err = {0};

    cr_assert_eq(up_stats_compare(&cmp, c, 2, 1, UP_STATS_MARGIN, &err), 0);
    cr_assert_eq(cmp.sb.n, 2);
    cr_assert_float_eq(cmp.sb.with, 0.5, 1e-12);
    cr_assert_float_eq(cmp.sb.g, 0.5, 1e-12);
}

/* Issue 26, item 10: a printed bound never lands on or across a bar it
 * is not on (0, -margin, +margin), and never reads "-0". */
static const struct {
    double share, margin;
    const char *want;
} bound_cases[] = {
    {0.0047, 0.05, "+0.5"},        /* significant: not "+0" */
    {-0.0047, 0.05, "-0.5"},       /* not "-0" */
    {0.00004, 0.05, "+0.004"},     /* as many decimals as it takes */
    {2e-11, 0.05, "+0.000000002"}, /* more decimals, never an exponent */
    {1e-16, 0.05, "+0"},           /* rounding noise is no side (issue 31) */
    {-1e-16, 0.05, "+0"},          /* 0.5333 - 0.5333 in floating point */
    {0.05 + 1e-16, 0.05, "+5"},    /* noise about a margin: on it */
    {0.0, 0.05, "+0"},             /* on the bar: no more digits */
    {-0.0, 0.05, "+0"},            /* never "-0" */
    {-0.0316, 0.03, "-3.2"},       /* just beyond -margin */
    {-0.0296, 0.03, "-2.96"},      /* just inside -margin: not "-3", "-3.0" */
    {0.0304, 0.03, "+3.04"},       /* just beyond +margin */
    {-0.03, 0.03, "-3"},           /* on the margin */
    {0.297, 0.05, "+30"},          /* nowhere near a bar: whole points */
    {-0.004, 0.0, "-0.4"},         /* margin 0: 0 is the only bar */
    {0.0449, 0.05, "+4"},          /* inside the margin, clear of it */
};

Test(stats, fmt_bound_keeps_its_side)
{
    for (size_t i = 0; i < sizeof(bound_cases) / sizeof(*bound_cases); i++) {
        char t[UP_STATS_FMT_LEN];

        cr_expect_str_eq(up_stats_fmt_bound(t, sizeof(t), bound_cases[i].share,
                                            bound_cases[i].margin),
                         bound_cases[i].want, "case %zu", i);
    }
}

Test(stats, fmt_num_unsigned_and_digits)
{
    char t[UP_STATS_FMT_LEN];
    double bar = 0.80, zero = 0.0;

    /* a rate's bound against a target of 0.80 at two decimals */
    cr_expect_str_eq(up_stats_fmt_num(t, sizeof(t), 0.7996, 2, 0, &bar, 1),
                     "0.7996");
    cr_expect_str_eq(up_stats_fmt_num(t, sizeof(t), 0.8004, 2, 0, &bar, 1),
                     "0.8004");
    cr_expect_str_eq(up_stats_fmt_num(t, sizeof(t), 0.75, 2, 0, &bar, 1),
                     "0.75");
    cr_expect_str_eq(up_stats_fmt_num(t, sizeof(t), -0.2, 0, 0, NULL, 0),
                     "0"); /* no bar, still never "-0" */
    cr_expect_str_eq(up_stats_fmt_num(t, sizeof(t), 0.4, 0, 0, &zero, 1),
                     "0.4");
}

/* Issue 31, item 3: rates of equal counts, summed in another order,
 * make a lift of exactly 0, not -1e-14 (8/15 as 0.5333 on both sides). */
Test(stats, lift_of_equal_counts_is_zero)
{
    up_stats_case c[15];
    up_paired l;

    static const unsigned b[15] = {3, 2, 2, 3, 2, 0, 3, 1, 1, 3, 0, 3, 2, 1, 3};
    static const unsigned s[15] = {3, 3, 2, 2, 3, 2, 3, 0, 1, 3, 2, 3, 0, 1, 1};

    for (size_t i = 0; i < 15; i++) /* the same counts, another order */
        c[i] = (up_stats_case){.base_runs = 3,
                               .skill_runs = 3,
                               .base_pass = b[i],
                               .skill_pass = s[i]};
    up_stats_lift(&l, c, 15);
    cr_expect_eq(l.diff, 0.0, "diff %g", l.diff);
}

/* The verdict sentences print bounds the same way: 12 of 16 discordant
 * cases better out of 50 (p = 0.0455, Tango's [+0.3, +31]). */
Test(stats, verdict_words_keep_bounds_on_their_side)
{
    up_comparison c = cmp_of(50, 12, 4, 1000, 1000);
    up_buf b = UP_BUF_INIT;

    cr_assert_eq(c.verdict, UP_VERDICT_BENEFICIAL);
    cr_assert(c.lift.ci_lo > 0 && c.lift.ci_lo < 0.005, "lo %g", c.lift.ci_lo);
    up_stats_verdict_text(&b, &c);
    cr_expect_str_eq(b.data, "beneficial: a lift of +0.3 to +31 points");
    up_buf_reset(&b);
    c = cmp_of(50, 4, 12, 1000, 1000);
    up_stats_verdict_text(&b, &c);
    cr_expect_str_eq(b.data, "harmful: a drop of 0.3 to 31 points");
    up_buf_release(&b);
}

/* Item 11: a token saver whose drop is significant but inside the margin
 * says the drop is real. */
Test(stats, saver_with_a_real_drop_says_so)
{
    up_comparison c = cmp_of(400, 0, 8, 1000, 500);
    up_buf b = UP_BUF_INIT;

    cr_assert_eq(c.verdict, UP_VERDICT_TOKEN_SAVER);
    cr_assert(c.lift.p < UP_STATS_ALPHA && c.lift.ci_hi < 0);
    up_stats_verdict_text(&b, &c);
    cr_expect_str_eq(b.data, "token saver: 50% fewer tokens, and the pass "
                             "rate drops by 1 to 4 points: a real drop, "
                             "within the margin of 5 points");
    up_buf_release(&b);
}

/* Dollars: two decimals from $1 and for 0, three significant digits in
 * fixed point below, never an exponent however small. */
Test(stats, fmt_usd_one_format)
{
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {0, "$0.00"},
        {3.07e-05, "$0.0000307"},
        {0.0005623, "$0.000562"},
        {0.02, "$0.0200"},
        {0.999, "$0.999"},
        {1, "$1.00"},
        {1234.567, "$1234.57"},
        {1.3e-06, "$0.00000130"},
        {1e-15, "$0.00000000000000100"},
    };
    char t[UP_STATS_FMT_LEN];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        cr_expect_str_eq(up_stats_fmt_usd(t, sizeof(t), cases[i].v),
                         cases[i].want, "%g", cases[i].v);
}
