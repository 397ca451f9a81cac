/*
 * The decision core of `upskill select`: which candidate clears a target
 * pass rate most cheaply, and why the others lost.  See
 * include/upskill/select.h and docs/select.md.
 */
#include "upskill/select.h"

#include <math.h>

#define TRIALS_MAX 100000u

static const char *const why_labels[] = {
    [UP_SELECT_CHOSEN] = "chosen",
    [UP_SELECT_RUNNER_UP] = "runner-up",
    [UP_SELECT_TOO_EXPENSIVE] = "too expensive",
    [UP_SELECT_TOO_WEAK] = "too weak",
    [UP_SELECT_UNSURE] = "not enough evidence",
};

const char *up_select_why_label(up_select_why why)
{
    return why_labels[why];
}

/* 1 when n trials at rate give an interval wholly on one side of t. */
static int settles(double rate, double t, size_t n)
{
    double lo, hi;
    size_t s = (size_t)floor(rate * (double)n + 0.5);

    up_stats_wilson(s, n, UP_STATS_Z95, &lo, &hi);
    return rate > t ? lo >= t : hi < t;
}

size_t up_select_trials_for(double rate, double target)
{
    size_t lo = 1, hi = 1;

    if (rate == target)
        return 0;
    while (hi <= TRIALS_MAX && !settles(rate, target, hi))
        hi *= 2;
    if (hi > TRIALS_MAX && !settles(rate, target, TRIALS_MAX))
        return 0;
    if (hi > TRIALS_MAX)
        hi = TRIALS_MAX;
    while (lo < hi) { /* smallest n in [lo, hi] that settles */
        size_t mid = lo + (hi - lo) / 2;

        if (settles(rate, target, mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The ranking key of a candidate that clears: priced before unpriced. */
static double rank_key(const up_select_row *r)
{
    return r->cost_per_pass >= 0 ? r->cost_per_pass : INFINITY;
}

static void classify(up_select_row *r, const up_select_cand *c, double t)
{
    r->cost_per_pass = -1;
    r->more_trials = 0;
    if (c->priced && c->rate.successes > 0)
        r->cost_per_pass = c->cost / (double)c->rate.successes;
    if (c->rate.lo >= t) {
        r->why = UP_SELECT_TOO_EXPENSIVE; /* until ranked */
    } else if (c->rate.hi < t) {
        r->why = UP_SELECT_TOO_WEAK;
    } else {
        size_t need = up_select_trials_for(c->rate.rate, t);

        r->why = UP_SELECT_UNSURE;
        if (need > c->rate.trials)
            r->more_trials = need - c->rate.trials;
    }
}

/* Index of the cheapest clearing row not yet ranked, or n. */
static size_t cheapest(const up_select_row *rows, size_t n)
{
    size_t best = n;

    for (size_t i = 0; i < n; i++) {
        if (rows[i].why != UP_SELECT_TOO_EXPENSIVE)
            continue;
        if (best == n || rank_key(&rows[i]) < rank_key(&rows[best]))
            best = i;
    }
    return best;
}

int up_select_decide(up_select_row *rows, size_t *chosen,
                     const up_select_cand *c, size_t n, double target,
                     up_error *err)
{
    size_t second;

    if (!(target > 0 && target <= 1))
        return up_error_set(err, UP_EINVALID,
                            "target %g: expected a pass rate in (0, 1]",
                            target);
    for (size_t i = 0; i < n; i++)
        classify(&rows[i], &c[i], target);
    *chosen = cheapest(rows, n);
    if (*chosen == n)
        return 0;
    rows[*chosen].why = UP_SELECT_CHOSEN;
    second = cheapest(rows, n);
    if (second < n)
        rows[second].why = UP_SELECT_RUNNER_UP;
    return 0;
}

size_t up_select_from_summaries(up_select_cand *c, const up_eval_summary *s,
                                size_t n)
{
    for (size_t m = 0; m < n; m++)
        for (int a = 0; a < 2; a++) {
            const up_arm_totals *t = &s[m].arm[a];
            up_select_cand *d = &c[2 * m + (size_t)a];

            d->model = s[m].model;
            d->skill = a == UP_ARM_SKILL;
            d->rate = t->rate;
            d->priced = t->cost_usd >= 0;
            d->cost = d->priced ? t->cost_usd : 0;
        }
    return 2 * n;
}
