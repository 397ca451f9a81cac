/*
 * `upskill select`'s rendering (select_report.c): the verdict on every
 * candidate as text or as one JSON document.
 */
#ifndef UPSKILL_SELECT_REPORT_H
#define UPSKILL_SELECT_REPORT_H

#include <stddef.h>

#include "upskill/select.h"

/* What the report shows: n candidates, their rows, the choice. */
struct select_view {
    const up_select_cand *c;
    const up_select_row *rows;
    size_t n;
    size_t chosen; /* n: none clears */
    double target;
    int runs; /* repeats per case, to turn trials into cases */
};

/* The decision on stdout, then a note per model without a price. */
void select_report_text(const struct select_view *v);

/* The same as one JSON document on stdout. */
void select_report_json(const struct select_view *v);

#endif
