/*
 * `upskill select`'s rendering (select_report.c): the goal, the
 * reference of --beat, and the verdict on every candidate, as text or as
 * one JSON document.
 */
#ifndef UPSKILL_SELECT_REPORT_H
#define UPSKILL_SELECT_REPORT_H

#include <stddef.h>

/* What the report shows: the decision, its goal and the evidence. */
struct select_view {
    const up_select *s;
    const up_select_goal *g;
    const up_select_model *m; /* nm models: where each one's runs came from */
    size_t nm;
    /* --confirm: the first decision's choice ("generic.mid with the
     * skill"), this one deciding on fresh repeats alone; NULL: no
     * confirmation */
    const char *confirms;
};

/* The decision on stdout, then a note per model without a price. */
void select_report_text(const struct select_view *v);

/* The same as one JSON document on stdout. */
void select_report_json(const struct select_view *v);

#endif
