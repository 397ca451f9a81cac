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
    cr_assert_eq(up_stats_verdict(&p, &p), UP_VERDICT_NONE);
    cr_assert_eq(up_stats_cases_needed(&p), 0);
    cr_assert_eq(up_stats_power_sentence(&b, &p), 1);
    cr_assert_str_eq(b.data,
                     "No cases were run, so there is nothing to compare.");
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
    cr_assert_eq(up_stats_verdict(&p, NULL), UP_VERDICT_NONE);
}

static const struct {
    double base, skill; /* the same value on all 10 cases */
    double p;
    up_verdict verdict;
} extreme_cases[] = {
    {1, 1, 1.0, UP_VERDICT_NONE},                    /* all pass, identical */
    {0, 0, 1.0, UP_VERDICT_NONE},                    /* all fail, identical */
    {0, 1, 2.0 / 1024, UP_VERDICT_BENEFICIAL},       /* perfect lift */
    {1, 0, 2.0 / 1024, UP_VERDICT_HARMFUL},          /* perfect harm */
    {0.5, 0.5, 1.0, UP_VERDICT_NONE},                /* identical rates */
    {1.0 / 3, 1, 2.0 / 1024, UP_VERDICT_BENEFICIAL}, /* runs > 1 */
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
        cr_expect_eq(up_stats_verdict(&p, NULL), extreme_cases[i].verdict,
                     "case %zu", i);
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

/* ---- verdicts ---- */

/* 10 cases: pass rates from b/c discordant counts, tokens base vs skill. */
static up_verdict verdict_of(unsigned b, unsigned c, double tb, double ts)
{
    double base[10] = {0}, skill[10] = {0}, btok[10], stok[10];
    up_paired lift, tokens;

    for (unsigned i = 0; i < 10; i++) {
        skill[i] = i < b ? 1.0 : 0.0;
        base[i] = i >= 10 - c ? 1.0 : 0.0;
        btok[i] = tb + i;
        stok[i] = ts + i;
    }
    cr_assert_eq(up_stats_paired(&lift, base, skill, 10, 5, 0, NULL), 0);
    cr_assert_eq(up_stats_paired(&tokens, btok, stok, 10, 5, 0, NULL), 0);
    return up_stats_verdict(&lift, &tokens);
}

static const struct {
    unsigned b, c;
    double tb, ts;
    up_verdict want;
} verdict_cases[] = {
    {9, 0, 1000, 1000, UP_VERDICT_BENEFICIAL}, /* p = 2/512 */
    {0, 9, 1000, 1000, UP_VERDICT_HARMFUL},
    {9, 0, 1000, 500, UP_VERDICT_BENEFICIAL},  /* lift wins over tokens */
    {2, 1, 1000, 800, UP_VERDICT_TOKEN_SAVER}, /* -20% tokens, p = 2/1024 */
    {2, 1, 1000, 970, UP_VERDICT_NONE},        /* -3%: too small to count */
    {2, 1, 1000, 1200, UP_VERDICT_NONE},       /* more tokens */
    {5, 0, 1000, 1000, UP_VERDICT_NONE},       /* p = 2/32 = 0.0625 */
    {0, 0, 1000, 1000, UP_VERDICT_NONE},
};

Test(stats, verdict_table)
{
    size_t ncases = sizeof(verdict_cases) / sizeof(verdict_cases[0]);

    for (size_t i = 0; i < ncases; i++)
        cr_expect_eq(verdict_of(verdict_cases[i].b, verdict_cases[i].c,
                                verdict_cases[i].tb, verdict_cases[i].ts),
                     verdict_cases[i].want, "case %zu", i);
}

Test(stats, verdict_names)
{
    cr_assert_str_eq(up_stats_verdict_id(UP_VERDICT_NONE), "no_effect");
    cr_assert_str_eq(up_stats_verdict_label(UP_VERDICT_NONE),
                     "no measurable effect");
    cr_assert_str_eq(up_stats_verdict_id(UP_VERDICT_TOKEN_SAVER),
                     "token_saver");
    cr_assert_str_eq(up_stats_verdict_label(UP_VERDICT_HARMFUL), "harmful");
    cr_assert_str_eq(up_stats_verdict_id((up_verdict)99), "no_effect");
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

static up_paired paired_of(const double *d, size_t n)
{
    double zero[32] = {0};
    up_paired p;

    cr_assert_eq(up_stats_paired(&p, zero, d, n, 1, 0, NULL), 0);
    return p;
}

Test(stats, cases_needed)
{
    double one_of_five[5] = {1, 0, 0, 0, 0};
    double all_five[5] = {1, 1, 1, 1, 1};
    double none[5] = {0};
    up_paired p;

    /* pi = 0.2, delta = 0.2: (1.96*sqrt(.2) + .8416*sqrt(.16))^2/.04 = 36.8 */
    p = paired_of(one_of_five, 5);
    cr_assert_eq(up_stats_cases_needed(&p), 37);
    /* normal approximation says 4; the exact test needs 6 discordant */
    p = paired_of(all_five, 5);
    cr_assert_eq(up_stats_cases_needed(&p), 6);
    p = paired_of(none, 5);
    cr_assert_eq(up_stats_cases_needed(&p), 0);
}

static const struct {
    double d[10];
    size_t n;
    int wrote;
    const char *text;
} sentence_cases[] = {
    {{1, 0, 0, 0, 0},
     5,
     1,
     "With 5 cases, even a perfect record could not show a significant "
     "difference (at least 6 cases that change outcome are needed). About "
     "37 cases would be needed to detect a lift of +20 points (80% power)."},
    {{0},
     1,
     1,
     "With 1 case, even a perfect record could not show a significant "
     "difference (at least 6 cases that change outcome are needed)."},
    {{-1, -1, -1, 1, 0, 0, 0, 0, 0, 0},
     10,
     1,
     "About 77 cases would be needed to detect a drop of 20 points "
     "(80% power)."},
    {{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 10, 0, ""}, /* significant */
    {{0}, 10, 0, ""},                            /* no lift at all */
};

Test(stats, power_sentence)
{
    size_t ncases = sizeof(sentence_cases) / sizeof(sentence_cases[0]);

    for (size_t i = 0; i < ncases; i++) {
        up_paired p = paired_of(sentence_cases[i].d, sentence_cases[i].n);
        up_buf b = UP_BUF_INIT;

        cr_expect_eq(up_stats_power_sentence(&b, &p), sentence_cases[i].wrote,
                     "case %zu", i);
        cr_expect_str_eq(b.data, sentence_cases[i].text, "case %zu", i);
        up_buf_release(&b);
    }
}

/* ---- the whole comparison ---- */

Test(stats, compare_runs)
{
    /* 3 runs per arm; the skill passes more and uses fewer tokens */
    up_stats_case c[6] = {
        {0, 3, 3, 3, 3000, 2400}, {1, 3, 3, 3, 3000, 2400},
        {0, 3, 2, 3, 3000, 2400}, {3, 3, 3, 3, 3000, 2400},
        {0, 3, 1, 3, 3000, 2400}, {2, 3, 3, 3, 3000, 2400},
    };
    up_comparison cmp;

    cr_assert_eq(up_stats_compare(&cmp, c, 6, 11, NULL), 0);
    cr_assert_eq(cmp.base.successes, 6);
    cr_assert_eq(cmp.base.trials, 18);
    cr_assert_eq(cmp.skill.successes, 15);
    cr_assert_float_eq(cmp.lift.diff, 9.0 / 18, EPS);
    /* 5 cases up, 1 tie: only +++++ and ----- are as extreme: 2/32 */
    cr_assert_float_eq(cmp.lift.p, 0.0625, 1e-12);
    cr_assert_eq(cmp.lift.pmethod, UP_P_LATTICE);
    cr_assert_float_eq(cmp.tokens.base_mean, 1000, EPS);
    cr_assert_float_eq(cmp.tokens.skill_mean, 800, EPS);
    cr_assert_float_eq(cmp.token_change, -0.2, EPS);
    cr_assert_float_eq(cmp.token_savings, 0.2, EPS);
    cr_assert_float_eq(cmp.tokens.p, 2.0 / 64, 1e-12);
    cr_assert_eq(cmp.is_beneficial, 1);
    cr_assert_eq(cmp.verdict, UP_VERDICT_TOKEN_SAVER);
}

Test(stats, compare_empty)
{
    up_comparison cmp;

    cr_assert_eq(up_stats_compare(&cmp, NULL, 0, 1, NULL), 0);
    cr_assert_eq(cmp.base.rate, 0.0);
    cr_assert_eq(cmp.base.hi, 1.0);
    cr_assert_eq(cmp.lift.p, 1.0);
    cr_assert_eq(cmp.is_beneficial, 0);
    cr_assert_eq(cmp.verdict, UP_VERDICT_NONE);
}

static const struct {
    up_stats_case c;
    const char *msg;
} bad_cases[] = {
    {{0, 0, 1, 1, 0, 0}, "stats: case 1: an arm has no runs"},
    {{2, 1, 1, 1, 0, 0}, "stats: case 1: more passes than runs"},
    {{1, 1, 1, 1, -5, 0},
     "stats: case 1: tokens must be finite and not negative"},
    {{1, 1, 1, 1, 0, INFINITY},
     "stats: case 1: tokens must be finite and not negative"},
};

Test(stats, compare_rejects_bad_cases)
{
    size_t ncases = sizeof(bad_cases) / sizeof(bad_cases[0]);

    for (size_t i = 0; i < ncases; i++) {
        up_stats_case c[2] = {{1, 1, 1, 1, 10, 10}, bad_cases[i].c};
        up_error err = {0};
        up_comparison cmp;

        cr_expect_eq(up_stats_compare(&cmp, c, 2, 1, &err), UP_EINVALID);
        cr_expect_str_eq(err.msg, bad_cases[i].msg, "case %zu", i);
    }
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
