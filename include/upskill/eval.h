/*
 * The eval engine: does this skill help this model, by how much, at what
 * token cost?
 *
 * A plan is the job matrix model x arm x case x repeat.  Both arms get the
 * same neutral system prompt; the skill arm adds the skill (upstream's
 * "## Skill: NAME" + body, or the Agent Skills available-skills block with
 * the skill's content).  Context files go into the user message as
 * upstream does.  Nothing else differs between the arms.
 *
 * Phases: up_eval_plan builds the jobs and their prompts; a runner fills
 * each job's answer, usage and error (the scheduler, the cache, or a
 * resumed run folder); up_eval_grade grades answers; up_eval_summarize
 * pools results per model and arm and computes the statistics.
 */
#ifndef UPSKILL_EVAL_H
#define UPSKILL_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "upskill/assert.h"
#include "upskill/buf.h"
#include "upskill/cache.h"
#include "upskill/config.h"
#include "upskill/error.h"
#include "upskill/model.h"
#include "upskill/provider.h"
#include "upskill/sched.h"
#include "upskill/skill.h"
#include "upskill/stats.h"
#include "upskill/store.h"
#include "upskill/suite.h"

enum up_arm { UP_ARM_BASELINE = 0, UP_ARM_SKILL = 1 };
enum up_inject { UP_INJECT_UPSKILL = 0, UP_INJECT_AGENTSKILLS = 1 };

typedef struct up_eval_job {
    size_t model; /* index into the plan's models */
    enum up_arm arm;
    size_t kase; /* index into the suite */
    int repeat;  /* 1-based */
    /* filled by the runner */
    int done;     /* 1 once answer or error is set */
    char *answer; /* graded text (reasoning kept out), or NULL */
    up_usage usage;
    double latency_ms;
    int attempts;
    int from_cache;
    int error;  /* 0, or an UP_E* code */
    int cut_at; /* the output cap the answer stopped at, or 0 */
    char *error_msg;
    /* filled by up_eval_grade */
    int asserts_passed;
    int asserts_total;
    int passed;                /* every assertion passed and no error */
    char *grading;             /* one line per failed assertion, or NULL */
    up_assert_result *results; /* one per assertion of the case */
} up_eval_job;

typedef struct up_eval_plan {
    const up_skill *skill; /* borrowed */
    const up_suite *suite; /* borrowed */
    char **models;         /* resolved model ids, owned */
    size_t nmodels;
    int runs;     /* repeats per case and arm */
    int baseline; /* run the baseline arm */
    enum up_inject inject;
    char *system_base;  /* the neutral system prompt, owned */
    char *system_skill; /* the same plus the skill, owned */
    char **user;        /* user message per case, owned */
    up_eval_job *jobs;
    size_t njobs;
    up_assert_list *asserts; /* per case, after up_eval_prepare */
    up_usage judge_usage;    /* llm-rubric judge tokens, kept apart */
    size_t judge_calls;
} up_eval_plan;

/*
 * Parse every case's assertions (expected.contains plus the "assert"
 * list) before anything runs, so a typo in the tests costs no request.
 * tests_file names the suite in messages.  Errors: UP_EPARSE.
 */
int up_eval_prepare(up_eval_plan *p, const char *tests_file, up_error *err);

/* Number of llm-rubric verdicts still waiting for a judge after grading. */
size_t up_eval_pending_judgements(const up_eval_plan *p);

/*
 * Send every pending llm-rubric assertion to the judge endpoint (through
 * the scheduler with o's -j and stop flag) and settle it; the judge's
 * tokens go to p->judge_usage.  A judge error fails that assertion.
 */
int up_eval_judge(up_eval_plan *p, const up_endpoint *judge,
                  const up_sched_opts *o, up_error *err);

/*
 * Build the job matrix for models (copied) over suite's cases, runs
 * repeats each, with or without the baseline arm.  The skill and suite
 * are borrowed and must outlive the plan.
 */
void up_eval_plan_init(up_eval_plan *p, const up_skill *skill,
                       const up_suite *suite, const char *const *models,
                       size_t nmodels, int runs, int baseline,
                       enum up_inject inject);
void up_eval_plan_release(up_eval_plan *p);

/* The system prompt of a job's arm. */
const char *up_eval_system(const up_eval_plan *p, const up_eval_job *j);

/* The neutral system prompt both arms share. */
extern const char up_eval_neutral_prompt[];

/*
 * Grade every done job against its case's assertions (after
 * up_eval_prepare).  Jobs with an error fail all their assertions;
 * llm-rubric assertions stay pending until up_eval_judge.  Call again
 * after judging to settle the counts.
 */
void up_eval_grade(up_eval_plan *p);

/* Grade one done job (the runner does this as each job lands, so the
 * progress line can show what passes). */
void up_eval_grade_job(up_eval_plan *p, up_eval_job *j);

/*
 * The journal: batch_dir/journal.jsonl gets one line per finished job,
 * appended as it finishes (no fsync per line; synced on close), so an
 * interrupted run loses nothing that finished and --resume re-runs only
 * the rest.  A torn last line is ignored on replay.
 */
typedef struct up_journal {
    int fd;
    char *path;
} up_journal;

int up_journal_open(up_journal *j, const char *batch_dir, up_error *err);
/* Append job's outcome; the prompt is identified by model, arm, case and
 * repeat, plus a hash of the case's user message. */
int up_journal_append(up_journal *j, const up_eval_plan *p,
                      const up_eval_job *job, up_error *err);
int up_journal_close(up_journal *j, up_error *err);

/*
 * Mark the jobs of p found in batch_dir's journal as done, with their
 * answers and usage; *restored counts them.  Lines for other models,
 * cases or prompts are ignored, so a changed suite re-runs what changed.
 */
int up_journal_replay(up_eval_plan *p, const char *batch_dir, size_t *restored,
                      up_error *err);

/* One arm of one model, pooled over cases and repeats. */
typedef struct up_arm_totals {
    size_t jobs;   /* conversations run */
    size_t passed; /* conversations whose assertions all passed */
    size_t errors; /* conversations that ended in an error */
    size_t cached; /* answers served from the response cache */
    long asserts_passed;
    long asserts_total;
    up_usage usage;       /* summed */
    double latency_ms;    /* summed */
    double cost_usd;      /* summed; < 0 when no price is configured */
    double paid_usd;      /* the part not served from the cache: what this
                             run spent; < 0 when no price is configured */
    double cost_per_pass; /* cost_usd / passed; < 0 unknown or no pass */
    up_rate rate;         /* pass rate with its Wilson interval */
} up_arm_totals;

typedef struct up_eval_summary {
    const char *model;    /* borrowed from the plan */
    up_arm_totals arm[2]; /* [UP_ARM_BASELINE], [UP_ARM_SKILL] */
    int has_baseline;
    up_comparison cmp;   /* filled when has_baseline */
    size_t skill_tokens; /* the skill's own size (system prompt delta) */
} up_eval_summary;

/*
 * Pool the graded jobs of model index m into out; price may be NULL (no
 * price configured).
 * The lift statistics use seed for the bootstrap.
 */
int up_eval_summarize(const up_eval_plan *p, size_t m, const up_price *price,
                      uint64_t seed, up_eval_summary *out, up_error *err);

/*
 * An endpoint for model m: the wire kind, URL, key (read from the
 * variable m names, through cfg's environment), headers and timeouts.
 * *headers receives the header lines, owned by the caller (free with
 * up_strv_free, also on error); the endpoint points into m
 * and them.  UP_EAUTH when the provider needs a key and its variable is
 * unset (a local OpenAI-compatible server without one is fine).
 */
int up_eval_endpoint(up_endpoint *ep, char ***headers, const up_model *m,
                     const up_config *cfg, up_error *err);

/* Options of up_eval_execute. */
typedef struct up_eval_run_opts {
    const up_endpoint *endpoints; /* one per plan model */
    up_sched_opts sched;          /* -j, stop flag, log */
    up_journal *journal;          /* finished jobs go here; may be NULL */
    up_cache *cache;              /* answers come from and go to it; NULL:
                                     no cache */
    /* After each finished job (job set), or after several finished at
     * once, e.g. from the cache (job NULL); done counts finished jobs. */
    void (*progress)(void *ud, const up_eval_plan *p, size_t done,
                     const up_eval_job *job);
    void *progress_ud;
} up_eval_run_opts;

/* Extra passes for conversations that failed transiently. */
#define UP_EVAL_REQUEUE_ROUNDS 3

/*
 * Run every job of p that is not done yet, at most o->sched.jobs at once,
 * filling answers, usage and errors.  With o->cache, jobs whose request
 * (repeat index included) is cached are filled from it first (from_cache
 * 1, latency 0, journalled, not sent), and successful answers are stored.
 * A job that still fails transiently (rate limit, server, network,
 * timeout) after the provider's retries is run again after the rest, up to
 * UP_EVAL_REQUEUE_ROUNDS more times.  Failed jobs are recorded, not fatal;
 * UP_EINTR when the stop flag ended the run early; a journal write failure
 * is returned.
 */
int up_eval_execute(up_eval_plan *p, const up_eval_run_opts *o,
                    up_sched_stats *stats, up_error *err);

/*
 * Fill r (initialised by the caller, who sets batch, task, timestamp and
 * run number) with the totals of model m's arm in one repeat: cases
 * passed (as upstream's assertions_*), tokens, latency, cost when price
 * is given, model id, run type and skill name.
 */
void up_eval_run_totals(up_run_record *r, const up_eval_plan *p, size_t m,
                        int repeat, enum up_arm arm, const up_price *price);

/* Token count of an answer when the provider gives none (chars / 4). */
long up_eval_estimate_tokens(const char *text);

#endif
