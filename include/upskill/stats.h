/*
 * Statistics for skill-lift evaluation: Wilson intervals on pass rates,
 * the lift as a paired difference over the same cases with a seeded
 * bootstrap interval and an exact sign-flip p-value, the token side, a
 * verdict, upstream's is_beneficial, and a plain power sentence.
 *
 * Everything here is pure: no I/O, no global state; the same inputs and
 * seed give the same outputs on every machine.  The maths and its
 * approximations are documented in docs/statistics.md.
 */
#ifndef UPSKILL_STATS_H
#define UPSKILL_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "upskill/buf.h"
#include "upskill/error.h"

#define UP_STATS_Z95       1.959963984540054  /* two-sided 95% normal */
#define UP_STATS_Z80       0.8416212335729143 /* one-sided 80% (power) */
#define UP_STATS_ALPHA     0.05               /* significance level */
#define UP_STATS_ITER      10000u   /* default bootstrap / Monte Carlo draws */
#define UP_STATS_BOOT_WORK 4000000u /* default cap: resamples x cases */
#define UP_STATS_BOOT_MIN  2000u    /* ... but never fewer resamples */
#define UP_STATS_ENUM_MAX  20       /* enumerate 2^m sign flips up to m = 20 */
#define UP_STATS_SAVER_MIN 0.05     /* token saver: at least 5% fewer tokens */

/* A pass rate with its 95% Wilson score interval. */
typedef struct up_rate {
    size_t successes; /* passing runs */
    size_t trials;    /* all runs (errors count as failures) */
    double rate;      /* successes / trials, 0 when trials == 0 */
    double n_eff;     /* the sample size the interval uses (< trials when
                         repeats of a case are correlated) */
    double lo, hi;    /* Wilson 95% interval, [0, 1] when trials == 0 */
} up_rate;

/* How a p-value was computed. */
enum up_pmethod {
    UP_P_TRIVIAL = 0, /* no non-zero difference: p = 1 */
    UP_P_ENUM,        /* exact: every sign assignment enumerated */
    UP_P_LATTICE,     /* exact: distribution of integer sums */
    UP_P_MONTE_CARLO  /* seeded Monte Carlo estimate */
};

/* A paired comparison of two arms over the same n cases. */
typedef struct up_paired {
    size_t n;          /* cases */
    double base_mean;  /* mean of the baseline values */
    double skill_mean; /* mean of the skill values */
    double diff;       /* skill_mean - base_mean (the lift) */
    double ci_lo;      /* bootstrap 95% percentile interval of diff */
    double ci_hi;      /*   ([0, 0] when n == 0) */
    double p;          /* two-sided sign-flip p-value, 1 when n == 0 */
    double m2;         /* mean squared per-case difference */
    size_t better;     /* cases where skill > baseline */
    size_t worse;      /* cases where skill < baseline */
    int pmethod;       /* enum up_pmethod */
} up_paired;

typedef enum up_verdict {
    UP_VERDICT_NONE = 0,    /* no measurable effect */
    UP_VERDICT_BENEFICIAL,  /* lift > 0, p < 0.05 */
    UP_VERDICT_HARMFUL,     /* lift < 0, p < 0.05 */
    UP_VERDICT_TOKEN_SAVER, /* no significant lift; tokens down >= 5% */
} up_verdict;

/* One case's raw counts for both arms (input to up_stats_compare). */
typedef struct up_stats_case {
    unsigned base_pass;  /* baseline runs that passed */
    unsigned base_runs;  /* baseline runs, > 0 */
    unsigned skill_pass; /* skill runs that passed */
    unsigned skill_runs; /* skill runs, > 0 */
    double base_tokens;  /* total tokens over the baseline runs */
    double skill_tokens; /* total tokens over the skill runs */
} up_stats_case;

/* The whole comparison of a skill against the baseline. */
typedef struct up_comparison {
    up_rate base;         /* pooled baseline pass rate */
    up_rate skill;        /* pooled skill pass rate */
    up_paired lift;       /* per-case pass rates (passes / runs) */
    up_paired tokens;     /* per-case mean tokens per run */
    double token_change;  /* tokens.skill_mean / tokens.base_mean - 1 */
    double token_savings; /* upstream: 1 - skill total / base total */
    int is_beneficial;    /* upstream's fixed-threshold rule */
    up_verdict verdict;   /* our statistical verdict */
} up_comparison;

/*
 * Wilson score interval for successes out of n at normal quantile z
 * (UP_STATS_Z95 for 95%) into *lo and *hi, both within [0, 1].  n == 0
 * gives [0, 1]; successes above n are treated as n.
 */
void up_stats_wilson(size_t successes, size_t n, double z, double *lo,
                     double *hi);

/* Fill r with successes / trials and its 95% Wilson interval. */
void up_stats_rate(up_rate *r, size_t successes, size_t trials);

/*
 * The pooled rate over n cases where case i passed k[i] of m[i] > 0 runs.
 * Repeats of one case are correlated, so the interval is Wilson's at
 * Kish's effective sample size: runs / (1 + (m0 - 1) * icc), with the
 * ANOVA estimate of the intra-case correlation icc (clamped to [0, 1],
 * 1 when nothing varies) and m0 the average runs per case.  With one run
 * per case, or one case, it is up_stats_rate.
 */
void up_stats_rate_cases(up_rate *r, const unsigned *k, const unsigned *m,
                         size_t n);

/*
 * up_stats_rate_cases over one arm of n cases (skill: the skill arm, else
 * the baseline); cases without runs of that arm are left out.
 */
void up_stats_arm_rate(up_rate *r, const up_stats_case *c, size_t n, int skill);

/*
 * Two-sided p-value of the sign-flip permutation test on the n paired
 * differences d (zeros carry no information and are dropped): the share
 * of the 2^m sign assignments of the m non-zero |d| whose sum is at
 * least as far from 0 as the observed sum.  Exact by enumeration when
 * m <= UP_STATS_ENUM_MAX, exact by dynamic programming when the |d| are
 * small multiples of a common 1/q (rates from passes/runs, integer
 * tokens), else a Monte Carlo estimate with iterations draws (0 means
 * UP_STATS_ITER) from seed.  For 0/1 outcomes this is McNemar's exact
 * test.  *method (may be NULL) gets the enum up_pmethod used.  d must be
 * finite (unchecked here; up_stats_paired checks).
 */
double up_stats_signflip(const double *d, size_t n, uint64_t seed,
                         unsigned iterations, int *method);

/*
 * Paired analysis of base[i] vs skill[i] over n cases into out: means,
 * lift, a bootstrap 95% percentile interval (resampling cases,
 * iterations draws, 0 means UP_STATS_ITER, from seed) and the sign-flip
 * p-value.  n may be 0 (then base/skill may be NULL).  Fails with
 * UP_EINVALID when a value is not finite; out then holds the empty
 * result (n = 0, p = 1).  iterations above 1000000 are capped.
 */
int up_stats_paired(up_paired *out, const double *base, const double *skill,
                    size_t n, uint64_t seed, unsigned iterations,
                    up_error *err);

/*
 * The verdict from the pass-rate lift and the token comparison (tokens
 * may be NULL: no token saver then).  See docs/statistics.md.
 */
up_verdict up_stats_verdict(const up_paired *lift, const up_paired *tokens);

/* "beneficial", "harmful", "no_effect", "token_saver" (for JSON). */
const char *up_stats_verdict_id(up_verdict v);
/* "beneficial", "harmful", "no measurable effect", "token saver". */
const char *up_stats_verdict_label(up_verdict v);

/* Upstream's token_savings: 1 - skill/base, 0 when base_total == 0. */
double up_stats_token_savings(double base_total, double skill_total);

/*
 * Upstream's is_beneficial, kept for JSON compatibility:
 * lift > 0.05 or (lift >= 0 and token_savings > 0.2).
 */
int up_stats_is_beneficial(double lift, double token_savings);

/*
 * The fewest non-zero paired differences, all in one direction, that
 * the two-sided sign-flip test can call significant at alpha:
 * the smallest m with 2 * 0.5^m < alpha (6 for alpha = 0.05).
 */
unsigned up_stats_min_discordant(double alpha);

/*
 * Cases needed to detect a lift like the observed one with 80% power at
 * the 5% level (normal approximation of the sign-flip test, floored by
 * the exact test's minimum of discordant cases).  0 when it cannot be
 * estimated: no cases or no observed lift.
 */
size_t up_stats_cases_needed(const up_paired *lift);

/*
 * Append to out one plain English sentence when the suite is too small:
 * no cases, fewer cases than the exact test can ever call significant,
 * or a non-significant lift that more cases would likely detect.
 * Returns 1 when a sentence was written, 0 when there is nothing to say.
 */
int up_stats_power_sentence(up_buf *out, const up_paired *lift);

/*
 * The full comparison over n cases: pooled Wilson rates, paired lift on
 * per-case pass rates, paired tokens on per-case means, token change,
 * upstream's token_savings and is_beneficial, and the verdict.  Fails
 * with UP_EINVALID (message names the case) when a case has no runs in
 * an arm, more passes than runs, or non-finite or negative tokens.
 */
int up_stats_compare(up_comparison *out, const up_stats_case *cases, size_t n,
                     uint64_t seed, up_error *err);

#endif
