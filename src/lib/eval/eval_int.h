/*
 * Inside the eval runner (src/lib/eval_*.c), not part of the API: a
 * coding-agent CLI conversation as a job of the one scheduler loop
 * (eval_harness.c), driven by eval_run.c.
 */
#ifndef UPSKILL_EVAL_INT_H
#define UPSKILL_EVAL_INT_H

#include "upskill/eval.h"

/* One CLI job's state (opaque): its folder, workspace and process. */
typedef struct eval_cli eval_cli;

/*
 * Set up and start plan job j's CLI conversation against ep: a private
 * folder under p->agent_opts.parent (else $TMPDIR) holding home/ and
 * the workspace (the case's files; in the skill arm the skill in the
 * CLI's discovery folder).  *out is set even on failure (free it).
 */
int eval_cli_start(eval_cli **out, const up_eval_plan *p, const up_eval_job *j,
                   const up_endpoint *ep, up_error *err);

/* Its fds to poll (at most max) and the most to wait in *timeout_ms. */
int eval_cli_wait(const eval_cli *c, int *fds, int max, int *timeout_ms);

/* Step it; 1 once the CLI has ended and its output is read. */
int eval_cli_step(eval_cli *c);

/* Stop it now (Ctrl-C). */
void eval_cli_kill(eval_cli *c);

/*
 * The ended conversation into job j (its agent part: counters, tool
 * table, transcript, workspace snapshot) and res (its answer, usage and
 * error: UP_EAGENT when the CLI failed).  The workspace stays on j
 * until eval_cli_free.
 */
void eval_cli_take(eval_cli *c, const up_eval_plan *p, up_eval_job *j,
                   up_response *res);

/* Its workspace folder, or NULL when it never got one. */
const char *eval_cli_workspace(const eval_cli *c);

/* Kill and reap the CLI if it runs, remove its folder, free c. */
void eval_cli_free(eval_cli *c);

#endif
