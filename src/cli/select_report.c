/*
 * `upskill select`'s report: the chosen candidate, the runner-up, and
 * why each other one lost, as text or as one JSON document.  A model
 * without a configured price is said, never priced by a guess.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "select_report.h"

static const char *arm_name(const up_select_cand *c)
{
    return c->skill ? "with the skill" : "baseline";
}

/* Further cases at --runs that would settle an unsure row; 0: none. */
static size_t more_cases(const struct select_view *v, size_t i)
{
    size_t runs = v->runs > 0 ? (size_t)v->runs : 1;

    return (v->rows[i].more_trials + runs - 1) / runs;
}

static void line(const struct select_view *v, size_t i)
{
    const up_select_cand *c = &v->c[i];
    const up_select_row *r = &v->rows[i];

    printf("%s: %s %s: %.2f [%.2f, %.2f] over %zu run(s)",
           up_select_why_label(r->why), out_safe(c->model), arm_name(c),
           c->rate.rate, c->rate.lo, c->rate.hi, c->rate.trials);
    if (r->cost_per_pass >= 0)
        printf(", $%.6f per passed case", r->cost_per_pass);
    if (r->why == UP_SELECT_UNSURE && more_cases(v, i))
        printf("; about %zu more case(s) would settle it", more_cases(v, i));
    else if (r->why == UP_SELECT_UNSURE)
        printf("; more cases at this rate would not settle it");
    putchar('\n');
}

/* Whether model i's name came earlier among the unpriced. */
static int said_before(const struct select_view *v, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (!v->c[j].priced && !strcmp(v->c[j].model, v->c[i].model))
            return 1;
    return 0;
}

void select_report_text(const struct select_view *v)
{
    printf("target: pass rate %.2f (the 95%% interval's lower bound)\n",
           v->target);
    for (size_t i = 0; i < v->n; i++) /* the chosen first */
        if (v->rows[i].why == UP_SELECT_CHOSEN)
            line(v, i);
    for (size_t i = 0; i < v->n; i++)
        if (v->rows[i].why == UP_SELECT_RUNNER_UP)
            line(v, i);
    for (size_t i = 0; i < v->n; i++)
        if (v->rows[i].why > UP_SELECT_RUNNER_UP)
            line(v, i);
    if (v->chosen == v->n)
        printf("no candidate clears %.2f\n", v->target);
    for (size_t i = 0; i < v->n; i++)
        if (!v->c[i].priced && !said_before(v, i))
            printf("no price for %s: set prices in the config\n",
                   out_safe(v->c[i].model));
}

static json_t *cand_json(const struct select_view *v, size_t i)
{
    const up_select_cand *c = &v->c[i];
    const up_select_row *r = &v->rows[i];
    json_t *o = json_object();

    json_object_set_new(o, "model", json_string(c->model));
    json_object_set_new(o, "skill", json_boolean(c->skill));
    json_object_set_new(o, "verdict", json_string(up_select_why_label(r->why)));
    json_object_set_new(o, "pass_rate", json_real(c->rate.rate));
    json_object_set_new(o, "lo", json_real(c->rate.lo));
    json_object_set_new(o, "hi", json_real(c->rate.hi));
    json_object_set_new(o, "passed",
                        json_integer((json_int_t)c->rate.successes));
    json_object_set_new(o, "trials", json_integer((json_int_t)c->rate.trials));
    json_object_set_new(o, "priced", json_boolean(c->priced));
    json_object_set_new(o, "cost_per_pass",
                        r->cost_per_pass >= 0 ? json_real(r->cost_per_pass)
                                              : json_null());
    if (r->why == UP_SELECT_UNSURE)
        json_object_set_new(o, "more_cases",
                            more_cases(v, i)
                                ? json_integer((json_int_t)more_cases(v, i))
                                : json_null());
    return o;
}

static json_t *pick(const struct select_view *v, up_select_why why)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->rows[i].why == why)
            return cand_json(v, i);
    return json_null();
}

void select_report_json(const struct select_view *v)
{
    json_t *doc = json_object(), *all = json_array(), *np = json_array();

    for (size_t i = 0; i < v->n; i++) {
        json_array_append_new(all, cand_json(v, i));
        if (!v->c[i].priced && !said_before(v, i))
            json_array_append_new(np, json_string(v->c[i].model));
    }
    json_object_set_new(doc, "target", json_real(v->target));
    json_object_set_new(doc, "cleared", json_boolean(v->chosen < v->n));
    json_object_set_new(doc, "chosen", pick(v, UP_SELECT_CHOSEN));
    json_object_set_new(doc, "runner_up", pick(v, UP_SELECT_RUNNER_UP));
    json_object_set_new(doc, "candidates", all);
    json_object_set_new(doc, "unpriced", np);
    out_json(doc);
    json_decref(doc);
}
