/*
 * Private to the session module: what session.c and session_log.c share.
 */
#ifndef UPSKILL_LIB_SESSION_INT_H
#define UPSKILL_LIB_SESSION_INT_H

#include "lib/eval/session_lib.h"
#include "lib/eval/eval_job.h"
#include "upskill/session.h"

/* The scheduler options every run of s shares (-j, stop, hooks). */
void session_sched_opts(const up_session *s, up_sched_opts *o);

/* Hand a note to the caller's hook, if any. */
void session_note(const up_session *s, enum up_session_note kind,
                  const char *text);

/* Work out the defaults (-j, runs folder) again, after the config loads. */
void session_settle(up_session *s);

/*
 * Write the case artifacts of model m's arm in one repeat into run folder
 * run (attempt 0: none), with the folder's system prompt file; one
 * artifact in memory at a time (session_artifact.c).  Errors: writes.
 */
/*
 * The case artifacts' stream (session_artifact.c): open makes the scratch
 * file for p's jobs when the session has a batch (nothing when it cannot:
 * the artifacts are then built at the end); hook puts the stream in front
 * of o's progress hook; close frees it all.
 */
struct up_eval_run_opts;
void session_stream_open(up_session *s, up_eval_plan *p);
void session_stream_hook(up_session *s, struct up_eval_run_opts *o);
void session_stream_close(up_session *s);

int session_log_cases(const up_session *s, const up_eval_plan *p, size_t m,
                      int repeat, enum up_arm arm, int run, int attempt,
                      up_error *err);

#endif
