/*
 * The decision core of `upskill select`: which candidate meets the goal
 * (a target pass rate, or another model's baseline within a margin) most
 * cheaply, and why the others lost.  See include/upskill/select.h and
 * docs/select.md.
 *
 * Both goals are one rule on an interval against a bar: --target the
 * candidate's Wilson interval against the target, --beat the paired
 * interval of its difference to the reference (up_stats_lift, the
 * interval eval's lift uses) against -margin.  Lower bound at or over the
 * bar: meets it; upper bound under: too weak; else not enough evidence.
 */
#include "upskill/select.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"

#define GROW_MAX 100000u /* the most trials or cases a "more" may name */

static const char *const why_labels[] = {
    [UP_SELECT_CHOSEN] = "chosen",
    [UP_SELECT_RUNNER_UP] = "runner-up",
    [UP_SELECT_TOO_EXPENSIVE] = "too expensive",
    [UP_SELECT_TOO_WEAK] = "too weak",
    [UP_SELECT_UNSURE] = "not enough evidence",
    [UP_SELECT_UNPRICED] = "meets the goal, no price",
    [UP_SELECT_MEETS] = "meets the goal",
    [UP_SELECT_NOT_MEASURED] = "not measured",
};

const char *up_select_why_label(up_select_why why)
{
    return why_labels[why];
}

/* The smallest n in [1, GROW_MAX] for which settles(ud, n), found by
 * doubling then bisection (settling is monotone in n, or nearly); 0 when
 * GROW_MAX does not settle. */
static size_t smallest(int (*settles)(const void *ud, size_t n), const void *ud)
{
    size_t lo = 1, hi = 1;

    while (hi <= GROW_MAX && !settles(ud, hi))
        hi *= 2;
    if (hi > GROW_MAX && !settles(ud, GROW_MAX))
        return 0;
    if (hi > GROW_MAX)
        hi = GROW_MAX;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (settles(ud, mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

struct rate_at {
    double rate, t, alpha;
};

/* 1 when n trials at rate give a Wilson interval wholly on one side. */
static int rate_settles(const void *ud, size_t n)
{
    const struct rate_at *r = ud;
    double lo, hi;
    size_t s = (size_t)floor(r->rate * (double)n + 0.5);

    up_stats_wilson(s, n, up_stats_z_two_sided(r->alpha), &lo, &hi);
    return r->rate > r->t ? lo >= r->t : hi < r->t;
}

static size_t trials_at(double rate, double target, double alpha)
{
    struct rate_at r = {rate, target, alpha};

    return rate == target ? 0 : smallest(rate_settles, &r);
}

size_t up_select_trials_for(double rate, double target)
{
    return trials_at(rate, target, UP_STATS_ALPHA);
}

struct cases_at {
    const up_stats_case *c;
    size_t n;
    double bar, alpha;
};

/* 1 when the observed cases repeated in order to n cases give a paired
 * interval wholly on one side of the bar. */
static int cases_settle(const void *ud, size_t n)
{
    const struct cases_at *a = ud;
    up_stats_case *v = up_xmalloc(n * sizeof(*v));
    up_paired d;

    for (size_t i = 0; i < n; i++)
        v[i] = a->c[i % a->n];
    up_stats_lift(&d, v, n);
    if (a->alpha != UP_STATS_ALPHA)
        up_stats_lift_level(&d, a->alpha);
    free(v);
    return d.n && (d.ci_lo >= a->bar || d.ci_hi < a->bar);
}

static size_t cases_at_level(const up_stats_case *c, size_t n, double bar,
                             double alpha)
{
    struct cases_at a = {c, n, bar, alpha};
    up_paired d;

    up_stats_lift(&d, c, n);
    if (!d.n || d.diff == bar) /* no pair, or an estimate on the bar */
        return 0;
    return smallest(cases_settle, &a);
}

size_t up_select_cases_for(const up_stats_case *c, size_t n, double bar)
{
    struct cases_at a = {c, n, bar, UP_STATS_ALPHA};
    up_paired d;

    up_stats_lift(&d, c, n);
    if (!d.n || d.diff == bar) /* no pair, or an estimate on the bar */
        return 0;
    return smallest(cases_settle, &a);
}

/* Ranking keys of a candidate that meets the goal, lowest first: cost
 * per passed case, or (without prices) the pass rate. */
typedef double (*rank_fn)(const up_select_row *r, const up_select_cand *c);

static double by_cost(const up_select_row *r, const up_select_cand *c)
{
    (void)c;
    return r->cost_per_pass >= 0 ? r->cost_per_pass : INFINITY;
}

static double by_rate(const up_select_row *r, const up_select_cand *c)
{
    (void)r;
    return -c->rate.rate;
}

/* Further cases (at runs) for a total of need trials over have. */
static size_t more(size_t need, size_t have, unsigned runs)
{
    return need > have ? (need - have + runs - 1) / runs : 0;
}

/* Further cases (at runs) that bring r's effective sample size, which
 * its interval is Wilson's at, to need: at r's design effect (trials /
 * n_eff) each case adds runs / deff to it, not runs. */
size_t up_select_more_cases(size_t need, const up_rate *r, unsigned runs)
{
    double deff = r->n_eff > 0 ? (double)r->trials / r->n_eff : 1.0;
    double k = ((double)need * deff - (double)r->trials) / (double)runs;

    if (!runs || k <= 0)
        return 0;
    return k > (double)GROW_MAX ? GROW_MAX : (size_t)ceil(k - 1e-9);
}

/* Where the candidate's interval lies against the goal's bar. */
static void classify(up_select_row *r, const up_select_cand *c,
                     const up_select_goal *g)
{
    unsigned runs = g->runs ? g->runs : 1;
    double alpha = g->alpha > 0 ? g->alpha : UP_STATS_ALPHA;
    double lo = c->rate.lo, hi = c->rate.hi, bar = g->target;

    memset(r, 0, sizeof(*r));
    r->cost_per_pass = -1;
    if (c->priced && c->rate.successes > 0)
        r->cost_per_pass = c->cost / (double)c->rate.successes;
    if (g->beat) {
        up_stats_lift(&r->vs, c->vs, c->nvs);
        if (alpha != UP_STATS_ALPHA)
            up_stats_lift_level(&r->vs, alpha);
        lo = r->vs.ci_lo, hi = r->vs.ci_hi, bar = -g->margin;
    }
    if (!c->rate.trials || (g->beat && !r->vs.n)) {
        r->why = UP_SELECT_NOT_MEASURED; /* errored, or no case in common */
    } else if (lo >= bar) {
        r->why = UP_SELECT_TOO_EXPENSIVE; /* until ranked */
    } else if (hi < bar) {
        r->why = UP_SELECT_TOO_WEAK;
    } else {
        r->why = UP_SELECT_UNSURE;
        r->more_cases =
            g->beat ? more(cases_at_level(c->vs, c->nvs, bar, alpha), c->nvs, 1)
                    : up_select_more_cases(trials_at(c->rate.rate, bar, alpha),
                                           &c->rate, runs);
    }
}

/* Index of the first-ranked row of kind pool (meets the goal, not yet
 * ranked), by key, the earliest on a tie; n when none. */
static size_t first(const up_select_row *rows, const up_select_cand *c,
                    size_t n, up_select_why pool, rank_fn key)
{
    size_t best = n;

    for (size_t i = 0; i < n; i++) {
        if (rows[i].why != pool)
            continue;
        if (best == n || key(&rows[i], &c[i]) < key(&rows[best], &c[best]))
            best = i;
    }
    return best;
}

/* Mark the unpriced rows that meet the goal; how many are priced. */
static size_t split_priced(up_select_row *rows, const up_select_cand *c,
                           size_t n, size_t *unpriced)
{
    size_t priced = 0;

    *unpriced = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].why != UP_SELECT_TOO_EXPENSIVE)
            continue;
        if (c[i].priced)
            priced++;
        else
            rows[i].why = UP_SELECT_UNPRICED, (*unpriced)++;
    }
    return priced;
}

static int check_goal(const up_select_goal *g, up_error *err)
{
    if (g->beat && !(g->margin >= 0 && g->margin <= 0.5))
        return up_error_set(err, UP_EINVALID,
                            "margin %g: expected a share in [0, 0.5]",
                            g->margin);
    if (!g->beat && !(g->target > 0 && g->target <= 1))
        return up_error_set(err, UP_EINVALID,
                            "target %g: expected a pass rate in (0, 1]",
                            g->target);
    return 0;
}

int up_select_decide(up_select_row *rows, size_t *chosen,
                     const up_select_cand *c, size_t n,
                     const up_select_goal *goal, up_error *err)
{
    size_t second, unpriced, priced;
    up_select_why pool = UP_SELECT_TOO_EXPENSIVE;
    rank_fn key = by_cost;
    int rc = check_goal(goal, err);

    if (rc)
        return rc;
    for (size_t i = 0; i < n; i++)
        classify(&rows[i], &c[i], goal);
    *chosen = n;
    priced = split_priced(rows, c, n, &unpriced);
    if (unpriced && !goal->allow_unpriced) {
        for (size_t i = 0; i < n; i++) /* none is "too expensive" */
            if (rows[i].why == UP_SELECT_TOO_EXPENSIVE)
                rows[i].why = UP_SELECT_MEETS;
        return 0; /* no choice on cost: an unpriced one may be cheapest */
    }
    if (!priced)
        pool = UP_SELECT_UNPRICED, key = by_rate;
    *chosen = first(rows, c, n, pool, key);
    if (*chosen == n)
        return 0;
    rows[*chosen].why = UP_SELECT_CHOSEN;
    second = first(rows, c, n, pool, key);
    if (second < n)
        rows[second].why = UP_SELECT_RUNNER_UP;
    return 0;
}

/* ---- candidates from models ----------------------------------------- */

void up_select_model_release(up_select_model *m)
{
    free(m->model);
    free(m->cases);
    free(m->batch);
    memset(m, 0, sizeof(*m));
}

/* The candidate of model m's arm (skill 1: with the skill). */
static void cand_of(up_select_cand *c, const up_select_model *m, int skill)
{
    memset(c, 0, sizeof(*c));
    c->model = m->model;
    c->skill = skill;
    up_stats_arm_rate(&c->rate, m->cases, m->ncases, skill);
    c->priced = m->cost[skill] >= 0;
    c->cost = c->priced ? m->cost[skill] : 0;
}

/* Per case, the reference's baseline against model m's arm into v. */
static void pair_with(up_stats_case *v, const up_select_model *ref,
                      const up_select_model *m, int skill)
{
    for (size_t k = 0; k < ref->ncases; k++) {
        const up_stats_case *a = &ref->cases[k], *b = &m->cases[k];

        memset(&v[k], 0, sizeof(v[k]));
        v[k].base_pass = a->base_pass;
        v[k].base_runs = a->base_runs;
        v[k].skill_pass = skill ? b->skill_pass : b->base_pass;
        v[k].skill_runs = skill ? b->skill_runs : b->base_runs;
    }
}

static int find_ref(up_select *s, const up_select_model *m, size_t nm,
                    const up_select_goal *g, up_error *err)
{
    for (size_t i = 0; i < nm && !s->ref; i++)
        if (!strcmp(m[i].model, g->beat))
            s->ref = &m[i];
    if (!s->ref)
        return up_error_set(err, UP_EINVALID,
                            "'%s': the model to beat has no runs", g->beat);
    for (size_t i = 0; i < nm; i++)
        if (m[i].ncases != s->ref->ncases)
            return up_error_set(
                err, UP_EINVALID, "'%s': %zu cases, not the %zu of '%s'",
                m[i].model, m[i].ncases, s->ref->ncases, g->beat);
    return 0;
}

/* The candidates of the models: both arms, but not the reference's
 * baseline nor a model that is only the reference. */
static void make_cands(up_select *s, const up_select_model *m, size_t nm)
{
    size_t nc = s->ref ? s->ref->ncases : 0;

    s->c = up_xcalloc(2 * nm + 1, sizeof(*s->c));
    s->rows = up_xcalloc(2 * nm + 1, sizeof(*s->rows));
    s->pairs = up_xcalloc(2 * nm * nc + 1, sizeof(*s->pairs));
    for (size_t i = 0; i < nm; i++)
        for (int skill = 0; skill < 2; skill++) {
            up_select_cand *c = &s->c[s->n];

            if (m[i].ref_only || (&m[i] == s->ref && !skill))
                continue;
            cand_of(c, &m[i], skill);
            if (s->ref) {
                c->vs = s->pairs + s->n * nc;
                c->nvs = nc;
                pair_with(s->pairs + s->n * nc, s->ref, &m[i], skill);
            }
            s->n++;
        }
}

int up_select_run(up_select *s, const up_select_model *m, size_t nm,
                  const up_select_goal *goal, up_error *err)
{
    up_select_goal g;
    int rc = 0;

    memset(s, 0, sizeof(*s));
    if (goal->beat)
        rc = find_ref(s, m, nm, goal, err);
    if (rc)
        return rc;
    make_cands(s, m, nm);
    if (s->ref) {
        up_select_cand base;

        cand_of(&base, s->ref, 0);
        s->ref_rate = base.rate;
        s->ref_cost_per_pass = base.priced && base.rate.successes
                                   ? base.cost / (double)base.rate.successes
                                   : -1;
    }
    g = *goal;
    if (!(g.alpha > 0)) /* intervals that hold for every candidate at once */
        g.alpha = UP_STATS_ALPHA / (double)(s->n > 1 ? s->n : 1);
    s->alpha = g.alpha;
    for (size_t i = 0; g.alpha != UP_STATS_ALPHA && i < s->n; i++)
        up_stats_rate_level(&s->c[i].rate, g.alpha);
    return up_select_decide(s->rows, &s->chosen, s->c, s->n, &g, err);
}

void up_select_release(up_select *s)
{
    free(s->c);
    free(s->rows);
    free(s->pairs);
    memset(s, 0, sizeof(*s));
}
