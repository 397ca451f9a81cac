/*
 * upskill report, loading: a batch's run files and case artifacts pooled
 * per model and case, and the comparison recomputed with stats.h (the
 * numbers eval printed, from the files alone).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/store/store_lib.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/report.h"
#include "upskill/store.h"
#include "util/json.h"

#include "report_int.h"

/* N of a "run_N" name, or -1. */
static int run_number(const char *name)
{
    char *end;
    long v;

    if (strncmp(name, "run_", 4) != 0 || !name[4])
        return -1;
    v = strtol(name + 4, &end, 10);
    return *end || v <= 0 || v > 1000000 ? -1 : (int)v;
}

static int cmp_runs(const void *a, const void *b)
{
    return run_number(*(char *const *)a) - run_number(*(char *const *)b);
}

/* Grow *v, *len elements of elem bytes, to hold index i; the new
 * elements are zeroed. */
static void grow_zeroed(void **v, size_t *len, size_t i, size_t elem)
{
    if (i < *len)
        return;
    *v = up_xrealloc(*v, (i + 1) * elem);
    memset((char *)*v + *len * elem, 0, (i + 1 - *len) * elem);
    *len = i + 1;
}
#define GROW_ZEROED(v, len, i)                                                 \
    grow_zeroed((void **)&(v), &(len), (i), sizeof(*(v)))

/* The model entry for name, added when new. */
static up_report_model *model_for(up_report_batch *b, const char *name)
{
    up_report_model *m;

    for (size_t i = 0; i < b->nmodels; i++)
        if (strcmp(b->models[i].model, name) == 0)
            return &b->models[i];
    b->models = up_xrealloc(b->models, (b->nmodels + 1) * sizeof(*m));
    m = &b->models[b->nmodels++];
    memset(m, 0, sizeof(*m));
    m->model = up_xstrdup(name);
    m->cells = up_xcalloc(b->ncases ? b->ncases : 1, sizeof(*m->cells));
    return m;
}

/* Grow every model's cells to hold case index ci. */
static void grow_cases(up_report_batch *b, size_t ci)
{
    if (ci < b->ncases)
        return;
    for (size_t i = 0; i < b->nmodels; i++) {
        size_t len = b->ncases; /* every model's cells are ncases long */

        GROW_ZEROED(b->models[i].cells, len, ci);
    }
    b->ncases = ci + 1;
}

/* An artifact's usage into sum (what it is priced from). */
static void add_usage(up_usage *sum, const json_t *u)
{
    sum->input += up_json_long(u, "input_tokens", 0);
    sum->output += up_json_long(u, "output_tokens", 0);
    sum->cached += up_json_long(u, "cached_tokens", 0);
}

/* The case's input, kept once per case (the matrix shows it). */
static void keep_text(up_report_batch *b, size_t ci, const char *input)
{
    if (!input)
        return;
    GROW_ZEROED(b->case_text, b->ntext, ci);
    if (!b->case_text[ci])
        b->case_text[ci] = up_xstrdup(input);
}

/* Pool one artifact into its model's cell. */
static void add_artifact(up_report_batch *b, const json_t *o, int run)
{
    const char *model = up_json_str(o, "model");
    const char *arm = up_json_str(o, "arm");
    long ci = up_json_long(o, "case_index", -1);
    const json_t *u = json_object_get(o, "usage");
    up_report_cell *c;
    int skill, untold;
    double tok;

    if (!model || !arm || ci < 0 || ci > 10000000 || !up_report_kept(b, o))
        return;
    skill = strcmp(arm, "with_skill") == 0;
    model_for(b, model);
    grow_cases(b, (size_t)ci);
    c = &model_for(b, model)->cells[ci];
    keep_text(b, (size_t)ci, up_json_str(o, "input"));
    if (!c->first_run[skill])
        c->first_run[skill] = run;
    add_usage(&model_for(b, model)->usage[skill], u);
    /* an error is no evidence, unless the arm's request outgrew the
     * context: a failed run whose tokens are untold (docs/eval.md) */
    untold = json_is_true(json_object_get(o, "outgrew_context"));
    /* nor is a failure the student caused (a CLI's exit, limit, wall
     * clock): a failed run, its tokens told */
    if (json_is_string(json_object_get(o, "error")) && !untold &&
        !json_is_true(json_object_get(o, "own_failure"))) {
        c->errors[skill]++;
        model_for(b, model)->errors[skill]++;
        return;
    }
    if (!c->fail_run[skill] && !json_is_true(json_object_get(o, "passed")))
        c->fail_run[skill] = run;
    tok = untold ? 0.0
                 : up_json_num(u, "input_tokens", 0) +
                       up_json_num(u, "output_tokens", 0);
    if (skill) {
        c->c.skill_runs++;
        c->c.skill_pass += json_is_true(json_object_get(o, "passed"));
        c->c.skill_tokens += tok;
        c->c.skill_untold += (unsigned)untold;
    } else {
        c->c.base_runs++;
        c->c.base_pass += json_is_true(json_object_get(o, "passed"));
        c->c.base_tokens += tok;
        c->c.base_untold += (unsigned)untold;
    }
}

struct artifacts {
    up_report_batch *b;
    int run;
};

static void one_artifact(void *ud, json_t *o)
{
    struct artifacts *a = ud;

    add_artifact(a->b, o, a->run);
}

static void dup_once(char **dst, const char *s)
{
    if (!*dst && s)
        *dst = up_xstrdup(s);
}

/* A compare batch's arm: "A: NAME VERSION" from run_result.json's
 * "compare" ({"arm", "skill_name", "version"}). */
static void arm_name(up_report_batch *b, const json_t *cmp, int skill)
{
    const char *arm = up_json_str(cmp, "arm");
    const char *ver = up_json_str(cmp, "version");
    up_buf s = UP_BUF_INIT;

    if (!arm || b->arm_name[skill])
        return;
    up_buf_addf(&s, "%s: %s", skill ? "B" : "A",
                up_json_str(cmp, "skill_name") ? up_json_str(cmp, "skill_name")
                                               : "?");
    if (ver)
        up_buf_addf(&s, " %s", ver);
    b->arm_name[skill] = up_buf_detach(&s);
}

/* Cost, tool use and provenance from run_N/run_result.json. */
static void load_result(up_report_batch *b, const char *path)
{
    json_t *o = NULL;
    up_error e = {0};
    const json_t *st, *md;
    const char *model, *type;
    up_report_model *m;
    int skill;

    if (up_json_load_file(&o, path, &e) != 0)
        return;
    st = json_object_get(o, "stats");
    md = json_object_get(o, "metadata");
    model = up_json_str(md, "model");
    type = up_json_str(o, "run_type");
    if (model && type && up_report_kept(b, o)) {
        skill = strcmp(type, "with_skill") == 0;
        m = model_for(b, model);
        if (!json_is_number(json_object_get(o, "cost_usd")))
            m->cost[skill] = -1;
        else if (m->cost[skill] >= 0)
            m->cost[skill] += up_json_num(o, "cost_usd", 0);
        m->tokens[skill] += up_json_num(st, "total_tokens", 0);
        m->tool_calls[skill] += up_json_long(st, "tool_calls", 0);
        m->skill_reads[skill] += up_json_long(st, "skill_reads", 0);
        m->agent_convs[skill] += up_json_long(st, "agent_conversations", 0);
        dup_once(&b->skill, up_json_str(o, "skill_name"));
        arm_name(b, json_object_get(o, "compare"), skill);
        dup_once(&b->version, up_json_str(md, "upskill_version"));
    }
    json_decref(o);
}

int up_report_kept(const up_report_batch *b, const json_t *o)
{
    return !b->kept_attempt || up_json_long(o, "attempt", 0) == b->kept_attempt;
}

/* generate logs every refinement attempt in its batch; the kept one
 * (batch_summary.json's stats.generate.kept_attempt) speaks for it, as
 * in `upskill runs` (store_read.c). */
static void load_kept(up_report_batch *b)
{
    up_buf p = UP_BUF_INIT;
    json_t *o = NULL;
    up_error e = {0};

    up_fs_join(&p, b->dir, "batch_summary.json");
    if (up_json_load_file(&o, p.data, &e) == 0)
        b->kept_attempt = (int)up_json_long(
            json_object_get(json_object_get(o, "stats"), "generate"),
            "kept_attempt", 0);
    json_decref(o);
    up_buf_release(&p);
}

/* suite_sha256, skill_sha256, shard, seed and margin from
 * batch_plan.json, when there. */
static void load_plan(up_report_batch *b)
{
    up_buf p = UP_BUF_INIT;
    json_t *o = NULL;
    up_error e = {0};
    up_family_control fc = UP_FAMILY_FDR;

    up_fs_join(&p, b->dir, "batch_plan.json");
    if (up_json_load_file(&o, p.data, &e) == 0) {
        dup_once(&b->suite_sha, up_json_str(o, "suite_sha256"));
        dup_once(&b->skill_sha, up_json_str(o, "skill_sha256"));
        b->shard_index = up_json_long(json_object_get(o, "shard"), "index", 0);
        b->shard_count = up_json_long(json_object_get(o, "shard"), "count", 0);
        if (!b->seed_given)
            b->seed = (uint64_t)up_json_long(o, "seed", 1);
        if (!b->margin_given)
            b->margin = up_json_num(o, "margin", UP_STATS_MARGIN);
        if (up_json_str(o, "family_control"))
            (void)up_stats_family_parse(&fc, up_json_str(o, "family_control"),
                                        &e);
        b->family = (int)fc;
    }
    json_decref(o);
    up_buf_release(&p);
}

int up_report_run_in(const up_report_batch *b, int run)
{
    return !b->only_skill ||
           (run > 0 && (size_t)run < b->nrun_in && b->run_in[run]);
}

size_t up_report_run_skills(char ***names, const char *dir)
{
    char **runs = NULL;
    size_t n = 0, len = 0;
    up_error e = {0};

    *names = NULL;
    if (up_fs_list(&runs, &n, dir, &e))
        return 0;
    for (size_t i = 0; i < n; i++) {
        int run = run_number(runs[i]);
        up_buf p = UP_BUF_INIT;
        json_t *o = NULL;
        const char *s;

        if (run <= 0)
            continue;
        up_buf_addf(&p, "%s/%s/run_result.json", dir, runs[i]);
        if (up_json_load_file(&o, p.data, &e) == 0 &&
            (s = up_json_str(o, "skill_name")) != NULL) {
            GROW_ZEROED(*names, len, (size_t)run);
            (*names)[run] = up_xstrdup(s);
        }
        json_decref(o);
        up_buf_release(&p);
    }
    up_strv_free(runs);
    return len;
}

/* A sweep's view of one skill: 1 when run_N is that skill's (by the
 * folder's run_skill[N], nrun_skill long), noted in b->run_in. */
static int take_run(up_report_batch *b, int run, char *const *run_skill,
                    size_t nrun_skill)
{
    const char *name;
    int yes;

    if (!b->only_skill)
        return 1;
    name = run > 0 && (size_t)run < nrun_skill ? run_skill[run] : NULL;
    yes = name && !strcmp(name, b->only_skill);
    if (yes) {
        GROW_ZEROED(b->run_in, b->nrun_in, (size_t)run);
        b->run_in[run] = 1;
    }
    return yes;
}

static int load_run(up_report_batch *b, const char *name,
                    char *const *run_skill, size_t nrun_skill, up_error *err)
{
    up_buf p = UP_BUF_INIT;
    int rc;

    if (!take_run(b, run_number(name), run_skill, nrun_skill))
        return 0;
    up_buf_addf(&p, "%s/%s/run_result.json", b->dir, name);
    load_result(b, p.data);
    up_buf_reset(&p);
    up_buf_addf(&p, "%s/%s/cases/transcripts.jsonl", b->dir, name);
    rc = up_store_cases_each(p.data, one_artifact,
                             &(struct artifacts){b, run_number(name)}, err);
    up_buf_release(&p);
    return rc;
}

static int compare_all(up_report_batch *b, up_error *err)
{
    int rc = 0;

    for (size_t i = 0; i < b->nmodels && !rc; i++) {
        up_report_model *m = &b->models[i];
        up_stats_case *cs = up_xcalloc(b->ncases ? b->ncases : 1, sizeof(*cs));

        for (size_t k = 0; k < b->ncases; k++)
            cs[k] = m->cells[k].c;
        rc = up_stats_compare(&m->cmp, cs, b->ncases, b->seed, b->margin, err);
        free(cs);
    }
    return rc;
}

/*
 * A batch without case artifacts (upstream's): its run records, and the
 * figures upstream's `runs` shows for them.  UP_ENOTFOUND when it has no
 * run record either.
 */
static int load_upstream(up_report_batch *b, up_error *err)
{
    up_store_load_batch(&b->runs, &b->nruns, NULL, b->dir);
    if (!b->nruns)
        return up_error_set(err, UP_ENOTFOUND,
                            "'%s': no run results (run_N/run_result.json) "
                            "and no case artifacts in the batch",
                            b->dir);
    up_store_compare(&b->upstream, &b->nupstream, b->runs, b->nruns, NULL, 0,
                     NULL, 0, 1);
    dup_once(&b->skill, b->runs[0].skill_name); /* a summary-only batch */
    return 0;
}

int up_report_batch_load(up_report_batch *b, const char *dir, uint64_t seed,
                         up_error *err)
{
    up_report_opts o = {seed, 1, UP_STATS_MARGIN, 1, NULL, 0};

    return up_report_batch_load_skill(b, dir, NULL, &o, err);
}

/* 1 when name is among names[0..n). */
static int listed(char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

void up_report_sweep_skills(char ***names, size_t *n, const char *dir)
{
    up_buf p = UP_BUF_INIT;
    json_t *o = NULL, *v;
    up_error e = {0};
    size_t before = *n;

    up_fs_join(&p, dir, "batch_summary.json");
    if (up_json_load_file(&o, p.data, &e) == 0) {
        v = json_object_get(
            json_object_get(json_object_get(o, "stats"), "sweep"), "skills");
        for (size_t i = 0; i < json_array_size(v); i++) {
            const char *s = json_string_value(json_array_get(v, i));

            if (!s || listed(*names + before, *n - before, s) ||
                *n - before >= UP_REPORT_SWEEP_MAX)
                continue;
            *names = up_xrealloc(*names, (*n + 2) * sizeof(**names));
            (*names)[(*n)++] = up_xstrdup(s);
            (*names)[*n] = NULL;
        }
    }
    json_decref(o);
    up_buf_release(&p);
}

int up_report_batch_load_skill(up_report_batch *b, const char *dir,
                               const char *skill, const up_report_opts *o,
                               up_error *err)
{
    char **names = NULL, **own = NULL; /* own: run skills read here */
    char *const *run_skill = o->run_skill;
    size_t n = 0, nrun_skill = o->nrun_skill;
    int rc;

    memset(b, 0, sizeof(*b));
    if (skill && !run_skill) { /* each run's skill, read once */
        nrun_skill = up_report_run_skills(&own, dir);
        run_skill = own;
    }
    b->only_skill = skill ? up_xstrdup(skill) : NULL;
    b->dir = up_xstrdup(dir);
    b->seed = o->has_seed ? o->seed : 1;
    b->seed_given = o->has_seed;
    b->margin = o->has_margin ? o->margin : UP_STATS_MARGIN;
    b->margin_given = o->has_margin;
    {
        up_buf id = UP_BUF_INIT;

        up_fs_basename(&id, dir);
        b->id = up_buf_detach(&id);
    }
    rc = up_fs_list(&names, &n, dir, err);
    if (rc)
        goto out;
    qsort(names, n, sizeof(*names), cmp_runs);
    load_plan(b);
    if (!skill) /* a sweep never generates: no kept attempt */
        load_kept(b);
    for (size_t i = 0; i < n && !rc; i++)
        if (run_number(names[i]) > 0)
            rc = load_run(b, names[i], run_skill, nrun_skill, err);
    if (!rc && !b->ncases)
        rc = load_upstream(b, err);
    if (!rc && b->ncases)
        rc = compare_all(b, err);
out:
    for (size_t i = 0; own && i < nrun_skill; i++)
        free(own[i]);
    free(own);
    up_strv_free(names);
    return rc;
}

void up_report_batch_release(up_report_batch *b)
{
    for (size_t i = 0; i < b->nmodels; i++) {
        free(b->models[i].model);
        free(b->models[i].cells);
    }
    free(b->models);
    free(b->upstream);
    up_store_free(b->runs, b->nruns);
    free(b->dir);
    free(b->id);
    free(b->skill);
    free(b->version);
    free(b->suite_sha);
    free(b->skill_sha);
    free(b->only_skill);
    free(b->run_in);
    free(b->arm_name[0]);
    free(b->arm_name[1]);
    for (size_t i = 0; i < b->ntext; i++)
        free(b->case_text[i]);
    free(b->case_text);
    memset(b, 0, sizeof(*b));
}

/* path/rel exists as a file (dir 0) or folder (dir 1). */
static int has(const char *path, const char *rel, int dir)
{
    up_buf p = UP_BUF_INIT;
    int yes;

    up_fs_join(&p, path, rel);
    yes = dir ? up_fs_is_dir(p.data) : up_fs_is_file(p.data);
    up_buf_release(&p);
    return yes;
}

/* path is a batch folder: its plan, summary or first run is there. */
static int is_batch(const char *path)
{
    return has(path, "batch_plan.json", 0) ||
           has(path, "batch_summary.json", 0) || has(path, "run_1", 1);
}

static void push(char ***dirs, size_t *n, const char *s)
{
    *dirs = up_xrealloc(*dirs, (*n + 2) * sizeof(**dirs));
    (*dirs)[(*n)++] = up_xstrdup(s);
    (*dirs)[*n] = NULL;
}

int up_report_find_batches(char ***dirs, size_t *n, const char *path,
                           up_error *err)
{
    char **names = NULL;
    size_t k = 0, before = *n;
    int rc;

    if (is_batch(path)) {
        push(dirs, n, path);
        return 0;
    }
    rc = up_fs_list(&names, &k, path, err);
    for (size_t i = 0; i < k && !rc; i++) {
        up_buf p = UP_BUF_INIT;

        up_fs_join(&p, path, names[i]);
        if (is_batch(p.data))
            push(dirs, n, p.data);
        up_buf_release(&p);
    }
    up_strv_free(names);
    if (!rc && *n == before)
        rc = up_error_set(err, UP_ENOTFOUND,
                          "'%s': neither a batch nor a runs folder with "
                          "batches",
                          path);
    return rc;
}
