/*
 * Rendering `upskill generate`: progress on stderr as the library reports
 * it, the model plan, and the final report on stdout (gen_report.c).
 */
#ifndef UPSKILL_GEN_REPORT_H
#define UPSKILL_GEN_REPORT_H

#include "cli.h"

/* up_gen_opts.event: one progress line (or a few) per event, on stderr. */
void gen_report_event(void *ud, const up_gen_event *ev);

/*
 * up_gen_opts.progress: eval's live line (eval_report_progress) during
 * each evaluation, on a TTY (or a plain line per quarter for 200
 * conversations or more), counted afresh for each plan.
 */
void gen_report_progress(void *ud, const up_eval_plan *p, size_t done,
                         const up_eval_job *job);

/* A teacher or test-gen call in flight shows its elapsed time on a TTY;
 * this ends that line (every event does; call it when the run ends). */
void gen_report_call_done(void);

/* up_gen_opts.call_waiting: the elapsed time of the call in flight. */
void gen_report_call_waiting(void *ud, const up_sched_wait *w);

/* "Resolved model plan:" and the models, on stderr. */
void gen_report_plan(const up_gen *g);

/*
 * The report: the skill's name, description and files with their token
 * sizes; teacher and students side by side; each model's bars and
 * statistics (eval_report_text); the attempts; teacher tokens and cost;
 * where it was saved.
 */
void gen_report_text(const up_gen *g);

/*
 * The same as one JSON document on stdout (shape: docs/generate.md):
 * the skill and its path, the models, each attempt with every model's
 * statistics, the kept attempt, why the loop stopped, tokens and cost
 * per role, the run log, and err's message when the run failed (may be
 * NULL).  When no skill came out: "skill" and "kept_attempt" are null, no
 * attempts, and "stop" says error or interrupted.
 */
void gen_report_json(const up_gen *g, const up_error *err);

#endif
