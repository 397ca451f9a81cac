/*
 * What the teacher sees when it refines: every failure of the driving
 * models, within a byte budget.
 *
 * Upstream shows the first 3 failures with 200 characters of output and
 * 500 characters of the skill.  Here the budget is shared fairly: every
 * failing (model, case) gets an entry, regressions (cases the baseline
 * passed) first, each field cut to its share.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/gen/gen_lib.h"
#include "lib/eval/eval_job.h"
#include "upskill/alloc.h"
#include "upskill/gen.h"

#define MIN_SHARE 600 /* bytes an entry gets at least */

/* Length of s cut to at most max bytes, on a UTF-8 boundary. */
static size_t cut_len(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    return max;
}

static void add_cut(up_buf *out, const char *s, size_t max)
{
    size_t len = s ? strlen(s) : 0;
    size_t n = cut_len(s ? s : "", len, max);

    up_buf_add(out, s ? s : "", n);
    if (n < len)
        up_buf_addf(out, " [... %zu more bytes]", len - n);
}

/* One failing (model, case): counts and a representative failed job. */
struct fail {
    size_t model, kase;
    int runs, failed, base_runs, base_passed;
    const up_eval_job *job;
};

static void tally(struct fail *f, const up_eval_plan *p)
{
    for (size_t i = 0; i < p->njobs; i++) {
        const up_eval_job *j = &p->jobs[i];

        if (j->model != f->model || j->kase != f->kase || !j->done)
            continue;
        if (j->arm == UP_ARM_BASELINE) {
            f->base_runs++;
            f->base_passed += j->passed != 0;
            continue;
        }
        f->runs++;
        if (!j->passed) {
            f->failed++;
            f->job = f->job ? f->job : j;
        }
    }
}

/* Regressions first (the baseline passed), then by model and case. */
static int cmp_fail(const void *a, const void *b)
{
    const struct fail *x = a, *y = b;

    if ((x->base_passed > 0) != (y->base_passed > 0))
        return x->base_passed > 0 ? -1 : 1;
    if (x->model != y->model)
        return x->model < y->model ? -1 : 1;
    return x->kase < y->kase ? -1 : x->kase > y->kase;
}

static struct fail *collect(const up_eval_plan *p, const size_t *models,
                            size_t n, size_t *count)
{
    struct fail *fs = up_xcalloc(n * p->suite->ncases + 1, sizeof(*fs));

    *count = 0;
    for (size_t m = 0; m < n; m++)
        for (size_t k = 0; k < p->suite->ncases; k++) {
            struct fail f = {models[m], k, 0, 0, 0, 0, NULL};

            tally(&f, p);
            if (f.failed)
                fs[(*count)++] = f;
        }
    qsort(fs, *count, sizeof(*fs), cmp_fail);
    return fs;
}

static void add_entry(up_buf *out, const up_eval_plan *p, const struct fail *f,
                      size_t share)
{
    const up_case *c = &p->suite->cases[f->kase];
    const up_eval_job_live *lv = up_eval_job_live_view(f->job);

    up_buf_addf(out, "- model %s, case %zu: failed %d of %d run(s)",
                p->models[f->model], f->kase + 1, f->failed, f->runs);
    if (f->base_runs)
        up_buf_addf(out, "; without the skill it passed %d of %d",
                    f->base_passed, f->base_runs);
    up_buf_adds(out, "\n  input: ");
    add_cut(out, c->input, share / 3);
    up_buf_adds(out, "\n  expected to contain:");
    for (size_t i = 0; i < c->ncontains; i++)
        up_buf_addf(out, "%s \"%s\"", i ? "," : "", c->contains[i]);
    up_buf_adds(out, "\n  why it failed: ");
    add_cut(out, lv->grading ? lv->grading : "assertions failed", share / 6);
    up_buf_rtrim(out);
    up_buf_adds(out, "\n  answer: ");
    add_cut(out, lv->answer ? lv->answer : "(none)", share / 2);
    up_buf_adds(out, "\n");
}

void up_gen_failures(up_buf *out, const up_eval_plan *p, const size_t *models,
                     size_t n, size_t budget, size_t *shown, size_t *total)
{
    size_t count, i, used = 0;
    struct fail *fs = collect(p, models, n, &count);
    size_t share = count ? budget / count : budget;
    up_buf e = UP_BUF_INIT;

    if (share < MIN_SHARE)
        share = MIN_SHARE;
    for (i = 0; i < count; i++) {
        up_buf_reset(&e);
        add_entry(&e, p, &fs[i], share);
        if (i && used + e.len > budget)
            break;
        up_buf_add(out, e.data, e.len);
        used += e.len;
    }
    if (i < count)
        up_buf_addf(out, "(%zu more failed case(s) not shown)\n", count - i);
    if (!count)
        up_buf_adds(out, "(none)\n");
    if (shown)
        *shown = i;
    if (total)
        *total = count;
    up_buf_release(&e);
    free(fs);
}
