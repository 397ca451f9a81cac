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

/* s escaped (up_report_esc), cut to at most max bytes on a UTF-8
 * character boundary, with "…" when cut: a long name or text shown in
 * short (the whole belongs in a title).  s NULL: nothing. */
void up_report_esc_cut(up_buf *out, const char *s, size_t max);
/* Dollars in the page's one format ($0.000562, $15.00). */
void up_report_usd(up_buf *out, double v);
/* An arm's name: "baseline", "with skill", or a compare batch's
 * "A: NAME VERSION" / "B: ...". */
const char *up_report_arm(const up_report_batch *b, int skill);
/* 1 when arm skill of m answered at least one conversation. */
int up_report_measured(const up_report_batch *b, const up_report_model *m,
                       int skill);
/* "not measured: all N conversations errored" into out. */
void up_report_unmeasured(up_buf *out, const up_report_model *m, int skill);
/* A verdict's label, in A/B words for a compare batch. */
const char *up_report_verdict_label(const up_report_batch *b, up_verdict v);

/*
 * On a narrow screen (below 1,024 px) a table.card (and the leaderboard's
 * table.board) is one card per row, each cell under its column's name:
 * the names, per table, as CSS rules in a <style> before it.  Open it,
 * name cell k (2 and up; the first is the card's title) of the table in
 * the element with id "a b" (b may be NULL) once per column, close it.
 */
void up_report_card_open(up_buf *out);
void up_report_card_head(up_buf *out, const char *id, int k, const char *a,
                         const char *b);
void up_report_card_close(up_buf *out);

/* The charts of one batch (report_svg.c), each with <title>/<desc>. */
void up_report_svg_rates(up_buf *out, const up_report_batch *b, size_t bi);
void up_report_svg_forest(up_buf *out, const up_report_batch *b, size_t bi);
void up_report_svg_pareto(up_buf *out, const up_report_batch *b, size_t bi);

/* The case artifacts of batch bi as <details> with anchors (report_case.c). */
int up_report_transcripts(up_buf *out, const up_report_batch *b, size_t bi,
                          up_error *err);

#endif
