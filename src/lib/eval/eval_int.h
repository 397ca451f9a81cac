/*
 * Inside the eval runner (src/lib/eval_*.c), not part of the API: a
 * coding-agent CLI conversation as a job of the one scheduler loop
 * (eval_harness.c), driven by eval_run.c.
 */
#ifndef UPSKILL_EVAL_INT_H
#define UPSKILL_EVAL_INT_H

#include "lib/eval/eval_job.h"
#include "upskill/eval.h"
#include "upskill/harness.h"

/* One CLI job's state (opaque): its folder, workspace and process. */
typedef struct eval_harness eval_harness;

/*
 * Set up and start plan job j's CLI conversation against ep: a private
 * folder under p->agent_opts.parent (else $TMPDIR) holding home/ and
 * the workspace (the case's files; in the skill arm the skill in the
 * CLI's discovery folder).  *out is set even on failure (free it).
 */
int eval_harness_start(eval_harness **out, const up_eval_plan *p,
                       const up_eval_job *j, const up_endpoint *ep,
                       up_error *err);

/* Its CLI under way (the scheduler polls, steps and kills it through
 * the harness, upskill/harness.h), or NULL when the start failed. */
up_harness_run *eval_harness_run(const eval_harness *c);

/*
 * The ended conversation into job j (its agent part: counters, tool
 * table, transcript, workspace snapshot) and res (its answer, usage and
 * error: UP_EAGENT when the CLI failed).  The workspace stays on j
 * until eval_harness_free.
 */
void eval_harness_take(eval_harness *c, const up_eval_plan *p, up_eval_job *j,
                       up_response *res);

/* Its workspace folder, or NULL when it never got one. */
const char *eval_harness_workspace(const eval_harness *c);

/* Kill and reap the CLI if it runs, remove its folder, free c. */
void eval_harness_free(eval_harness *c);

/* The quota fields of it: the plan's workspace quota (agent_opts.limits, else
 * the defaults), kept while the check runs. */
void up_eval_check_quota(const up_eval_plan *p, up_check_item *it);

#endif
