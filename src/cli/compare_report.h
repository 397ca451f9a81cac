/*
 * `upskill compare`'s rendering (compare_report.c): per model, A's and
 * B's pass rates, the lift B - A with its interval, p-value and verdict
 * worded for A and B, tokens, cost, and the cases that differ; or one
 * JSON document.
 */
#ifndef UPSKILL_COMPARE_REPORT_H
#define UPSKILL_COMPARE_REPORT_H

#include <stddef.h>

#include "eval_cli.h"

/* Cases that differ listed in the text report before "... N more". */
#define COMPARE_TEXT_CASES 20

/* What the report shows. */
struct compare_view {
    const up_eval_session *e; /* skills, suite and plan */
    const char *path_a;       /* SKILL_A as given */
    const char *path_b;       /* SKILL_B as given */
    const up_eval_summary *s; /* one per model (A: baseline slot) */
    const char *dead;         /* per model: 1 when it answered nothing */
    up_ab_case *const *diffs; /* per model: the cases that differ */
    const size_t *ndiffs;     /* per model: how many */
};

/* "Comparing A ... with B ..." on stderr, before the run. */
void compare_report_start(const up_eval_session *e, const char *path_a,
                          const char *path_b);

/* The comparison on stdout, a block per model that answered. */
void compare_report_text(const struct compare_view *v);

/* The same as one JSON document on stdout (every differing case). */
void compare_report_json(const struct compare_view *v);

#endif
