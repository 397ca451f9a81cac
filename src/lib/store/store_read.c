/*
 * Reading the run store back: loading run results (ours or upstream's),
 * pairing with-skill runs with their baselines, and the CSV export.  A
 * file that cannot be read is skipped with a message saying which and why,
 * never silently: the caller decides how to show them.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/store/store_lib.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/model.h"
#include "upskill/store.h"
#include "util/json.h"

static char *dup_or_null(const char *s)
{
    return s ? up_xstrdup(s) : NULL;
}

/* A compare batch's "compare": {"arm": "A"|"B", "skill_name": NAME}. */
static void read_compare(up_run_record *r, const json_t *c)
{
    const char *arm = up_json_str(c, "arm");

    if (!json_is_object(c) || !arm || (strcmp(arm, "A") && strcmp(arm, "B")))
        return;
    r->compare_arm = !strcmp(arm, "A") ? "A" : "B";
    r->arm_skill = dup_or_null(up_json_str(c, "skill_name"));
}

/* A share in [lo, 1] into *out; 0 when x is not such a number. */
static int share(const json_t *x, double lo, double *out)
{
    double v;

    if (!json_is_number(x))
        return 0;
    v = json_number_value(x);
    if (!isfinite(v) || v < lo || v > 1)
        return 0;
    *out = v;
    return 1;
}

/*
 * "skillsbench" of a run (docs/runs-format.md): read only when every
 * member is what it should be (shares in [0, 1], the difference in
 * [-1, 1], g at most 1 or null, at most UP_STORE_SB_TASKS_MAX tasks);
 * anything else leaves the run without a view.
 */
static int sb_from_json(up_sbview *v, const json_t *o)
{
    const json_t *t = json_object_get(o, "tasks");
    const json_t *g = json_object_get(o, "g");
    const json_t *ci = json_object_get(o, "ci95_difference");
    int ok;

    memset(v, 0, sizeof(*v));
    if (!json_is_integer(t) || json_integer_value(t) < 1 ||
        json_integer_value(t) > UP_STORE_SB_TASKS_MAX)
        return 0;
    v->n = (size_t)json_integer_value(t);
    ok = share(json_object_get(o, "with"), 0, &v->with) &&
         share(json_object_get(o, "without"), 0, &v->without) &&
         share(json_object_get(o, "difference"), -1, &v->diff);
    v->has_g = !json_is_null(g);
    if (v->has_g)
        ok = ok && json_is_number(g) && isfinite(json_number_value(g)) &&
             json_number_value(g) <= 1 && json_number_value(g) >= -1e9;
    v->g = v->has_g && ok ? json_number_value(g) : 0;
    v->has_ci = !json_is_null(ci);
    if (v->has_ci)
        ok = ok && share(json_object_get(o, "ci95_with"), 0, &v->ci_with) &&
             share(json_object_get(o, "ci95_without"), 0, &v->ci_without) &&
             share(ci, 0, &v->ci_diff);
    if (!ok)
        memset(v, 0, sizeof(*v));
    return ok;
}

static void record_from_json(up_run_record *r, const json_t *o)
{
    const json_t *md = json_object_get(o, "metadata");
    const json_t *st = json_object_get(o, "stats");

    up_run_record_init(r);
    r->model = dup_or_null(up_json_str(md, "model"));
    r->task = dup_or_null(up_json_str(md, "task"));
    r->batch_id = dup_or_null(up_json_str(md, "batch_id"));
    r->run_number = (int)up_json_long(md, "run_number", 0);
    r->timestamp = dup_or_null(up_json_str(md, "timestamp"));
    r->run_type = dup_or_null(up_json_str(o, "run_type"));
    r->skill_name = dup_or_null(up_json_str(o, "skill_name"));
    r->error_message = dup_or_null(up_json_str(o, "error_message"));
    r->passed = json_is_true(json_object_get(o, "passed"));
    r->all_passed = json_is_true(json_object_get(o, "all_cases_passed"));
    r->assertions_passed = up_json_long(o, "assertions_passed", 0);
    r->assertions_total = up_json_long(o, "assertions_total", 0);
    r->span_ms = up_json_num(st, "conversation_span_ms", 0);
    r->llm_time_ms = up_json_num(st, "llm_time_ms", 0);
    r->tool_time_ms = up_json_num(st, "tool_time_ms", 0);
    r->turns = up_json_long(st, "turns", 0);
    r->tool_calls = up_json_long(st, "tool_calls", 0);
    r->tool_errors = up_json_long(st, "tool_errors", 0);
    r->execute_calls = up_json_long(st, "execute_calls", 0);
    r->input_tokens = up_json_long(st, "input_tokens", 0);
    r->output_tokens = up_json_long(st, "output_tokens", 0);
    r->total_tokens = up_json_long(st, "total_tokens", 0);
    r->cached_tokens = up_json_long(st, "cached_tokens", 0);
    r->reasoning_tokens = up_json_long(st, "reasoning_tokens", 0);
    r->cases_passed = up_json_long(o, "cases_passed", 0);
    r->cases_total = up_json_long(o, "cases_total", 0);
    r->cases_errored = up_json_long(o, "cases_errored", 0);
    r->repeat = (int)up_json_long(o, "repeat", 1);
    r->attempt = (int)up_json_long(o, "attempt", 0);
    r->upstream = !json_object_get(o, "repeat");
    r->cost_usd = up_json_num(o, "cost_usd", -1);
    r->has_sb = json_is_object(json_object_get(o, "skillsbench")) &&
                sb_from_json(&r->sb, json_object_get(o, "skillsbench"));
    read_compare(r, json_object_get(o, "compare"));
}

struct loader {
    up_run_record *v;
    size_t n, cap;
    char **warn; /* one message per skipped file or record */
    size_t nwarn, wcap;
};

static void skipped(struct loader *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void skipped(struct loader *l, const char *fmt, ...)
{
    up_buf b = UP_BUF_INIT;
    va_list ap;

    va_start(ap, fmt);
    up_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    UP_GROW(l->warn, l->wcap, l->nwarn + 2);
    l->warn[l->nwarn++] = up_buf_detach(&b);
    l->warn[l->nwarn] = NULL;
}

/* where names the record for a message: a file, or an entry of one. */
static up_run_record *add_record(struct loader *l, const json_t *o,
                                 const char *batch, const char *where)
{
    up_run_record *r;

    if (!json_is_object(o)) {
        skipped(l, "%s: expected a run result object", where);
        return NULL;
    }
    UP_GROW(l->v, l->cap, l->n + 1);
    r = &l->v[l->n++];
    record_from_json(r, o);
    if (!r->batch_id)
        r->batch_id = up_xstrdup(batch);
    return r;
}

/*
 * A batch without batch_summary.json (interrupted, or upstream's) is read
 * from its run files quietly; one that has a broken summary is too, but
 * the summary is reported.
 */
static int load_summary(struct loader *l, const char *dir, const char *batch)
{
    up_buf path = UP_BUF_INIT, where = UP_BUF_INIT;
    json_t *o = NULL, *results, *item, *kept;
    up_error err;
    size_t i;

    up_fs_join(&path, dir, "batch_summary.json");
    if (!up_fs_exists(path.data)) {
        up_buf_release(&path);
        return -1;
    }
    if (up_json_load_file(&o, path.data, &err))
        skipped(l, "%s (its run files are read instead)", err.msg);
    results = json_object_get(o, "results");
    if (o && !json_is_array(results))
        skipped(l, "'%s': no \"results\" list (its run files are read instead)",
                path.data);
    if (!json_is_array(results)) {
        json_decref(o);
        up_buf_release(&path);
        return -1;
    }
    kept = json_object_get(
        json_object_get(json_object_get(o, "stats"), "generate"),
        "kept_attempt");
    json_array_foreach(results, i, item)
    {
        up_run_record *r;

        up_buf_reset(&where);
        up_buf_addf(&where, "'%s': results[%zu]", path.data, i);
        r = add_record(l, item, batch, where.data);

        /* generate logs every attempt; only the kept one speaks for it */
        if (r && json_is_integer(kept) && r->attempt > 0 &&
            r->attempt != json_integer_value(kept))
            r->superseded = 1;
    }
    json_decref(o);
    up_buf_release(&path);
    up_buf_release(&where);
    return 0;
}

static int run_num(const char *name)
{
    char *end;
    long v;

    if (strncmp(name, "run_", 4))
        return -1;
    v = strtol(name + 4, &end, 10);
    return (*end || v < 0 || v > 1000000) ? -1 : (int)v;
}

static int cmp_run_names(const void *a, const void *b)
{
    return run_num(*(char *const *)a) - run_num(*(char *const *)b);
}

/*
 * A run folder with run_metadata.json but no run_result.json: upstream's
 * CSV row for it (passed false, "No result file found").  It has no
 * run_type, so it never enters a comparison.
 */
static int add_metadata_only(struct loader *l, const char *dir,
                             const char *name, const char *batch)
{
    up_buf path = UP_BUF_INIT;
    json_t *md = NULL, *o;
    up_error err;
    up_run_record *r;
    int rc;

    up_buf_addf(&path, "%s/%s/run_metadata.json", dir, name);
    rc = up_json_load_file(&md, path.data, &err);
    up_buf_release(&path);
    if (rc)
        return rc;
    o = json_pack("{s:O}", "metadata", md);
    r = add_record(l, o, batch, "run_metadata.json");
    if (r)
        r->error_message = up_xstrdup("No result file found");
    json_decref(o);
    json_decref(md);
    return 0;
}

static void load_runs(struct loader *l, const char *dir, const char *batch)
{
    char **names = NULL;
    size_t n = 0;

    if (up_fs_list(&names, &n, dir, NULL))
        return;
    qsort(names, n, sizeof(*names), cmp_run_names);
    for (size_t i = 0; i < n; i++) {
        up_buf path = UP_BUF_INIT, where = UP_BUF_INIT;
        json_t *o = NULL;
        up_error err;

        if (run_num(names[i]) < 0)
            continue;
        up_buf_addf(&path, "%s/%s/run_result.json", dir, names[i]);
        if (up_json_load_file(&o, path.data, &err) == 0) {
            up_buf_addf(&where, "'%s'", path.data);
            add_record(l, o, batch, where.data);
        } else if (up_fs_exists(path.data) ||
                   add_metadata_only(l, dir, names[i], batch)) {
            skipped(l, "%s", err.msg);
        }
        json_decref(o);
        up_buf_release(&where);
        up_buf_release(&path);
    }
    up_strv_free(names);
}

static int same_group(const up_run_record *a, const up_run_record *b)
{
    return a->batch_id && b->batch_id && !strcmp(a->batch_id, b->batch_id) &&
           a->model && b->model && !strcmp(a->model, b->model) &&
           a->skill_name && b->skill_name &&
           !strcmp(a->skill_name, b->skill_name);
}

static int is_type(const up_run_record *r, const char *type)
{
    return r->run_type && !strcmp(r->run_type, type);
}

/*
 * Upstream's baseline for with-skill run w among v[0..n): of the baselines
 * of w's batch, model and skill, the last with run_number <= w's, else
 * the last one; NULL when there is none.
 */
static const up_run_record *upstream_baseline(const up_run_record *v, size_t n,
                                              const up_run_record *w)
{
    const up_run_record *before = NULL, *last = NULL;

    for (size_t i = 0; i < n; i++) {
        const up_run_record *b = &v[i];

        if (!is_type(b, "baseline") || !same_group(b, w))
            continue;
        if (!last || b->run_number >= last->run_number)
            last = b;
        if (b->run_number <= w->run_number &&
            (!before || b->run_number >= before->run_number))
            before = b;
    }
    return before ? before : last;
}

/*
 * An upstream generate batch logs a baseline and a with-skill run per
 * attempt and saves the last attempt's skill: only the last with-skill
 * run of a (model, skill) and its baseline speak for the batch.  Such a
 * batch is one whose group holds several upstream baselines.
 */
static void mark_upstream_attempts(up_run_record *v, size_t from, size_t n)
{
    for (size_t i = from; i < n; i++) {
        const up_run_record *last = NULL, *base;
        size_t nbase = 0;

        if (!v[i].upstream || !is_type(&v[i], "with_skill"))
            continue;
        for (size_t j = from; j < n; j++) {
            if (!v[j].upstream || !same_group(&v[j], &v[i]))
                continue;
            nbase += is_type(&v[j], "baseline");
            if (is_type(&v[j], "with_skill") &&
                (!last || v[j].run_number > last->run_number))
                last = &v[j];
        }
        if (nbase < 2)
            continue;
        base = upstream_baseline(v + from, n - from, last);
        for (size_t j = from; j < n; j++)
            if (v[j].upstream && same_group(&v[j], &v[i]) && &v[j] != last &&
                &v[j] != base)
                v[j].superseded = 1;
    }
}

/* One batch folder dir (named name) into l. */
static void load_batch(struct loader *l, const char *dir, const char *name)
{
    size_t first = l->n;

    if (up_fs_is_dir(dir) && load_summary(l, dir, name))
        load_runs(l, dir, name);
    mark_upstream_attempts(l->v, first, l->n);
}

static void loader_done(struct loader *l, up_run_record **runs, size_t *n,
                        char ***skipped_files)
{
    *runs = l->v;
    *n = l->n;
    if (!l->warn)
        l->warn = up_xcalloc(1, sizeof(*l->warn));
    if (skipped_files)
        *skipped_files = l->warn;
    else
        up_strv_free(l->warn);
}

int up_store_load_batch(up_run_record **runs, size_t *n, char ***skipped_files,
                        const char *batch_dir)
{
    struct loader l = {NULL, 0, 0, NULL, 0, 0};
    up_buf name = UP_BUF_INIT;

    up_fs_basename(&name, batch_dir);
    load_batch(&l, batch_dir, name.data);
    up_buf_release(&name);
    loader_done(&l, runs, n, skipped_files);
    return 0;
}

int up_store_load(up_run_record **runs, size_t *n, char ***skipped_files,
                  const char *runs_dir, up_error *err)
{
    struct loader l = {NULL, 0, 0, NULL, 0, 0};
    char **names = NULL;
    int rc = up_fs_list(&names, NULL, runs_dir, err);

    if (rc)
        return rc;
    for (char **p = names; *p; p++) {
        up_buf dir = UP_BUF_INIT;

        up_fs_join(&dir, runs_dir, *p);
        load_batch(&l, dir.data, *p);
        up_buf_release(&dir);
    }
    up_strv_free(names);
    loader_done(&l, runs, n, skipped_files);
    return 0;
}

void up_store_free(up_run_record *runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        up_run_record_release(&runs[i]);
    free(runs);
}

double up_run_rate(const up_run_record *r)
{
    return r->assertions_total
               ? (double)r->assertions_passed / (double)r->assertions_total
               : 0.0;
}

static int in_list(const char *s, const char *const *list, size_t n)
{
    if (!n)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (s && !strcmp(s, list[i]))
            return 1;
    return 0;
}

char *up_store_model_key(const char *s, const up_config *cfg)
{
    up_model m;
    up_error e;
    char *key;

    up_model_init(&m);
    if (up_model_resolve(&m, s, NULL, NULL, cfg, &e) || !m.resolved)
        key = up_xstrdup(s);
    else
        key = up_xstrdup(m.resolved);
    up_model_release(&m);
    return key;
}

up_run_record *up_store_pick_models(const up_run_record *runs, size_t n,
                                    const char *const *keys, size_t nkeys,
                                    const up_config *cfg, size_t *nout)
{
    up_run_record *v = up_xcalloc(n + 1, sizeof(*v));

    *nout = 0;
    for (size_t i = 0; i < n; i++) {
        char *key =
            runs[i].model ? up_store_model_key(runs[i].model, cfg) : NULL;

        if (key && in_list(key, keys, nkeys))
            v[(*nout)++] = runs[i];
        free(key);
    }
    return v;
}

void up_store_key_models(up_run_record *runs, size_t n, const up_config *cfg)
{
    for (size_t i = 0; i < n; i++) {
        char *key;

        if (!runs[i].model)
            continue;
        key = up_store_model_key(runs[i].model, cfg);
        free(runs[i].model);
        runs[i].model = key;
    }
}

static int same(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

static const char *skill_of(const up_run_record *r)
{
    return r->skill_name ? r->skill_name : "unknown";
}

struct pool {
    long passed, total, runs;
    double tokens;
    long cases, errored; /* cases run and cases errored */
    const char *error;   /* the first error_message */
    const up_sbview *sb; /* the first run's SkillsBench view */
};

/* Pool the runs of one arm in one batch for (model, skill). */
static struct pool pool_arm(const up_run_record *runs, size_t n,
                            const up_run_record *key, const char *batch,
                            const char *type)
{
    struct pool p = {0, 0, 0, 0, 0, 0, NULL, NULL};

    for (size_t i = 0; i < n; i++) {
        const up_run_record *r = &runs[i];

        if (r->superseded || !same(r->batch_id, batch) ||
            !same(r->run_type, type) || !same(r->model, key->model) ||
            strcmp(skill_of(r), skill_of(key)))
            continue;
        p.passed += r->assertions_passed;
        p.total += r->assertions_total;
        p.tokens += (double)r->total_tokens;
        p.runs++;
        p.cases += r->cases_total;
        p.errored += r->cases_errored;
        if (!p.error)
            p.error = r->error_message;
        if (!p.sb && r->has_sb)
            p.sb = &r->sb;
    }
    return p;
}

/* Nothing was answered: the rate of these runs is no result. */
static int pool_errored(struct pool p)
{
    return p.cases > 0 && p.errored >= p.cases;
}

static double pool_rate(struct pool p)
{
    return p.total ? (double)p.passed / (double)p.total : 0.0;
}

/* Latest baseline batch for key's (model, skill) at or before index i. */
static const char *earlier_baseline(const up_run_record *runs, size_t i,
                                    const up_run_record *key)
{
    while (i-- > 0)
        if (same(runs[i].run_type, "baseline") &&
            same(runs[i].model, key->model) &&
            !strcmp(skill_of(&runs[i]), skill_of(key)))
            return runs[i].batch_id;
    return NULL;
}

static void fill_compare(up_compare *c, const up_run_record *runs, size_t n,
                         size_t at)
{
    const up_run_record *key = &runs[at];
    struct pool w = pool_arm(runs, n, key, key->batch_id, "with_skill");
    struct pool b = pool_arm(runs, n, key, key->batch_id, "baseline");

    c->base_batch = NULL;
    if (!b.runs) {
        const char *bb = earlier_baseline(runs, at, key);

        if (bb)
            b = pool_arm(runs, n, key, bb, "baseline");
        c->base_batch = b.runs ? bb : NULL;
    }
    c->model = key->model ? key->model : "unknown";
    c->skill = skill_of(key);
    c->batch_id = key->batch_id;
    c->with_rate = pool_rate(w);
    c->with_tokens = w.runs ? w.tokens / (double)w.runs : 0;
    c->has_baseline = b.runs > 0;
    c->base_rate = pool_rate(b);
    c->base_tokens = b.runs ? b.tokens / (double)b.runs : 0;
    c->nruns = (size_t)w.runs;
    c->with_errored = pool_errored(w);
    c->base_errored = b.runs && pool_errored(b);
    c->error = c->with_errored ? w.error : c->base_errored ? b.error : NULL;
    c->sb = w.sb;
    c->arm_a = c->arm_b = NULL;
    for (size_t i = 0; key->compare_arm && i < n; i++)
        if (same(runs[i].batch_id, key->batch_id) &&
            same(runs[i].model, key->model) && runs[i].compare_arm) {
            const char **to =
                !strcmp(runs[i].compare_arm, "A") ? &c->arm_a : &c->arm_b;

            if (!*to)
                *to = runs[i].arm_skill ? runs[i].arm_skill : "";
        }
}

static int cmp_compare(const void *a, const void *b)
{
    const up_compare *x = a, *y = b;
    int c = strcmp(x->skill, y->skill);

    return c ? c : strcmp(x->model, y->model);
}

static up_compare *find_pair(up_compare *v, size_t n, const char *model,
                             const char *skill)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].model, model) && !strcmp(v[i].skill, skill))
            return &v[i];
    return NULL;
}

static int run_errored(const up_run_record *r)
{
    return r->cases_total > 0 && r->cases_errored >= r->cases_total;
}

/* Upstream's comparison for one with-skill run and its baseline. */
static void fill_upstream(up_compare *c, const up_run_record *runs, size_t n,
                          const up_run_record *w)
{
    const up_run_record *b = upstream_baseline(runs, n, w);

    memset(c, 0, sizeof(*c)); /* --best is upstream's pick: no A/B names */
    c->model = w->model ? w->model : "unknown";
    c->skill = skill_of(w);
    c->batch_id = w->batch_id;
    c->with_rate = up_run_rate(w);
    c->with_tokens = (double)w->total_tokens;
    c->has_baseline = b != NULL;
    c->base_batch = NULL; /* upstream's pick: its own batch's baseline */
    c->base_rate = b ? up_run_rate(b) : 0;
    c->base_tokens = b ? (double)b->total_tokens : 0;
    c->nruns = 1;
    c->with_errored = run_errored(w);
    c->base_errored = b && run_errored(b);
    c->sb = NULL; /* upstream's pick: one run, no view over the batch */
    c->error = c->with_errored   ? w->error_message
               : c->base_errored ? b->error_message
                                 : NULL;
}

/*
 * --best: upstream's pick exactly.  Every with-skill run counts on its
 * own (generate's earlier attempts and each repeat too), paired with
 * upstream's baseline; the highest rate wins, ties keep the earliest.
 */
static void upstream_best(up_compare **out, size_t *nout,
                          const up_run_record *runs, size_t n,
                          const char *const *skills, size_t nskills,
                          const char *const *models, size_t nmodels)
{
    up_compare *v = NULL, c;
    size_t nv = 0, cap = 0;

    for (size_t i = 0; i < n; i++) {
        const up_run_record *r = &runs[i];
        up_compare *old;

        if (!same(r->run_type, "with_skill") ||
            !in_list(skill_of(r), skills, nskills) ||
            !in_list(r->model, models, nmodels))
            continue;
        fill_upstream(&c, runs, n, r);
        old = find_pair(v, nv, c.model, c.skill);
        if (!old) {
            UP_GROW(v, cap, nv + 1);
            v[nv++] = c;
        } else if (c.with_rate > old->with_rate) {
            *old = c;
        }
    }
    if (nv)
        qsort(v, nv, sizeof(*v), cmp_compare);
    *out = v;
    *nout = nv;
}

void up_store_compare(up_compare **out, size_t *nout, const up_run_record *runs,
                      size_t n, const char *const *skills, size_t nskills,
                      const char *const *models, size_t nmodels, int best)
{
    up_compare *v = NULL, c;
    size_t nv = 0, cap = 0;

    if (best) {
        upstream_best(out, nout, runs, n, skills, nskills, models, nmodels);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const up_run_record *r = &runs[i];
        up_compare *old;

        if (r->superseded || !same(r->run_type, "with_skill") ||
            !in_list(skill_of(r), skills, nskills) ||
            !in_list(r->model, models, nmodels))
            continue;
        fill_compare(&c, runs, n, i);
        old = find_pair(v, nv, c.model, c.skill);
        if (!old) {
            UP_GROW(v, cap, nv + 1);
            v[nv++] = c;
        } else if (!c.with_errored || old->with_errored) {
            *old = c; /* a later batch that answered nothing hides none */
        }
    }
    if (nv)
        qsort(v, nv, sizeof(*v), cmp_compare);
    *out = v;
    *nout = nv;
}

static void csv_field(up_buf *b, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        up_buf_adds(b, s);
        return;
    }
    up_buf_addc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            up_buf_addc(b, '"');
        up_buf_addc(b, *s);
    }
    up_buf_addc(b, '"');
}

/* The digits and decimal exponent of v's shortest round-trip form. */
static int shortest_digits(char *digits, size_t size, double v)
{
    char s[40], *p, *e;
    size_t n = 0;
    int prec;

    for (prec = 1; prec < 17; prec++) {
        snprintf(s, sizeof(s), "%.*e", prec - 1, v);
        if (strtod(s, NULL) == v)
            break;
    }
    snprintf(s, sizeof(s), "%.*e", prec - 1, v);
    e = strchr(s, 'e');
    for (p = s; p < e && n + 1 < size; p++)
        if (*p >= '0' && *p <= '9')
            digits[n++] = *p;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    return (int)strtol(e + 1, NULL, 10);
}

/*
 * v as Python's repr(float) writes it (upstream's CSV): the shortest text
 * that reads back as v, "1.0" not "1", exponent form below 1e-4 and from
 * 1e16 ("1e+16", "1.5e-05").
 */
static void py_float(up_buf *b, double v)
{
    char d[24];
    int exp, nd;

    if (isnan(v) || isinf(v)) {
        up_buf_adds(b, isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
        return;
    }
    if (signbit(v))
        up_buf_addc(b, '-');
    exp = shortest_digits(d, sizeof(d), fabs(v));
    nd = (int)strlen(d);
    if (exp < -4 || exp >= 16) {
        up_buf_addf(b, "%c%s%s", d[0], nd > 1 ? "." : "", d + 1);
        up_buf_addf(b, "e%c%02d", exp < 0 ? '-' : '+', abs(exp));
    } else if (exp < 0) {
        up_buf_addf(b, "0.%.*s%s", -exp - 1, "0000", d);
    } else {
        for (int i = 0; i <= exp; i++)
            up_buf_addc(b, i < nd ? d[i] : '0');
        up_buf_addf(b, ".%s", nd > exp + 1 ? d + exp + 1 : "0");
    }
}

/*
 * A timestamp as upstream's CSV writes it: the datetime pydantic parsed,
 * back through isoformat(), so the "Z" of a UTC stamp (ours before issue
 * 25) becomes "+00:00"; every other stamp is written as it is.
 */
static void csv_timestamp(up_buf *b, const char *t)
{
    size_t n = t ? strlen(t) : 0;

    if (n > 1 && t[n - 1] == 'Z') {
        up_buf_add(b, t, n - 1);
        up_buf_adds(b, "+00:00");
        return;
    }
    csv_field(b, t);
}

static void csv_row(up_buf *b, const up_run_record *r)
{
    csv_field(b, r->batch_id);
    up_buf_addf(b, ",%d,", r->run_number);
    csv_field(b, r->model);
    up_buf_addc(b, ',');
    csv_field(b, r->task);
    up_buf_addc(b, ',');
    csv_timestamp(b, r->timestamp);
    up_buf_addf(b, ",%s,%ld,%ld,%ld,%ld,%ld,", r->passed ? "True" : "False",
                r->assertions_passed, r->assertions_total, r->input_tokens,
                r->output_tokens, r->total_tokens);
    py_float(b, r->span_ms);
    up_buf_addc(b, ',');
    py_float(b, r->llm_time_ms);
    up_buf_addc(b, ',');
    py_float(b, r->tool_time_ms);
    up_buf_addf(b, ",%ld,%ld,%ld,0,%ld,", r->turns, r->tool_calls,
                r->tool_errors, r->execute_calls);
    csv_field(b, r->error_message);
    up_buf_adds(b, ",,,");
    csv_field(b, r->run_type);
    up_buf_addc(b, ',');
    csv_field(b, r->skill_name);
    up_buf_addf(b, ",%ld,%ld,", r->cached_tokens, r->reasoning_tokens);
    if (r->cost_usd >= 0)
        up_buf_addf(b, "%.6f", r->cost_usd);
    up_buf_adds(b, "\r\n"); /* Python's csv module ends rows so */
}

int up_store_csv(const char *path, const up_run_record *runs, size_t n,
                 const char *const *skills, size_t nskills,
                 const char *const *models, size_t nmodels, up_error *err)
{
    up_buf b = UP_BUF_INIT, dir = UP_BUF_INIT;
    int rc;

    up_buf_adds(&b, "batch_id,run_number,model,task,timestamp,passed,"
                    "assertions_passed,assertions_total,input_tokens,"
                    "output_tokens,total_tokens,conversation_span_ms,"
                    "llm_time_ms,tool_time_ms,turns,tool_calls,tool_errors,"
                    "mcp_calls,execute_calls,error_message,session_id,"
                    "session_history_file,run_type,skill_name,cached_tokens,"
                    "reasoning_tokens,cost_usd\r\n");
    for (size_t i = 0; i < n; i++)
        if (in_list(skill_of(&runs[i]), skills, nskills) &&
            in_list(runs[i].model, models, nmodels))
            csv_row(&b, &runs[i]);
    up_fs_dirname(&dir, path);
    rc = up_fs_is_dir(dir.data)
             ? 0
             : up_error_set(err, UP_ENOTFOUND, "'%s': no such folder for '%s'",
                            dir.data, path);
    if (!rc)
        rc = up_fs_write_atomic(path, b.data, b.len, 0644, err);
    up_buf_release(&b);
    up_buf_release(&dir);
    return rc;
}

/* ---- case artifacts -------------------------------------------------- */

/* Parse line n of path: it must be a JSON object. */
static int case_line(json_t **o, const char *line, size_t len, const char *path,
                     long n, up_error *err)
{
    json_error_t je;

    *o = json_loadb(line, len, 0, &je);
    if (json_is_object(*o))
        return 0;
    json_decref(*o);
    *o = NULL;
    return up_error_set(err, UP_EPARSE,
                        "'%s':%ld: expected a case artifact (a JSON object)",
                        path, n);
}

int up_store_cases_each(const char *path,
                        void (*fn)(void *ud, struct json_t *artifact), void *ud,
                        up_error *err)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long n = 0;
    int rc = 0;

    if (!f)
        return 0; /* a run folder without artifacts (upstream's) */
    while (!rc && (len = getline(&line, &cap, f)) > 0) {
        json_t *o = NULL;

        n++;
        rc = case_line(&o, line, (size_t)len, path, n, err);
        if (!rc)
            fn(ud, o);
        json_decref(o);
    }
    if (!rc && ferror(f))
        rc = up_error_set(err, UP_EIO, "'%s': cannot read: %s", path,
                          strerror(errno));
    free(line);
    fclose(f);
    return rc;
}

struct case_pick {
    json_t *out;
    size_t case_index;
};

static void pick_case(void *ud, json_t *o)
{
    struct case_pick *k = ud;

    if (up_json_long(o, "case_index", -1) == (long)k->case_index)
        json_array_append(k->out, o);
}

/* Append the artifacts of case_index in the cases file path to out. */
static int load_cases_in(json_t *out, const char *path, size_t case_index,
                         up_error *err)
{
    struct case_pick k = {out, case_index};

    return up_store_cases_each(path, pick_case, &k, err);
}

int up_store_case_load(json_t **out, const char *batch_dir, size_t case_index,
                       up_error *err)
{
    char **names = NULL;
    size_t n = 0;
    int rc = up_fs_list(&names, &n, batch_dir, err);

    *out = json_array();
    if (rc)
        return rc;
    qsort(names, n, sizeof(*names), cmp_run_names);
    for (size_t i = 0; i < n && !rc; i++) {
        up_buf path = UP_BUF_INIT;

        if (run_num(names[i]) >= 0) {
            up_buf_addf(&path, "%s/%s/%s", batch_dir, names[i],
                        UP_STORE_CASES_FILE);
            rc = load_cases_in(*out, path.data, case_index, err);
        }
        up_buf_release(&path);
    }
    up_strv_free(names);
    return rc;
}

int up_store_batch_latest(up_buf *id, const char *runs_dir, up_error *err)
{
    char **names = NULL;
    size_t n = 0;
    const char *best = NULL;
    int rc = up_fs_list(&names, &n, runs_dir, err);

    for (size_t i = 0; i < n && !rc; i++) {
        up_buf path = UP_BUF_INIT;

        up_fs_join(&path, runs_dir, names[i]);
        if (up_fs_is_dir(path.data) && (!best || strcmp(names[i], best) > 0))
            best = names[i];
        up_buf_release(&path);
    }
    if (!rc && best)
        up_buf_adds(id, best);
    else if (!rc)
        rc = up_error_set(err, UP_ENOTFOUND,
                          "'%s': no batch in the runs folder", runs_dir);
    up_strv_free(names);
    return rc;
}
