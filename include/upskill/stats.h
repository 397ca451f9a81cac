/*
 * Statistics for skill-lift evaluation: Wilson intervals on pass rates,
 * the lift as a paired difference over the same cases with an interval
 * that agrees with its test (Tango's score interval and the matching
 * score test with one run per case, a t interval and t-test on per-case
 * differences with several), the token side, a verdict, upstream's
 * is_beneficial, and power planning (the smallest detectable lift).
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

#define UP_STATS_Z95       1.959963984540054 /* two-sided 95% normal */
#define UP_STATS_ALPHA     0.05              /* significance level */
#define UP_STATS_ITER      10000u   /* default bootstrap / Monte Carlo draws */
#define UP_STATS_BOOT_WORK 4000000u /* default cap: resamples x cases */
#define UP_STATS_BOOT_MIN  2000u    /* ... but never fewer resamples */
#define UP_STATS_ENUM_MAX  20       /* enumerate 2^m sign flips up to m = 20 */
#define UP_STATS_SAVER_MIN 0.05     /* token saver: at least 5% fewer tokens */
#define UP_STATS_MARGIN    0.05 /* default margin of "no meaningful effect" */
#define UP_STATS_POWER     0.80 /* power that planning aims for */

/* A pass rate with its 95% Wilson score interval. */
typedef struct up_rate {
    size_t successes; /* passing runs */
    size_t trials;    /* runs that were answered (errors are left out) */
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
    UP_P_MONTE_CARLO, /* seeded Monte Carlo estimate */
    UP_P_SCORE,       /* score test of paired 0/1 outcomes (Tango) */
    UP_P_T            /* paired t-test on per-case differences */
};

/* A paired comparison of two arms over the same n cases. */
typedef struct up_paired {
    size_t n;          /* cases */
    double base_mean;  /* mean of the baseline values */
    double skill_mean; /* mean of the skill values */
    double diff;       /* skill_mean - base_mean (the lift) */
    double ci_lo;      /* 95% interval of diff: bootstrap percentile from */
    double ci_hi;      /*   up_stats_paired, the test's own from
                          up_stats_lift ([0, 0] when n == 0) */
    double p;          /* two-sided p-value, 1 when n == 0 */
    double m2;         /* mean squared per-case difference */
    size_t better;     /* cases where skill > baseline */
    size_t worse;      /* cases where skill < baseline */
    int pmethod;       /* enum up_pmethod */
    double se;         /* UP_P_T: the standard error the t interval used,
                          so up_stats_lift_level can redraw it */
} up_paired;

/* The verdicts, in the order of docs/statistics.md. */
typedef enum up_verdict {
    UP_VERDICT_NOT_MEASURED = 0, /* no case answered in both arms */
    UP_VERDICT_BENEFICIAL,       /* lift > 0, p < 0.05 */
    UP_VERDICT_HARMFUL,          /* lift < 0, p < 0.05, tokens not down */
    UP_VERDICT_TOKEN_SAVER,      /* tokens down significantly, and the
                                    interval's low end above -margin */
    UP_VERDICT_TRADE_OFF,        /* tokens down, pass rate may be down */
    UP_VERDICT_NO_EFFECT,        /* the interval inside [-margin, margin] */
    UP_VERDICT_INCONCLUSIVE,     /* the interval holds lifts that matter */
    UP_VERDICT_COUNT
} up_verdict;

/* One case's raw counts for both arms (input to up_stats_compare). */
typedef struct up_stats_case {
    unsigned base_pass;  /* baseline runs that passed */
    unsigned base_runs;  /* answered baseline runs (0: not paired) */
    unsigned skill_pass; /* skill runs that passed */
    unsigned skill_runs; /* answered skill runs (0: not paired) */
    double base_tokens;  /* total tokens over the baseline runs */
    double skill_tokens; /* total tokens over the skill runs */
    /* of the runs: those whose tokens are not known (a request that
     * outgrew the context failed the run but reported no usage): not in
     * the tokens above, left out of the token means */
    unsigned base_untold;
    unsigned skill_untold;
} up_stats_case;

/*
 * SkillsBench's across-task view (Li et al., 2026; docs/statistics.md),
 * so a run can be set beside their tables: a case is a task, each
 * task's pass rate per arm is its passes / answered runs, and the means
 * are over the tasks answered in both arms, each task weighing the same
 * whatever its runs.
 */
typedef struct up_sbview {
    size_t n;       /* tasks answered in both arms */
    double with;    /* mean of the per-task pass rates with the skill */
    double without; /* ... and without */
    double diff;    /* with - without (points: x 100) */
    double g;       /* normalized gain (with - without) / (1 - without);
                       0 and has_g 0 when without is 1 (no room) */
    int has_g;
    /* 95% half-widths, 1.96 * sd / sqrt(n), sd the sample standard
     * deviation (n - 1) of the per-task pass rates of that arm, and of
     * the per-task differences for diff; 0 and has_ci 0 when n < 2 */
    double ci_with, ci_without, ci_diff;
    int has_ci;
} up_sbview;

/* The whole comparison of a skill against the baseline. */
typedef struct up_comparison {
    up_rate base;         /* pooled baseline pass rate */
    up_rate skill;        /* pooled skill pass rate */
    up_paired lift;       /* per-case pass rates over the paired cases */
    up_paired tokens;     /* per-case mean tokens per run, paired cases */
    size_t paired;        /* cases answered in both arms (lift.n) */
    unsigned runs;        /* runs per paired case (rounded mean) */
    double margin;        /* the "no meaningful effect" margin used */
    double mde;           /* smallest lift this suite detects with 80%
                             power; < 0 when none up to 100% */
    double token_change;  /* tokens.skill_mean / tokens.base_mean - 1 */
    double token_savings; /* upstream: 1 - skill total / base total */
    int is_beneficial;    /* upstream's fixed-threshold rule */
    up_verdict verdict;   /* our statistical verdict */
    up_sbview sb;         /* SkillsBench's across-task figures */
    /* the family of comparisons its batch made (up_stats_family): alone
     * (family <= 1) every claim is judged at UP_STATS_ALPHA, alpha is
     * UP_STATS_ALPHA and p_adj is lift.p */
    size_t family;  /* measured comparisons in the family, 0 or 1: alone */
    size_t claimed; /* of them, those whose lift the family claims (R) */
    int control;    /* enum up_family_control */
    double rate;    /* the error rate controlled (q, 0.05) */
    double alpha;   /* the level every claim and interval is judged at */
    double p_adj;   /* lift.p adjusted over the family (BH or Holm) */
} up_comparison;

/* How the claims of a batch of several comparisons are controlled. */
typedef enum up_family_control {
    UP_FAMILY_FDR = 0, /* false discovery rate: Benjamini-Hochberg */
    UP_FAMILY_HOLM,    /* family-wise error rate: Holm's step-down */
    UP_FAMILY_NONE,    /* each comparison at its own 5% */
    UP_FAMILY_COUNT
} up_family_control;

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
 * Student's t distribution: P(T <= t) with df > 0 degrees of freedom,
 * and its quantile for 0 < p < 1.
 */
double up_stats_t_cdf(double t, double df);
double up_stats_t_quantile(double p, double df);

/*
 * Tango's score interval for the difference of paired proportions over n
 * pairs, b of them passing only in the second arm and c only in the
 * first, at normal quantile z, into *lo and *hi (within [-1, 1], never a
 * single point when n > 0; [-1, 1] when n == 0).  The interval is the
 * set of differences the score test does not reject, so it excludes 0
 * exactly when up_stats_score_p(b, c) < the level z stands for.
 */
void up_stats_tango(size_t b, size_t c, size_t n, double z, double *lo,
                    double *hi);

/* Two-sided p of the score (McNemar, no correction) test: 1 when b+c=0. */
double up_stats_score_p(size_t b, size_t c);

/*
 * The pass-rate lift over the n cases with runs in both arms (cases
 * without are skipped): per-case rates, their mean difference, and an
 * interval that agrees with its test.  With one run per case: Tango's
 * score interval and the score test (pmethod UP_P_SCORE).  Otherwise the
 * t interval and t-test on per-case differences, whose variance is never
 * taken below the binomial noise of the runs (pmethod UP_P_T), so no
 * interval is a single point.  Never fails.
 */
void up_stats_lift(up_paired *out, const up_stats_case *c, size_t n);

/*
 * The verdict from the pass-rate lift and the token comparison (tokens
 * may be NULL: no token saver then) at margin (a share: 0.05 for 5
 * points).  lift->n == 0 gives UP_VERDICT_NOT_MEASURED.  See
 * docs/statistics.md.
 */
up_verdict up_stats_verdict(const up_paired *lift, const up_paired *tokens,
                            double margin);

/*
 * The verdict as up_stats_verdict, every test judged at level alpha
 * (UP_STATS_ALPHA for a comparison alone): beneficial and harmful need
 * lift->p < alpha, a token drop tokens->p < alpha, and "no meaningful
 * effect" the lift's interval drawn at 1 - alpha.
 */
up_verdict up_stats_verdict_at(const up_paired *lift, const up_paired *tokens,
                               double margin, double alpha);

/*
 * Redraw the lift's interval at level 1 - alpha (0 < alpha < 1) from
 * what up_stats_lift kept: Tango's score interval at the normal quantile
 * 1 - alpha / 2, or the t interval with the same standard error.  The
 * interval excludes 0 exactly when lift->p < alpha.  No-op when n == 0.
 */
void up_stats_lift_level(up_paired *lift, double alpha);

/*
 * Control the claims of the n comparisons c[0..n) of one batch (pointers,
 * borrowed) over their family at rate q (UP_STATS_ALPHA): the measured
 * ones (lift.n > 0) form the family of m.  FDR: Benjamini-Hochberg on
 * the lift p-values; R = the largest k with p(k) < k q / m; the family
 * level is R q / m (q / m when R = 0), the level of Benjamini and
 * Yekutieli's false-coverage-rate intervals.  Holm: R = the step-down's
 * rejections, the level q / (m - R + 1) (q / m, Bonferroni's, when R is
 * 0 or 1).  Either way the lifts claimed are exactly those with p below
 * the level, so each comparison's interval is redrawn at 1 - level and
 * its verdict judged at the level (up_stats_verdict_at): a verdict never
 * contradicts its interval.  None: every comparison stays at q.  Sets
 * family, claimed, control, rate, alpha and p_adj of each; with m <= 1
 * nothing changes but those fields (family 1, alpha q, p_adj = p).
 */
void up_stats_family(up_comparison *const *c, size_t n, up_family_control how,
                     double q);

/* The normal z whose two-sided tail is alpha (1.96 for 0.05). */
double up_stats_z_two_sided(double alpha);

/*
 * Redraw r's Wilson interval at level 1 - alpha (its rate and effective
 * sample size kept): the interval select uses to hold for all its
 * candidates at once (Bonferroni).  [0, 1] when r has no trial.
 */
void up_stats_rate_level(up_rate *r, double alpha);

/* "fdr", "holm", "none"; parse: 0, or UP_EINVALID for another name. */
const char *up_stats_family_id(up_family_control how);
int up_stats_family_parse(up_family_control *out, const char *name,
                          up_error *err);

/*
 * Append to out the family line of comparison c: "60 comparisons; claims
 * hold at a 5% false discovery rate (Benjamini-Hochberg; intervals at
 * 99.9%)", "... at a 5% family-wise error rate (Holm; ...)", or "...; no
 * family control: each claim holds at 5% on its own".  Nothing when c is
 * alone.  Returns 1 when it wrote.
 */
int up_stats_family_text(up_buf *out, const up_comparison *c);

/*
 * The level of c's lift interval as printed before "CI": "95%" alone,
 * else e.g. "99.75%" (decimals enough to tell it from 100%).  Returns
 * out (UP_STATS_FMT_LEN bytes).
 */
const char *up_stats_ci_level(char *out, size_t size, const up_comparison *c);

/* Bytes that up_stats_fmt_num and up_stats_fmt_bound write at most. */
#define UP_STATS_FMT_LEN 32

/*
 * Write v into out (size bytes, UP_STATS_FMT_LEN is enough) with digits
 * decimals, with a sign when plus, or with more decimals when fewer would
 * print it on or across one of the nbars values bars (may be NULL when
 * nbars is 0) that v is not on: the number printed is on the same side
 * of each bar as v, so rounding never contradicts a verdict drawn from
 * v (0.47 against 0 prints "+0.5", not "+0"; -3.16 against -3 prints
 * "-3.2"; -2.96 "-2.96").  Zero prints "+0" / "0", never "-0".  Returns
 * out.
 */
const char *up_stats_fmt_num(char *out, size_t size, double v, int digits,
                             int plus, const double *bars, size_t nbars);

/*
 * A lift or one of its bounds, a share, as signed whole points
 * (up_stats_fmt_num against 0, -margin and +margin, margin a share):
 * "+12", "-3.2" at a margin of 0.03, "+0.5".  Every printed bound of a
 * lift goes through here.  Returns out.
 */
const char *up_stats_fmt_bound(char *out, size_t size, double share,
                               double margin);

/*
 * Dollars, the one format of every price and cost upskill prints: two
 * decimals from $1 (and for 0), else three significant digits in fixed
 * point ($0.000562, $0.0000307), never an exponent (down to 1e-22).
 * Returns out.
 */
const char *up_stats_fmt_usd(char *out, size_t size, double v);

/* "beneficial", "harmful", "token_saver", "trade_off", "no_effect",
 * "inconclusive" (for JSON); NULL for UP_VERDICT_NOT_MEASURED. */
const char *up_stats_verdict_id(up_verdict v);
/* "beneficial", ..., "no meaningful effect", "not measured". */
const char *up_stats_verdict_label(up_verdict v);
/* The same in `compare`'s words, skill A the baseline: "B is better",
 * "B is worse", "B saves tokens", else as up_stats_verdict_label (the
 * CLI's and the report's one table). */
const char *up_stats_verdict_ab_label(up_verdict v);

/*
 * Append to out the verdict in words with what backs it, e.g.
 * "inconclusive: the lift could be anywhere from -10 to +60 points" or
 * "trade-off: 40% fewer tokens, but the pass rate may drop (by up to 30
 * points)".
 */
void up_stats_verdict_text(up_buf *out, const up_comparison *c);

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
 * The real power of the verdict "beneficial" for a suite of n cases run
 * runs times per arm, when the baseline passes at rate p0 and the skill
 * at p0 + lift (cases alike, arms and runs independent).  One run: exact,
 * summing the score test's rejections over every outcome.  Several runs:
 * a seeded simulation of the t procedure.  0 when n == 0.
 */
double up_stats_power(size_t n, unsigned runs, double p0, double lift,
                      uint64_t seed);

/*
 * The minimum detectable effect: the smallest lift (to 0.5 points) that
 * n cases x runs detect with UP_STATS_POWER power at baseline rate p0;
 * -1 when even p0 -> 100% is not enough.
 */
double up_stats_mde(size_t n, unsigned runs, double p0, uint64_t seed);

/*
 * Cases (at runs) or runs (at n cases) needed to detect lift with
 * UP_STATS_POWER power at baseline p0; 0 when not within 20000 cases or
 * 100 runs.
 */
size_t up_stats_cases_for(double lift, unsigned runs, double p0, uint64_t seed);
unsigned up_stats_runs_for(double lift, size_t n, double p0, uint64_t seed);

/* Input of up_stats_plan_text. */
typedef struct up_stats_plan {
    size_t cases;  /* suite size */
    unsigned runs; /* runs per case and arm */
    double p0;     /* expected baseline pass rate */
    double target; /* lift to plan for; <= 0: none */
    uint64_t seed;
} up_stats_plan;

/*
 * Append to out the power plan, in plain lines: the smallest lift the
 * suite detects with 80% power, and for the target lift its power and
 * the cases or runs needed, naming the cheaper lever.  Pure; sends
 * nothing.
 */
void up_stats_plan_text(up_buf *out, const up_stats_plan *pl);

/*
 * Append to out one plain English note on what this suite can detect:
 * "No cases were answered in both arms...", or "This suite (10 cases x
 * 1 run) detects a lift of +45 points or more with 80% power; smaller
 * effects may go unseen."  Returns 1 when a note was written.
 */
int up_stats_power_sentence(up_buf *out, const up_comparison *c);

/*
 * SkillsBench's across-task figures over the n cases answered in both
 * arms (cases without runs in an arm are skipped).  Pure; never fails.
 */
void up_stats_skillsbench(up_sbview *out, const up_stats_case *c, size_t n);

/*
 * Append to out the view in one line: "with 40.6%, without 24.3%, +16.3
 * points, g = 0.22, 95% CI +/-5.1 points over 84 tasks" ("g undefined:
 * the baseline passes every task"; "no interval: one task").
 */
void up_stats_skillsbench_text(up_buf *out, const up_sbview *v);

/*
 * The full comparison over n cases: pooled Wilson rates per arm (cases
 * with answered runs in that arm), and over the cases answered in both
 * arms the paired lift (up_stats_lift), paired tokens on per-case means,
 * token change, upstream's token_savings and is_beneficial, the minimum
 * detectable effect, and the verdict at margin.  No paired case: verdict
 * UP_VERDICT_NOT_MEASURED, is_beneficial 0.  Fails with UP_EINVALID
 * (message names the case) when a case has more passes than runs, or
 * non-finite or negative tokens.
 */
int up_stats_compare(up_comparison *out, const up_stats_case *cases, size_t n,
                     uint64_t seed, double margin, up_error *err);

#endif
