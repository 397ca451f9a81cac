/*
 * generate's held-out cases (docs/generate.md, "Held-out cases").  The
 * refine loop picks the version with the best lift on the cases it
 * refined on, and the teacher sees those cases' failures: the lift of
 * the kept version on them is inflated by the search.  So before the
 * loop the tests are split, by the seed, into training cases (g->suite:
 * all the loop, the teacher and the choice ever see) and held-out ones
 * (g->held), and the kept version is measured once more, on the
 * held-out cases alone, when the loop ends: that is the lift generate
 * reports and records.  Every case is saved, in its first order.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/cases/suite_lib.h"
#include "lib/eval/session_lib.h"
#include "lib/eval/eval_job.h"
#include "upskill/alloc.h"
#include "upskill/gen.h"

#include "lib/gen/gen_loop.h"

static uint64_t mix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return x < y ? -1 : x > y;
}

/* The h of n indices held out: a seeded shuffle's first h, ascending. */
static size_t *pick(size_t n, size_t h, uint64_t seed)
{
    size_t *v = up_xmalloc((n + 1) * sizeof(*v));
    uint64_t x = seed ^ 0x686f6c646f7574ull; /* "holdout" */

    for (size_t i = 0; i < n; i++)
        v[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(mix(&x) % i), t = v[i - 1];

        v[i - 1] = v[j];
        v[j] = t;
    }
    qsort(v, h, sizeof(*v), cmp_size);
    return v;
}

/* How many of n to hold out at pct percent; 0 when too few. */
static size_t held_count(size_t n, int pct)
{
    size_t h = (size_t)((double)n * pct / 100.0 + 0.5);

    if (h < UP_GEN_HOLDOUT_MIN)
        h = UP_GEN_HOLDOUT_MIN;
    return n >= h + UP_GEN_HOLDOUT_KEEP ? h : 0;
}

/* Parse the cases of arr whose held flag is want into s. */
static int part(up_suite *s, json_t *arr, const char *flags, int want,
                up_error *err)
{
    json_t *sub = json_array();
    char *text;
    int rc;

    for (size_t i = 0; i < json_array_size(arr); i++)
        if (flags[i] == want)
            json_array_append(sub, json_array_get(arr, i));
    text = json_dumps(sub, JSON_COMPACT | JSON_PRESERVE_ORDER);
    rc = up_suite_parse(s, text, strlen(text), "tests", "tests", err);
    free(text);
    json_decref(sub);
    return rc;
}

int gen_holdout_split(up_gen *g, up_error *err)
{
    int pct = g->o->holdout < 0 ? UP_GEN_HOLDOUT : g->o->holdout;
    size_t n = g->suite.ncases, h = pct ? held_count(n, pct) : 0;
    up_buf all = UP_BUF_INIT;
    json_t *arr = NULL;
    char *flags = NULL;
    int rc = 0;

    g->ntests = n;
    g->holdout_off = !pct ? UP_GEN_HOLDOUT_ASKED
                     : !h ? UP_GEN_HOLDOUT_FEW
                          : UP_GEN_HOLDOUT_ON;
    if (!h)
        return 0;
    up_suite_to_json(&g->suite, &all);
    arr = json_loads(all.data, 0, NULL);
    g->held_idx = pick(n, h, g->o->seed);
    g->nheld = h;
    flags = up_xcalloc(n + 1, 1);
    for (size_t i = 0; i < h; i++)
        flags[g->held_idx[i]] = 1;
    up_suite_release(&g->suite);
    up_suite_init(&g->suite);
    rc = arr ? part(&g->suite, arr, flags, 0, err)
             : up_error_set(err, UP_EPARSE,
                            "holdout: the tests do not "
                            "round-trip as JSON");
    if (!rc)
        rc = part(&g->held, arr, flags, 1, err);
    if (!rc)
        g->all_tests = up_buf_detach(&all);
    json_decref(arr);
    free(flags);
    up_buf_release(&all);
    return rc;
}

int gen_holdout_eval(up_gen *g, up_error *err)
{
    const up_gen_attempt *kept = &g->attempts[g->best];
    up_session_plan sp = {.nmodels = g->nmodels,
                          .runs = g->o->runs > 0 ? g->o->runs : 1,
                          .baseline = 1,
                          .inject = UP_INJECT_UPSKILL,
                          .margin = -1,
                          .seed = g->o->seed};
    int rc;

    if (!g->nheld || !kept->evaluated || kept->failed)
        return 0;
    up_session_plan_init(&g->session, &g->hplan, &kept->skill, &g->held, &sp);
    g->hplan.per_model = 1;
    rc = up_eval_prepare(&g->hplan, NULL, err);
    if (!rc)
        rc = up_session_execute(&g->session, &g->hplan, NULL, err);
    if (!rc)
        rc = up_session_grade(&g->session, &g->hplan, err);
    if (rc)
        return rc;
    g->hsums = up_xcalloc(g->nmodels, sizeof(*g->hsums));
    for (size_t m = 0; m < g->nmodels && !rc; m++)
        rc = up_eval_summarize(&g->hplan, m, up_session_price(&g->session, m),
                               g->o->seed, &g->hsums[m], err);
    return rc;
}

size_t gen_holdout_saved_index(const up_gen *g, size_t i)
{
    size_t k = 0; /* held-out cases before the answer */

    while (k < g->nheld && g->held_idx[k] <= i + k)
        k++;
    return i + k;
}

void gen_holdout_release(up_gen *g)
{
    if (g->hplan.jobs)
        up_eval_plan_release(&g->hplan);
    free(g->hsums);
    free(g->held_idx);
    free(g->all_tests);
    up_suite_release(&g->held);
}
