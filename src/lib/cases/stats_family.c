/*
 * Claims controlled over a batch's family of comparisons
 * (docs/statistics.md, "Many comparisons at once").  A batch that makes m
 * comparisons (several models, a sweep of skills, select's contenders)
 * would, at 5% each, claim something false in most batches of a few
 * dozen.  Here the lift p-values of the family's measured comparisons set
 * one family level: Benjamini-Hochberg's step-up (false discovery rate)
 * or Holm's step-down (family-wise rate).  Both claim exactly the lifts
 * whose p lies below that level, so every comparison's interval is
 * redrawn at one minus the level (for the false discovery rate these are
 * Benjamini and Yekutieli's false-coverage-rate intervals, 1 - R q / m)
 * and its verdict judged at it: a claim never contradicts its interval.
 * A comparison alone is left exactly as up_stats_compare made it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"
#include "upskill/stats.h"

static const struct {
    const char *id;   /* --family-control NAME, JSON "control" */
    const char *rate; /* what is controlled, in words */
    const char *how;  /* by what */
} family_names[UP_FAMILY_COUNT] = {
    [UP_FAMILY_FDR] = {"fdr", "false discovery rate", "Benjamini-Hochberg"},
    [UP_FAMILY_HOLM] = {"holm", "family-wise error rate", "Holm"},
    [UP_FAMILY_NONE] = {"none", NULL, NULL},
};

const char *up_stats_family_id(up_family_control how)
{
    return (unsigned)how < UP_FAMILY_COUNT ? family_names[how].id : "fdr";
}

int up_stats_family_parse(up_family_control *out, const char *name,
                          up_error *err)
{
    for (int i = 0; i < UP_FAMILY_COUNT; i++)
        if (!strcmp(name, family_names[i].id)) {
            *out = (up_family_control)i;
            return 0;
        }
    return up_error_set(err, UP_EINVALID,
                        "--family-control: '%s' is not fdr, holm or none",
                        name);
}

double up_stats_z_two_sided(double alpha)
{
    double lo = 0, hi = 40;

    for (int i = 0; i < 200 && hi - lo > 1e-14; i++) {
        double mid = 0.5 * (lo + hi);

        if (erfc(mid / M_SQRT2) > alpha)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

void up_stats_lift_level(up_paired *lift, double alpha)
{
    if (!lift->n)
        return;
    if (lift->pmethod == UP_P_SCORE)
        up_stats_tango(lift->better, lift->worse, lift->n,
                       up_stats_z_two_sided(alpha), &lift->ci_lo, &lift->ci_hi);
    else if (lift->pmethod == UP_P_T) {
        double df = lift->n > 1 ? (double)lift->n - 1 : 1;
        double half = up_stats_t_quantile(1 - alpha / 2, df) * lift->se;

        lift->ci_lo = fmax(-1.0, lift->diff - half);
        lift->ci_hi = fmin(1.0, lift->diff + half);
    }
}

void up_stats_rate_level(up_rate *r, double alpha)
{
    double z = up_stats_z_two_sided(alpha), n = r->n_eff, p = r->rate;
    double z2 = z * z, c, h;

    if (!r->trials || n <= 0) {
        r->lo = 0, r->hi = 1;
        return;
    }
    c = (p + z2 / (2 * n)) / (1 + z2 / n);
    h = z / (1 + z2 / n) * sqrt(p * (1 - p) / n + z2 / (4 * n * n));
    r->lo = fmax(0.0, c - h);
    r->hi = fmin(1.0, c + h);
}

/* Ascending by p, ties by position: the order of both procedures. */
static int by_p(const void *a, const void *b)
{
    const up_comparison *x = *(up_comparison *const *)a;
    const up_comparison *y = *(up_comparison *const *)b;

    if (x->lift.p != y->lift.p)
        return x->lift.p < y->lift.p ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Benjamini-Hochberg over the m sorted s: adjusted p-values (the
 * running minimum from the top of m p(j) / j) and R. */
static size_t adjust_bh(up_comparison **s, size_t m, double q)
{
    double run = 1.0, dm = (double)m;
    size_t r = 0;

    for (size_t i = m; i-- > 0;) {
        run = fmin(run, fmin(1.0, dm * s[i]->lift.p / (double)(i + 1)));
        s[i]->p_adj = run;
        if (!r && s[i]->lift.p < (double)(i + 1) * q / dm)
            r = i + 1;
    }
    return r;
}

/* Holm over the m sorted s: adjusted p-values (the running maximum of
 * (m - j + 1) p(j)) and R, the leading run with p(i) < q / (m - i + 1). */
static size_t adjust_holm(up_comparison **s, size_t m, double q)
{
    double run = 0.0;
    size_t r = 0;
    int going = 1;

    for (size_t i = 0; i < m; i++) {
        double k = (double)(m - i);

        run = fmax(run, fmin(1.0, k * s[i]->lift.p));
        s[i]->p_adj = run;
        going = going && s[i]->lift.p < q / k;
        r += (size_t)going;
    }
    return r;
}

/* The family level for R claims of m under how. */
static double family_level(up_family_control how, size_t r, size_t m, double q)
{
    double dm = (double)m;

    if (how == UP_FAMILY_NONE)
        return q;
    if (how == UP_FAMILY_HOLM)
        return r ? q / (dm - (double)r + 1) : q / dm;
    return r ? (double)r * q / dm : q / dm;
}

/* Judge c at level alpha: its interval redrawn, its verdict again. */
static void judge(up_comparison *c, double alpha)
{
    c->alpha = alpha;
    if (alpha != UP_STATS_ALPHA)
        up_stats_lift_level(&c->lift, alpha);
    c->verdict = up_stats_verdict_at(&c->lift, &c->tokens, c->margin, c->alpha);
}

void up_stats_family(up_comparison *const *c, size_t n, up_family_control how,
                     double q)
{
    up_comparison **s = up_xmalloc((n + 1) * sizeof(*s));
    size_t m = 0, r = 0;
    double level;

    for (size_t i = 0; i < n; i++) {
        c[i]->family = 1, c[i]->claimed = 0, c[i]->control = (int)how;
        c[i]->rate = c[i]->alpha = q;
        c[i]->p_adj = c[i]->lift.p;
        if (c[i]->lift.n)
            s[m++] = c[i];
    }
    if (m > 1) {
        qsort(s, m, sizeof(*s), by_p);
        if (how == UP_FAMILY_FDR)
            r = adjust_bh(s, m, q);
        else if (how == UP_FAMILY_HOLM)
            r = adjust_holm(s, m, q);
        else
            while (r < m && s[r]->lift.p < q)
                r++;
        level = family_level(how, r, m, q);
        for (size_t i = 0; i < n; i++)
            c[i]->family = m, c[i]->claimed = r;
        for (size_t i = 0; i < m; i++)
            judge(s[i], level);
    }
    free(s);
}

const char *up_stats_ci_level(char *out, size_t size, const up_comparison *c)
{
    double a = c->alpha > 0 ? c->alpha : UP_STATS_ALPHA;
    int digits = (int)ceil(-log10(a * 100)) + 1;

    if (c->family <= 1 || a == UP_STATS_ALPHA || digits < 0)
        snprintf(out, size, "95%%");
    else
        snprintf(out, size, "%.*f%%", digits > 6 ? 6 : digits, 100 * (1 - a));
    return out;
}

int up_stats_family_text(up_buf *out, const up_comparison *c)
{
    char lv[UP_STATS_FMT_LEN];
    int how = (unsigned)c->control < UP_FAMILY_COUNT ? c->control : 0;

    if (c->family <= 1)
        return 0;
    up_buf_addf(out, "%zu comparisons; ", c->family);
    if (how == UP_FAMILY_NONE) {
        up_buf_addf(out,
                    "no family control (--family-control none): each claim "
                    "holds at %g%% on its own, %zu significant",
                    c->rate * 100, c->claimed);
        return 1;
    }
    up_buf_addf(out,
                "claims hold at a %g%% %s (%s: %zu significant, intervals "
                "at %s)",
                c->rate * 100, family_names[how].rate, family_names[how].how,
                c->claimed, up_stats_ci_level(lv, sizeof(lv), c));
    return 1;
}
