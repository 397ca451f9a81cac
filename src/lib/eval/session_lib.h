/*
 * The session's calls that the library's other parts (generate's
 * evaluations) and the tests make, and src/cli never does: building a
 * session and a plan step by step, the batch, the cache and the journal,
 * running and logging.  src/cli runs a whole eval through upskill/session.h.
 */
#ifndef UPSKILL_LIB_SESSION_LIB_H
#define UPSKILL_LIB_SESSION_LIB_H

#include "upskill/session.h"

/*
 * Before anything is sent: when the run tool is offered, 0 if commands
 * can run as asked.  The bwrap sandbox must pass up_sandbox_check (else
 * its error: UP_ENOTFOUND with what to install, UP_EUNSAFE with the
 * sysctl; both exit 3): there is no silent downgrade.  --sandbox none
 * passes with a warning through the note hook, on every run.  0 when
 * the run tool is not offered.
 */
int up_session_check_sandbox(up_session *s, up_error *err);

/*
 * The -j default, worked out once: jobs when > 0, else cfg's concurrency
 * when > 0, else UP_SESSION_JOBS.
 */
int up_session_jobs(long jobs, const up_config *cfg);

/* Start a session with a copy of o (its strings borrowed) over cfg
 * (borrowed); nothing is opened yet.  Release with up_session_release
 * (also safe on a zeroed session never initialised). */
void up_session_init(up_session *s, const up_session_opts *o,
                     const up_config *cfg);
void up_session_release(up_session *s);

/*
 * Resolve spec (through base_url and api_key_env when not NULL) and its
 * endpoint, and append it as a target; *index (may be NULL) gets its
 * position.  Errors: those of up_model_resolve and up_model_endpoint.
 */
int up_session_add_target(up_session *s, const char *spec, const char *base_url,
                          const char *api_key_env, size_t *index,
                          up_error *err);

/*
 * The one place an eval plan is started, for eval, benchmark, compare
 * and generate alike: up_eval_plan_init over the resolved ids of the
 * session's first sp->nmodels targets, then the settings every plan
 * takes from the command and the config: margin, seed and the answer
 * cap (max_answer_bytes).  Release p with up_eval_plan_release.
 */
void up_session_plan_init(const up_session *s, up_eval_plan *p,
                          const up_skill *skill, const up_suite *suite,
                          const up_session_plan *sp);

/* The configured price of target m, or NULL. */
const up_price *up_session_price(const up_session *s, size_t m);

/*
 * The run log's batch for plan p.  With o.resume: the batch must exist;
 * the journal takes its lock, the plan must match what it was made for,
 * half-written files are cleaned and finished jobs replayed (counted in
 * s->restored).  Else, unless o.no_log, a new batch in the runs folder
 * (s->created_runs_dir when the folder was made), with a journal and a
 * plan mark when o.journal (p may be NULL when neither o.resume nor
 * o.journal is set).  Errors: UP_ENOTFOUND (no such batch),
 * UP_EIO (lock, disk), UP_EPARSE (the batch was made for another plan).
 */
int up_session_open_batch(up_session *s, up_eval_plan *p, up_error *err);

/* Sync and close the journal; UP_EIO when it could not be synced. */
int up_session_close_journal(up_session *s, up_error *err);

/*
 * Open the response cache (once), unless o.no_cache or the config turns
 * it off; a cache that will not open is a warning, not an error.
 */
void up_session_open_cache(up_session *s);

/*
 * Run every job of p not done yet through the first p->nmodels targets,
 * with the session's -j, stop flag, hooks, journal and cache (see
 * up_eval_execute for the errors); a cache locked by another process
 * mid-run is a warning.
 */
int up_session_execute(up_session *s, up_eval_plan *p, up_sched_stats *st,
                       up_error *err);

/*
 * Grade p, then settle its llm-rubric assertions with the session's
 * judge (resolved only when some are pending).
 */
int up_session_grade(up_session *s, up_eval_plan *p, up_error *err);

/*
 * Append to the run log one record per model, repeat and arm of p (the
 * baseline arm only when p runs it), with task and attempt (0: none), and
 * write each as run_N, numbered on from the session's earlier records.
 * Nothing without a batch.  Errors: write errors.
 */
int up_session_log_runs(up_session *s, const up_eval_plan *p, const char *task,
                        int attempt, up_error *err);

/*
 * batch_summary.json over the run log so far, with stats (JSON text, may
 * be NULL) under "stats".  Nothing without a batch or records.
 */
int up_session_log_summary(up_session *s, const char *task, const char *stats,
                           up_error *err);

#endif
