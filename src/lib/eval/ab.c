/*
 * `upskill compare`'s pure part (upskill/ab.h): the verdicts worded for
 * A and B, and the cases on which the two skills differ.  The statistics
 * are eval's, with skill A in the baseline slot.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/ab.h"

const char *up_ab_verdict_label(up_verdict v)
{
    return up_stats_verdict_ab_label(v);
}

void up_ab_verdict_text(up_buf *out, const up_comparison *c)
{
    up_buf words = UP_BUF_INIT;
    size_t skip = strlen(up_stats_verdict_label(c->verdict)) + 2;

    /* the same backing words as eval's, after our label */
    up_stats_verdict_text(&words, c);
    up_buf_addf(out, "%s: %s", up_ab_verdict_label(c->verdict),
                words.len > skip ? words.data + skip : "");
    up_buf_release(&words);
}

/* Largest |diff| first, then case order. */
static int by_size(const void *a, const void *b)
{
    const up_ab_case *x = a, *y = b;
    double dx = fabs(x->diff), dy = fabs(y->diff);

    if (dx != dy)
        return dx < dy ? 1 : -1;
    return (x->kase > y->kase) - (x->kase < y->kase);
}

size_t up_ab_diffs(up_ab_case *out, const up_stats_case *c, size_t n)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        double d;

        if (!c[i].base_runs || !c[i].skill_runs)
            continue; /* not answered in both arms: no evidence */
        if ((unsigned long)c[i].skill_pass * c[i].base_runs ==
            (unsigned long)c[i].base_pass * c[i].skill_runs)
            continue; /* the same pass rate */
        d = (double)c[i].skill_pass / c[i].skill_runs -
            (double)c[i].base_pass / c[i].base_runs;
        out[k++] = (up_ab_case){
            i, c[i].base_pass, c[i].base_runs, c[i].skill_pass, c[i].skill_runs,
            d};
    }
    qsort(out, k, sizeof(*out), by_size);
    return k;
}
