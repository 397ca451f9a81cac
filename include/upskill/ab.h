/*
 * `upskill compare`'s own logic (docs/compare.md): a paired A/B of two
 * skills on the same cases and repeats.  The plan runs skill A in the
 * baseline arm and skill B in the skill arm (up_eval_plan_set_base), so
 * the lift, its interval, p-value and verdict are eval's with A in the
 * baseline slot: lift = B - A.  What is left here is pure: the verdicts
 * worded for A and B, and the list of cases on which A and B differ.
 */
#ifndef UPSKILL_AB_H
#define UPSKILL_AB_H

#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/stats.h"

/* One case on which A and B differ. */
typedef struct up_ab_case {
    size_t kase;     /* index into the suite */
    unsigned a_pass; /* A's runs that passed */
    unsigned a_runs; /* A's answered runs */
    unsigned b_pass; /* B's runs that passed */
    unsigned b_runs; /* B's answered runs */
    double diff;     /* B's pass rate - A's, in [-1, 1] */
} up_ab_case;

/*
 * Fill out (room for n) with the cases of c[0..n) (base: A, skill: B, as
 * up_eval_cases gives them) answered in both arms whose pass rates
 * differ, the largest |diff| first, ties in case order; returns how many.
 */
size_t up_ab_diffs(up_ab_case *out, const up_stats_case *c, size_t n);

/* A verdict for A and B: "B is better", "B is worse", "B saves tokens",
 * "trade-off", "no meaningful effect", "inconclusive", "not measured". */
const char *up_ab_verdict_label(up_verdict v);

/*
 * Append to out the verdict in those words with what backs it, as
 * up_stats_verdict_text does for a lift (the lift being B - A), e.g.
 * "B is better: a lift of +35 to +85 points".
 */
void up_ab_verdict_text(up_buf *out, const up_comparison *c);

#endif
