/*
 * Private to the session module: a sweep of several skills as one plan
 * (session_sweep.c), called by session_eval.c.
 */
#ifndef UPSKILL_LIB_SESSION_SWEEP_H
#define UPSKILL_LIB_SESSION_SWEEP_H

#include "upskill/session.h"

/*
 * Load rq's nsweep skills (at most UP_SWEEP_MAX_SKILLS, else UP_EUSAGE)
 * and each one's own tests (-t, else its own; none is UP_EPARSE naming
 * the skill: a sweep generates none), refuse two of one name, and lay
 * their cases end to end into e->suite, each case with its skill.  note
 * gets the tests' sources.
 */
int session_sweep_load(up_eval_session *e, const up_eval_request *rq,
                       up_buf *note, up_error *err);

/* Move the graded jobs of e->plan into each skill's own plan (sweep[i].
 * plan, built here with the sweep's settings); e->plan keeps none. */
void session_sweep_split(up_eval_session *e);

/* The run log: each skill's runs (as its own eval writes them, numbered
 * on), then batch_summary.json with stats.sweep.skills. */
int session_sweep_log(up_eval_session *e, up_error *err);

/* Free the skills, their suites and plans. */
void session_sweep_release(up_eval_session *e);

#endif
