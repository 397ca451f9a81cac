/*
 * `upskill eval SKILL...`: a sweep of several skills in one batch
 * (docs/eval.md, "Many skills in one batch").  The session runs them as
 * one plan and hands back one plan per skill; here each skill is
 * reported as its own eval would be, then the leaderboard: a skill x
 * model table of lifts, intervals and verdicts (text, or --json).
 */
#include <stdlib.h>
#include <string.h>

#include "eval_cli.h"

/* Every skill's summaries and dead-model flags. */
struct board {
    size_t nskills, nmodels;
    up_eval_summary **sums; /* [skill][model] */
    char **dead;            /* [skill][model]: answered nothing */
};

static void board_release(struct board *b)
{
    for (size_t i = 0; i < b->nskills; i++) {
        free(b->sums[i]);
        free(b->dead[i]);
    }
    free(b->sums);
    free(b->dead);
}

static int board_fill(struct board *b, const up_eval_session *e, uint64_t seed,
                      up_error *err)
{
    int rc = 0;

    b->nskills = e->nsweep;
    b->nmodels = e->plan.nmodels;
    b->sums = up_xcalloc(b->nskills, sizeof(*b->sums));
    b->dead = up_xcalloc(b->nskills, sizeof(*b->dead));
    for (size_t i = 0; i < b->nskills && !rc; i++)
        rc = up_eval_session_sweep_summarize(e, i, seed, &b->sums[i],
                                             &b->dead[i], err);
    return rc;
}

/* Every skill x model comparison of the sweep as one family. */
static void board_family(struct board *b, int control)
{
    size_t n = b->nskills * b->nmodels, k = 0;
    up_comparison **c = up_xcalloc(n ? n : 1, sizeof(*c));

    for (size_t i = 0; i < b->nskills; i++)
        for (size_t m = 0; m < b->nmodels; m++)
            if (b->sums[i][m].has_baseline)
                c[k++] = &b->sums[i][m].cmp;
    up_stats_family(c, k, (up_family_control)control, UP_STATS_ALPHA);
    free(c);
}

/* The family's first comparison of several, or NULL. */
static const up_comparison *board_family_of(const struct board *b)
{
    for (size_t i = 0; i < b->nskills; i++) {
        const up_comparison *c = eval_report_family_of(b->sums[i], b->nmodels);

        if (c)
            return c;
    }
    return NULL;
}

void eval_sweep_start(const up_eval_session *e)
{
    fprintf(stderr,
            "Evaluating %zu skills on %zu model(s): %zu case(s) in all x "
            "%d run(s), baseline %s\n",
            e->nsweep, e->plan.nmodels, e->suite.ncases, e->plan.runs,
            e->plan.baseline ? "on" : "off");
}

/* A leaderboard cell: "+50 [+20, +80] beneficial", or why there is none. */
static char *cell_text(const up_eval_summary *s, int dead)
{
    const up_comparison *c = &s->cmp;
    up_buf b = UP_BUF_INIT;

    if (dead)
        up_buf_adds(&b, "no answer");
    else if (!s->has_baseline)
        up_buf_adds(&b, "no baseline");
    else if (!c->paired)
        up_buf_adds(&b, "not measured");
    else {
        char d[UP_STATS_FMT_LEN], lo[UP_STATS_FMT_LEN], hi[UP_STATS_FMT_LEN];

        up_buf_addf(
            &b, "%s [%s, %s] %s",
            up_stats_fmt_bound(d, sizeof(d), c->lift.diff, c->margin),
            up_stats_fmt_bound(lo, sizeof(lo), c->lift.ci_lo, c->margin),
            up_stats_fmt_bound(hi, sizeof(hi), c->lift.ci_hi, c->margin),
            up_stats_verdict_label(c->verdict));
    }
    return up_buf_detach(&b);
}

static void board_text(const struct board *b, const up_eval_session *e)
{
    size_t cols = b->nmodels + 1;
    const char **head = up_xcalloc(cols, sizeof(*head));
    char **cells = up_xcalloc(cols * b->nskills, sizeof(*cells));
    const up_comparison *fam = board_family_of(b);

    head[0] = "skill";
    for (size_t m = 0; m < b->nmodels; m++)
        head[m + 1] = e->plan.models[m];
    for (size_t i = 0; i < b->nskills; i++) {
        cells[i * cols] = up_xstrdup(out_safe(e->sweep[i].skill.name));
        for (size_t m = 0; m < b->nmodels; m++)
            cells[i * cols + m + 1] = cell_text(&b->sums[i][m], b->dead[i][m]);
    }
    if (fam && fam->alpha != UP_STATS_ALPHA)
        printf("\nLeaderboard: the lift with each skill, points [CI at the "
               "family's level], and the verdict\n");
    else
        printf("\nLeaderboard: the lift with each skill, points [95%% CI], "
               "and the verdict\n");
    render_table(stdout, head, (const char *const *)cells, cols, b->nskills);
    eval_report_family_line(fam);
    for (size_t i = 0; i < cols * b->nskills; i++)
        free(cells[i]);
    free(cells);
    free(head);
}

/* One leaderboard cell as JSON: the figures only, no timings, so that
 * merged shards give the same bytes as the unsharded batch. */
static json_t *cell_json(const up_eval_summary *s, int dead)
{
    const up_comparison *c = &s->cmp;
    int has = !dead && s->has_baseline && c->paired;
    const char *id = has ? up_stats_verdict_id(c->verdict) : NULL;

    return json_pack(
        "{s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o}", "model", s->model,
        "answered", !dead, "verdict", id ? json_string(id) : json_null(),
        "lift", has ? json_real(c->lift.diff) : json_null(), "lift_ci",
        has ? json_pack("[f, f]", c->lift.ci_lo, c->lift.ci_hi) : json_null(),
        "p_value", has ? json_real(c->lift.p) : json_null(), "p_adjusted",
        has ? json_real(c->p_adj) : json_null(), "paired_cases",
        (json_int_t)(has ? c->paired : 0), "baseline_rate",
        !dead && s->has_baseline ? json_real(s->arm[UP_ARM_BASELINE].rate.rate)
                                 : json_null(),
        "with_skill_rate",
        dead ? json_null() : json_real(s->arm[UP_ARM_SKILL].rate.rate));
}

static json_t *board_json(const struct board *b, const up_eval_session *e)
{
    json_t *models = json_array(), *rows = json_array();

    for (size_t m = 0; m < b->nmodels; m++)
        json_array_append_new(models, json_string(e->plan.models[m]));
    for (size_t i = 0; i < b->nskills; i++) {
        json_t *cells = json_array();

        for (size_t m = 0; m < b->nmodels; m++)
            json_array_append_new(cells,
                                  cell_json(&b->sums[i][m], b->dead[i][m]));
        json_array_append_new(rows, json_pack("{s:s?, s:o}", "skill",
                                              e->sweep[i].skill.name, "cells",
                                              cells));
    }
    if (board_family_of(b))
        return json_pack("{s:o, s:o, s:o}", "models", models, "rows", rows,
                         "family", eval_report_family_json(board_family_of(b)));
    return json_pack("{s:o, s:o}", "models", models, "rows", rows);
}

static void sweep_json(const struct board *b, const up_eval_session *e)
{
    const up_eval_plan *judge = up_eval_session_part(e, 0); /* holds it */
    json_t *skills = json_array(), *doc;

    for (size_t i = 0; i < b->nskills; i++) {
        const up_sweep_skill *sw = &e->sweep[i];
        json_t *models = json_array();

        for (size_t m = 0; m < b->nmodels; m++) {
            json_t *o = eval_report_model_json(&b->sums[i][m]);

            json_object_set_new(o, "cut_conversations",
                                eval_report_cut_json(&sw->plan, m));
            json_object_set_new(o, "answered", json_boolean(!b->dead[i][m]));
            json_array_append_new(models, o);
        }
        json_array_append_new(
            skills,
            json_pack("{s:s?, s:s, s:I, s:s?, s:o}", "name", sw->skill.name,
                      "path", sw->path, "cases", (json_int_t)sw->suite.ncases,
                      "tests_source", sw->tests_src, "models", models));
    }
    doc = json_pack("{s:s?, s:I, s:i, s:o, s:o, s:{s:I, s:I, s:I}}", "batch_id",
                    e->s.batch_id.len ? e->s.batch_id.data : NULL, "cases",
                    (json_int_t)e->suite.ncases, "runs", e->plan.runs, "skills",
                    skills, "leaderboard", board_json(b, e), "judge", "calls",
                    (json_int_t)judge->judge_calls, "input_tokens",
                    (json_int_t)judge->judge_usage.input, "output_tokens",
                    (json_int_t)judge->judge_usage.output);
    out_json(doc);
    json_decref(doc);
}

/* Each skill as its own eval reports it: its models, then the table. */
static void skills_text(const struct board *b, const up_eval_session *e,
                        const struct eval_args *a)
{
    for (size_t i = 0; i < b->nskills; i++) {
        printf("\n== %s (%s) ==\n", out_safe(e->sweep[i].skill.name),
               out_safe(e->sweep[i].path));
        for (size_t m = 0; m < b->nmodels; m++)
            if (!b->dead[i][m])
                eval_report_text(&e->sweep[i].plan, &b->sums[i][m], a->verbose);
        if (b->nmodels > 1)
            eval_outcome_table(b->sums[i], b->dead[i], b->nmodels);
    }
}

/* The gates over every skill and model; dead[m] when model m ran some
 * conversation and answered none, in any skill. */
static int sweep_gates(const struct board *b, const up_eval_session *e,
                       const struct eval_args *a, char *dead)
{
    int rc = EXIT_OK;

    for (size_t m = 0; m < b->nmodels; m++) {
        size_t ran = 0, answered = 0;

        for (size_t i = 0; i < b->nskills; i++) {
            const up_eval_plan *p = &e->sweep[i].plan;

            answered += up_eval_answered(p, m, NULL);
            for (size_t j = 0; j < p->njobs; j++) {
                up_eval_job_view v;

                up_eval_job_view_of(up_eval_plan_job(p, j), &v);
                ran += v.model == m;
            }
        }
        dead[m] = ran && !answered;
    }
    for (size_t i = 0; i < b->nskills; i++) {
        int g = eval_gates(a, b->sums[i], b->nmodels);

        rc = g ? g : rc;
    }
    return rc;
}

int eval_sweep_outcome(const up_eval_session *e, const struct eval_args *a,
                       up_error *err)
{
    struct board b;
    char *dead;
    int rc;

    memset(&b, 0, sizeof(b));
    rc = board_fill(&b, e, (uint64_t)a->seed, err);
    if (!rc)
        board_family(&b, a->family);
    dead = up_xcalloc(b.nmodels ? b.nmodels : 1, 1);
    if (!rc && a->json)
        sweep_json(&b, e);
    else if (!rc) {
        skills_text(&b, e, a);
        board_text(&b, e);
    }
    eval_outcome_cut_note(e);
    if (!rc)
        rc = sweep_gates(&b, e, a, dead);
    if (rc >= 0) {
        int failed = eval_outcome_failures(e, dead);

        rc = failed ? failed : rc; /* errors beat gates */
    }
    free(dead);
    board_release(&b);
    return rc;
}
