/*
 * Where `upskill select`'s evidence comes from: runs already in the runs
 * folder, or the plan of an eval run now.  A stored batch is reused for
 * a model only when it was made for the same suite, skill, --runs,
 * baseline and agent settings (batch_plan.json, compared as a --resume
 * compares it, the models and the seed aside), it finished (its
 * batch_summary.json is written last), and it answered every case, arm
 * and repeat of the model.  Its per-case passes are read as `upskill
 * report` reads them (up_report_batch_load, from the case artifacts),
 * and its cost is recomputed from the artifacts' token usage at the
 * config's prices now.  See docs/select.md.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/config/config_lib.h"
#include "lib/eval/eval_job.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/report.h"
#include "upskill/select.h"
#include "util/json.h"

void up_select_from_plan(up_select_model *out, const up_eval_plan *p, size_t m,
                         const up_price *price)
{
    memset(out, 0, sizeof(*out));
    out->model = up_xstrdup(p->models[m]);
    out->cases = up_eval_cases(p, m);
    out->ncases = p->suite->ncases;
    out->cost[0] = out->cost[1] = price ? 0 : -1;
    for (size_t i = 0; price && i < p->njobs; i++)
        if (p->jobs[i].model == m && p->jobs[i].done)
            out->cost[p->jobs[i].arm] += up_eval_job_cost(price, &p->jobs[i]);
}

/* Resolve spec as the next model of p, unless its id is one already;
 * *at gets its index. */
static int add_model(up_select_pool *p, const char *spec, size_t *at,
                     const char *base_url, const char *api_key_env,
                     const up_config *cfg, up_error *err)
{
    up_model *m = &p->m[p->n];
    int rc;

    up_model_init(m);
    rc = up_model_resolve(m, spec, base_url, api_key_env, cfg, err);
    for (size_t i = 0; !rc && i < p->n; i++)
        if (!strcmp(p->m[i].resolved, m->resolved)) {
            *at = i; /* given twice, or the model to beat a candidate */
            rc = 1;
        }
    if (rc) {
        up_model_release(m);
        return rc > 0 ? 0 : rc;
    }
    *at = p->n;
    p->specs[p->n] = spec;
    p->want[p->n].id = m->resolved;
    p->want[p->n].price = up_config_price(cfg, m->resolved, m->model_id);
    p->n++;
    return 0;
}

int up_select_pool_init(up_select_pool *p, const char *const *specs,
                        size_t nspecs, const char *beat, const char *base_url,
                        const char *api_key_env, const up_config *cfg,
                        up_error *err)
{
    size_t cap = nspecs + 1, at;
    int rc = 0;

    memset(p, 0, sizeof(*p));
    p->specs = up_xcalloc(cap, sizeof(*p->specs));
    p->m = up_xcalloc(cap, sizeof(*p->m));
    p->want = up_xcalloc(cap, sizeof(*p->want));
    p->ev = up_xcalloc(cap, sizeof(*p->ev));
    for (size_t i = 0; i < nspecs && !rc; i++)
        rc = add_model(p, specs[i], &at, base_url, api_key_env, cfg, err);
    if (!rc && beat) {
        size_t before = p->n;

        rc = add_model(p, beat, &p->ref, base_url, api_key_env, cfg, err);
        p->ref_only = p->n > before;
    }
    return rc;
}

void up_select_pool_release(up_select_pool *p)
{
    for (size_t i = 0; i < p->n; i++) {
        up_model_release(&p->m[i]);
        up_select_model_release(&p->ev[i]);
    }
    free(p->specs);
    free(p->m);
    free(p->want);
    free(p->ev);
    memset(p, 0, sizeof(*p));
}

const char **up_select_pool_missing(const up_select_pool *p, size_t *n)
{
    const char **v = up_xcalloc(p->n + 1, sizeof(*v));

    *n = 0;
    for (size_t i = 0; i < p->n; i++)
        if (!p->ev[i].reused)
            v[(*n)++] = p->specs[i];
    return v;
}

void up_select_pool_fill(up_select_pool *p, const up_eval_plan *plan,
                         const char *batch_dir)
{
    for (size_t i = 0, m = 0; i < p->n && m < plan->nmodels; i++) {
        if (p->ev[i].reused)
            continue;
        up_select_from_plan(&p->ev[i], plan, m++, p->want[i].price);
        if (batch_dir && *batch_dir)
            p->ev[i].batch = up_xstrdup(batch_dir);
    }
    if (p->ref_only)
        p->ev[p->ref].ref_only = 1;
}

json_t *up_select_identity(const up_skill *skill, const up_suite *suite,
                           int runs, enum up_inject inject)
{
    up_eval_plan p;
    json_t *o;

    up_eval_plan_init(&p, skill, suite, NULL, 0, runs, 1, inject);
    o = up_eval_batch_identity(&p);
    up_eval_plan_release(&p);
    return o;
}

/* What one look at the runs folder shares. */
struct reuse {
    up_select_model *out;
    const up_select_want *want;
    size_t nw;
    size_t ncases;
    int runs;
    const json_t *identity;
    char ***notes;
};

static void note(struct reuse *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A line of *r->notes: why a batch made for the same is not reused. */
static void note(struct reuse *r, const char *fmt, ...)
{
    up_buf line = UP_BUF_INIT;
    size_t n = 0;
    va_list ap;

    va_start(ap, fmt);
    up_buf_vaddf(&line, fmt, ap);
    va_end(ap);
    while (*r->notes && (*r->notes)[n])
        n++;
    *r->notes = up_xrealloc(*r->notes, (n + 2) * sizeof(**r->notes));
    (*r->notes)[n] = up_buf_detach(&line);
    (*r->notes)[n + 1] = NULL;
}

/* 1 when plan (a batch's batch_plan.json) was made for r's identity,
 * whatever its models and seed. */
static int same_identity(const struct reuse *r, const json_t *plan)
{
    json_t *now = json_deep_copy(r->identity);
    char *va, *vb;
    const char *what;

    json_object_set(now, "models", json_object_get(plan, "models"));
    json_object_del(now, "seed");
    what = up_eval_batch_differs(plan, now, 1, &va, &vb);
    free(va);
    free(vb);
    json_decref(now);
    return what == NULL;
}

/* Index of a wanted model not covered yet that plan runs, or nw. */
static size_t wanted_in(const struct reuse *r, const json_t *plan, size_t from)
{
    const json_t *models = json_object_get(plan, "models"), *m;
    size_t i;

    for (size_t w = from; w < r->nw; w++) {
        if (r->out[w].cases)
            continue;
        json_array_foreach(models, i, m)
        {
            if (json_is_string(m) &&
                !strcmp(json_string_value(m), r->want[w].id))
                return w;
        }
    }
    return r->nw;
}

/* Conversations of m answered in the batch (of ncases cases) that count
 * for r: at most r->runs per case and arm, over r's cases. */
static size_t answered(const struct reuse *r, const up_report_model *m,
                       size_t ncases)
{
    size_t n = 0, runs = (size_t)r->runs;

    for (size_t k = 0; k < r->ncases && k < ncases; k++) {
        const up_stats_case *c = &m->cells[k].c;

        n += c->base_runs < runs ? c->base_runs : runs;
        n += c->skill_runs < runs ? c->skill_runs : runs;
    }
    return n;
}

/* Model w's evidence from batch b (folder dir). */
static void take(struct reuse *r, size_t w, const up_report_model *m,
                 const char *dir)
{
    up_select_model *o = &r->out[w];

    o->model = up_xstrdup(r->want[w].id);
    o->ncases = r->ncases;
    o->cases = up_xcalloc(r->ncases + 1, sizeof(*o->cases));
    for (size_t k = 0; k < r->ncases; k++)
        o->cases[k] = m->cells[k].c;
    for (int a = 0; a < 2; a++)
        o->cost[a] = up_eval_cost(r->want[w].price, &m->usage[a]);
    o->batch = up_xstrdup(dir);
    o->reused = 1;
}

/* The wanted models the loaded batch b covers whole. */
static void take_models(struct reuse *r, const up_report_batch *b,
                        const json_t *plan)
{
    for (size_t w = wanted_in(r, plan, 0); w < r->nw;
         w = wanted_in(r, plan, w + 1)) {
        const up_report_model *m = NULL;
        size_t all = 2 * r->ncases * (size_t)r->runs, got = 0;

        for (size_t i = 0; i < b->nmodels && !m; i++)
            if (!strcmp(b->models[i].model, r->want[w].id))
                m = &b->models[i];
        got = m ? answered(r, m, b->ncases) : 0;
        if (got == all && b->ncases == r->ncases)
            take(r, w, m, b->dir);
        else
            note(r,
                 "not reusing '%s' for %s: %zu of its %zu conversations "
                 "errored or are missing (running it again)",
                 b->dir, r->want[w].id, all - got, all);
    }
}

/* Batch folder dir, when it was made for the identity and runs a model
 * still wanted. */
static void look_at(struct reuse *r, const char *dir)
{
    up_buf path = UP_BUF_INIT;
    json_t *plan = NULL;
    up_error e = {0, ""};
    up_report_batch b;

    up_fs_join(&path, dir, UP_EVAL_BATCH_PLAN);
    if (up_json_load_file(&plan, path.data, &e) || !same_identity(r, plan) ||
        wanted_in(r, plan, 0) == r->nw)
        goto out;
    up_buf_reset(&path);
    up_fs_join(&path, dir, "batch_summary.json");
    if (!up_fs_is_file(path.data)) {
        up_buf_reset(&path);
        up_fs_basename(&path, dir);
        note(r,
             "not reusing '%s': it did not finish (no batch_summary.json; "
             "`upskill eval --resume %s` finishes it)",
             dir, path.data);
        goto out;
    }
    if (up_report_batch_load(&b, dir, 1, &e)) {
        note(r, "not reusing '%s': %s", dir, e.msg);
        goto out;
    }
    take_models(r, &b, plan);
    up_report_batch_release(&b);
out:
    json_decref(plan);
    up_buf_release(&path);
}

static int newest_first(const void *a, const void *b)
{
    return strcmp(*(char *const *)b, *(char *const *)a);
}

/* 1 once every wanted model is covered. */
static int all_covered(const struct reuse *r)
{
    for (size_t w = 0; w < r->nw; w++)
        if (!r->out[w].reused)
            return 0;
    return 1;
}

int up_select_reuse(up_select_model *out, char ***notes,
                    const up_select_want *want, size_t nw, const char *runs_dir,
                    const json_t *identity, size_t ncases, up_error *err)
{
    struct reuse r = {
        out,      want, nw, ncases, (int)up_json_long(identity, "runs", 1),
        identity, notes};
    char **names = NULL;
    size_t n = 0;
    int rc;

    *notes = up_xcalloc(1, sizeof(**notes));
    if (!up_fs_is_dir(runs_dir))
        return 0;
    rc = up_fs_list(&names, &n, runs_dir, err);
    if (!rc)
        qsort(names, n, sizeof(*names), newest_first);
    for (size_t i = 0; !rc && i < n && !all_covered(&r); i++) {
        up_buf dir = UP_BUF_INIT;

        up_fs_join(&dir, runs_dir, names[i]);
        if (up_fs_is_dir(dir.data))
            look_at(&r, dir.data);
        up_buf_release(&dir);
    }
    up_strv_free(names);
    return rc;
}
