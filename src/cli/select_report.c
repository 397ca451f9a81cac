/*
 * `upskill select`'s report: the goal, the reference of --beat, the
 * chosen candidate, the runner-up, and why each other one lost, as text
 * or as one JSON document.  A model without a configured price is said,
 * never priced by a guess.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "select_report.h"

/* The margin (a share) as points, exact: "5", "-5", "2.5", "0". */
static const char *margin_fmt(char *out, size_t n, double m)
{
    double bar = 100 * m;

    return up_stats_fmt_num(out, n, bar, 0, 0, &bar, 1);
}
#define MARGIN_FMT(m)                                                          \
    margin_fmt((char[UP_STATS_FMT_LEN]){0}, UP_STATS_FMT_LEN, (m))

static const char *arm_name(int skill)
{
    return skill ? "with the skill" : "baseline";
}

/* The model named model among the evidence (for its batch and price). */
static const up_select_model *model_of(const struct select_view *v,
                                       const char *model)
{
    for (size_t i = 0; i < v->nm; i++)
        if (!strcmp(v->m[i].model, model))
            return &v->m[i];
    return NULL;
}

/* "m with the skill: 0.90 [0.7996, 0.97] over 30 run(s)": against a
 * target (goal g), the bounds print on their side of it. */
static void rate_text(const struct select_view *v, const char *model, int skill,
                      const up_rate *r)
{
    char lo[UP_STATS_FMT_LEN], hi[UP_STATS_FMT_LEN];
    const double *bar = v->g->beat ? NULL : &v->g->target;

    printf("%s %s: %.2f [%s, %s] over %zu run(s)", out_safe(model),
           arm_name(skill), r->rate,
           up_stats_fmt_num(lo, sizeof(lo), r->lo, 2, 0, bar, bar != NULL),
           up_stats_fmt_num(hi, sizeof(hi), r->hi, 2, 0, bar, bar != NULL),
           r->trials);
}

static void line(const struct select_view *v, size_t i)
{
    const up_select_cand *c = &v->s->c[i];
    const up_select_row *r = &v->s->rows[i];
    char d[UP_STATS_FMT_LEN];

    printf("%s: ", up_select_why_label(r->why));
    if (r->why == UP_SELECT_NOT_MEASURED) {
        printf("%s %s: %s\n", out_safe(c->model), arm_name(c->skill),
               c->rate.trials ? "no case was answered by it and the reference"
                              : "no conversation was answered (all errored)");
        return;
    }
    rate_text(v, c->model, c->skill, &c->rate);
    if (r->cost_per_pass >= 0)
        printf(", %s per passed case",
               up_stats_fmt_usd(d, sizeof(d), r->cost_per_pass));
    if (v->g->beat && r->vs.n)
        printf("; against %s's baseline: %s points %s over %zu case(s)",
               out_safe(v->g->beat), LIFT_FMT(r->vs.diff, v->g->margin),
               CI_FMT(&r->vs, v->g->margin), r->vs.n);
    if (r->why == UP_SELECT_UNSURE && r->more_cases)
        printf("; about %zu more case(s) would settle it", r->more_cases);
    else if (r->why == UP_SELECT_UNSURE)
        printf("; more cases %s would not settle it",
               v->g->beat ? "like these" : "at this rate");
    putchar('\n');
}

/* "95%", or "99%" for 5 candidates: the level of each interval. */
static void level_text(char *out, size_t size, const up_select *s)
{
    up_comparison c;

    memset(&c, 0, sizeof(c));
    c.family = s->n;
    c.alpha = s->alpha > 0 ? s->alpha : UP_STATS_ALPHA;
    up_stats_ci_level(out, size, &c);
}

/* The line under the goal when the intervals are simultaneous. */
static void level_line(const up_select *s)
{
    char lv[UP_STATS_FMT_LEN];

    if (!(s->alpha > 0) || s->alpha == UP_STATS_ALPHA)
        return;
    level_text(lv, sizeof(lv), s);
    printf("intervals: %s each, so that those of the %zu candidates hold "
           "all at once with 95%% (Bonferroni; --family-control none: 95%% "
           "each)\n",
           lv, s->n);
}

static void goal_text(const struct select_view *v)
{
    const up_select *s = v->s;
    char d[UP_STATS_FMT_LEN], lv[UP_STATS_FMT_LEN];

    level_text(lv, sizeof(lv), s);
    if (!v->g->beat) {
        printf("target: pass rate %.2f (the %s interval's lower bound)\n",
               v->g->target, lv);
        level_line(s);
        return;
    }
    printf("goal: at least as good as %s without the skill, within %s "
           "points (the paired %s interval of the difference, over the "
           "same cases, stays above %s points)\n",
           out_safe(v->g->beat), MARGIN_FMT(v->g->margin), lv,
           MARGIN_FMT(-v->g->margin));
    level_line(s);
    printf("reference: ");
    if (!s->ref_rate.trials) {
        printf("%s baseline: not measured: no conversation was answered (all "
               "errored)\n",
               out_safe(s->ref->model));
        return;
    }
    rate_text(v, s->ref->model, 0, &s->ref_rate);
    if (s->ref_cost_per_pass >= 0)
        printf(", %s per passed case",
               up_stats_fmt_usd(d, sizeof(d), s->ref_cost_per_pass));
    putchar('\n');
}

/* How many rows are of kind why. */
static size_t count(const up_select *s, up_select_why why)
{
    size_t k = 0;

    for (size_t i = 0; i < s->n; i++)
        k += s->rows[i].why == why;
    return k;
}

/* The rows that meet the goal but were not ranked on cost, best pass rate
 * first (the earliest on a tie). */
static void by_rate_lines(const struct select_view *v)
{
    const up_select *s = v->s;
    char *done = up_xcalloc(s->n + 1, 1);

    for (;;) {
        size_t best = s->n;

        for (size_t i = 0; i < s->n; i++)
            if (!done[i] &&
                (s->rows[i].why == UP_SELECT_UNPRICED ||
                 s->rows[i].why == UP_SELECT_MEETS) &&
                (best == s->n || s->c[i].rate.rate > s->c[best].rate.rate))
                best = i;
        if (best == s->n)
            break;
        done[best] = 1;
        line(v, best);
    }
    free(done);
}

/* Why no candidate, or one by pass rate, was chosen. */
static void outcome_text(const struct select_view *v)
{
    const up_select *s = v->s;
    size_t unpriced = count(s, UP_SELECT_UNPRICED);

    if (s->chosen < s->n && !s->c[s->chosen].priced)
        printf("chosen by pass rate, not cost: no candidate that meets the "
               "goal has a price (--allow-unpriced)\n");
    else if (s->chosen == s->n && unpriced)
        printf("no choice on cost: %zu candidate(s) that meet the goal have "
               "no price, and could be the cheapest (listed by pass rate); "
               "set prices in the config, or --allow-unpriced to choose %s\n",
               unpriced,
               count(s, UP_SELECT_MEETS) ? "among the priced ones"
                                         : "by pass rate");
    else if (s->chosen == s->n && count(s, UP_SELECT_NOT_MEASURED) == s->n)
        printf("nothing was measured: no candidate has an answered "
               "conversation%s\n",
               v->g->beat ? " in common with the reference" : "");
    else if (s->chosen == s->n && v->g->beat)
        printf("no candidate is as good as %s within %s points\n",
               out_safe(v->g->beat), MARGIN_FMT(v->g->margin));
    else if (s->chosen == s->n)
        printf("no candidate clears %.2f\n", v->g->target);
}

void select_report_text(const struct select_view *v)
{
    const up_select *s = v->s;

    goal_text(v);
    for (size_t i = 0; i < s->n; i++) /* the chosen first */
        if (s->rows[i].why == UP_SELECT_CHOSEN)
            line(v, i);
    for (size_t i = 0; i < s->n; i++)
        if (s->rows[i].why == UP_SELECT_RUNNER_UP)
            line(v, i);
    by_rate_lines(v);
    for (size_t i = 0; i < s->n; i++)
        if (s->rows[i].why > UP_SELECT_RUNNER_UP &&
            s->rows[i].why != UP_SELECT_UNPRICED &&
            s->rows[i].why != UP_SELECT_MEETS)
            line(v, i);
    outcome_text(v);
    for (size_t i = 0; i < v->nm; i++)
        if (v->m[i].cost[0] < 0 || v->m[i].cost[1] < 0)
            printf("no price for %s: set prices in the config\n",
                   out_safe(v->m[i].model));
}

static json_t *rate_json(json_t *o, const up_rate *r)
{
    json_object_set_new(o, "pass_rate", json_real(r->rate));
    json_object_set_new(o, "lo", json_real(r->lo));
    json_object_set_new(o, "hi", json_real(r->hi));
    json_object_set_new(o, "passed", json_integer((json_int_t)r->successes));
    json_object_set_new(o, "trials", json_integer((json_int_t)r->trials));
    return o;
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *vs_json(const struct select_view *v, const up_select_row *r)
{
    if (!v->g->beat || !r->vs.n)
        return json_null();
    return json_pack("{s:f, s:f, s:f, s:I}", "difference", r->vs.diff, "lo",
                     r->vs.ci_lo, "hi", r->vs.ci_hi, "cases",
                     (json_int_t)r->vs.n);
}

static json_t *cand_json(const struct select_view *v, size_t i)
{
    const up_select_cand *c = &v->s->c[i];
    const up_select_row *r = &v->s->rows[i];
    const up_select_model *m = model_of(v, c->model);
    json_t *o = json_object();

    json_object_set_new(o, "model", json_string(c->model));
    json_object_set_new(o, "skill", json_boolean(c->skill));
    json_object_set_new(o, "verdict", json_string(up_select_why_label(r->why)));
    rate_json(o, &c->rate);
    json_object_set_new(o, "priced", json_boolean(c->priced));
    json_object_set_new(o, "cost_per_pass",
                        r->cost_per_pass >= 0 ? json_real(r->cost_per_pass)
                                              : json_null());
    json_object_set_new(o, "vs_reference", vs_json(v, r));
    json_object_set_new(o, "batch", str_or_null(m ? m->batch : NULL));
    json_object_set_new(o, "reused", json_boolean(m && m->reused));
    if (r->why == UP_SELECT_UNSURE)
        json_object_set_new(o, "more_cases",
                            r->more_cases
                                ? json_integer((json_int_t)r->more_cases)
                                : json_null());
    return o;
}

static json_t *pick(const struct select_view *v, up_select_why why)
{
    for (size_t i = 0; i < v->s->n; i++)
        if (v->s->rows[i].why == why)
            return cand_json(v, i);
    return json_null();
}

static json_t *ref_json(const struct select_view *v)
{
    const up_select *s = v->s;
    json_t *o;

    if (!s->ref)
        return json_null();
    o = json_pack("{s:s, s:b}", "model", s->ref->model, "skill", 0);
    rate_json(o, &s->ref_rate);
    json_object_set_new(o, "cost_per_pass",
                        s->ref_cost_per_pass >= 0
                            ? json_real(s->ref_cost_per_pass)
                            : json_null());
    json_object_set_new(o, "batch", str_or_null(s->ref->batch));
    json_object_set_new(o, "reused", json_boolean(s->ref->reused));
    return o;
}

/* "cost", "pass_rate" (no candidate that meets the goal has a price),
 * or null: none chosen. */
static json_t *decided_on(const up_select *s)
{
    if (s->chosen == s->n)
        return json_null();
    return json_string(s->c[s->chosen].priced ? "cost" : "pass_rate");
}

void select_report_json(const struct select_view *v)
{
    json_t *doc = json_object(), *all = json_array(), *np = json_array();
    int beat = v->g->beat != NULL;

    for (size_t i = 0; i < v->s->n; i++)
        json_array_append_new(all, cand_json(v, i));
    for (size_t i = 0; i < v->nm; i++)
        if (v->m[i].cost[0] < 0 || v->m[i].cost[1] < 0)
            json_array_append_new(np, json_string(v->m[i].model));
    json_object_set_new(doc, "target",
                        beat ? json_null() : json_real(v->g->target));
    json_object_set_new(doc, "beat", str_or_null(v->g->beat));
    json_object_set_new(doc, "margin",
                        beat ? json_real(v->g->margin) : json_null());
    json_object_set_new(doc, "reference", ref_json(v));
    json_object_set_new(doc, "simultaneous",
                        json_pack("{s:I, s:f, s:f}", "candidates",
                                  (json_int_t)v->s->n, "level",
                                  1 - (v->s->alpha > 0 ? v->s->alpha : 0.05),
                                  "all_at_once", 0.95));
    if (v->confirms)
        json_object_set_new(doc, "confirmation",
                            json_pack("{s:s, s:b, s:b}", "first_choice",
                                      v->confirms, "fresh", 1, "cached", 0));
    json_object_set_new(doc, "cleared", json_boolean(v->s->chosen < v->s->n));
    json_object_set_new(doc, "decided_on", decided_on(v->s));
    json_object_set_new(doc, "chosen", pick(v, UP_SELECT_CHOSEN));
    json_object_set_new(doc, "runner_up", pick(v, UP_SELECT_RUNNER_UP));
    json_object_set_new(doc, "candidates", all);
    json_object_set_new(doc, "unpriced", np);
    out_json(doc);
    json_decref(doc);
}
