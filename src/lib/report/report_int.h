/* upskill report: what its files share (not public). */
#ifndef UPSKILL_REPORT_INT_H
#define UPSKILL_REPORT_INT_H

#include <jansson.h>

#include "upskill/report.h"

/* 1 when a run record or artifact o (its "attempt") is of b's kept
 * attempt, or b is no generate batch. */
int up_report_kept(const up_report_batch *b, const json_t *o);

/* Passes of one arm (0 baseline, 1 skill) of m over its cases. */
size_t up_report_passes(const up_report_model *m, size_t ncases, int skill);
/* Answered runs of one arm. */
size_t up_report_trials(const up_report_model *m, size_t ncases, int skill);

/* The charts of one batch (report_svg.c), each with <title>/<desc>. */
void up_report_svg_rates(up_buf *out, const up_report_batch *b, size_t bi);
void up_report_svg_forest(up_buf *out, const up_report_batch *b, size_t bi);
void up_report_svg_pareto(up_buf *out, const up_report_batch *b, size_t bi);

/* The case artifacts of batch bi as <details> with anchors (report_case.c). */
int up_report_transcripts(up_buf *out, const up_report_batch *b, size_t bi,
                          up_error *err);

#endif
