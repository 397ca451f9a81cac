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

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "upskill/agent.h"
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

struct json_t;

enum up_arm { UP_ARM_BASELINE = 0, UP_ARM_SKILL = 1 };

typedef struct up_eval_plan up_eval_plan;

/* One conversation of a plan (opaque: its layout is the library's,
 * src/lib/eval/eval_job.h; the command line reads it through
 * up_eval_job_view_of). */
typedef struct up_eval_job up_eval_job;
/* The agent counters of the folded jobs of one model x repeat x arm. */
typedef struct up_eval_agent_sum up_eval_agent_sum;

/* What the command line prints of one job: a copy of its fields, the
 * strings borrowed from the job (valid while it is not changed). */
typedef struct up_eval_job_view {
    size_t model; /* index into the plan's models */
    size_t kase;  /* index into the suite */
    int repeat;   /* 1-based */
    enum up_arm arm;
    int error;              /* 0, or an UP_E* code */
    const char *error_msg;  /* or NULL */
    const char *ungradable; /* why the case is not gradable, or NULL */
    const char *answer;     /* the graded text, or NULL */
    const char *first_miss; /* the first assertion result's message when
                               it has one, or NULL */
    const char *limit;      /* agent mode: the limit that ended it, or NULL */
    long input_tokens;
    long output_tokens;
    int cut_at; /* the output cap the answer stopped at, or 0 */
    bool done;  /* answer or error is set */
    bool passed;
    bool from_cache;
} up_eval_job_view;

/* Job i of p (i < p->njobs). */
const up_eval_job *up_eval_plan_job(const up_eval_plan *p, size_t i);

/* Fill *v from job j. */
void up_eval_job_view_of(const up_eval_job *j, up_eval_job_view *v);

/* 1 when j ended in an error outside the student's reach (the provider,
 * the network, the host): left out of the rates. */
int up_eval_job_errored(const up_eval_job *j);

typedef struct up_eval_plan {
    const up_skill *skill; /* borrowed */
    const up_suite *suite; /* borrowed */
    char **models;         /* resolved model ids, owned */
    size_t nmodels;
    int runs;     /* repeats per case and arm */
    int baseline; /* run the baseline arm */
    /* 1: each model and repeat is one upstream single-model eval for
     * upstream's "passed" (generate's evaluations), never its benchmark
     * mode's every-case rule; up_eval_plan_init sets 0 */
    int per_model;
    /* chat mode's injection: UPSKILL or AGENTSKILLS */
    enum up_inject inject;
    char *system_base;  /* the neutral system prompt (compare: plus skill
                           A), owned */
    char *system_skill; /* the neutral prompt plus the skill, owned (an
                           A/A plan: the neutral prompt alone) */
    int aa; /* an A/A plan (eval --aa): the skill arm runs without the
               skill, so every claim it makes is false (up_eval_plan_set_aa) */
    /* a sweep (several skills, docs/eval.md): per case, the skill arm's
     * system prompt of the case's own skill (its first), owned (cases of
     * one skill share one string), or NULL: system_skill for every case
     * (up_eval_plan_case_prompts) */
    char **case_system;
    /* compare (docs/compare.md): the skill the baseline arm carries
     * (skill A; the skill arm carries skill B), borrowed; NULL: the
     * baseline runs without a skill */
    const up_skill *skill_base;
    /* user message per case: the case's input itself when it has no
     * context files (the suite outlives the plan), else owned */
    char **user;
    /* per case: UP_EVAL_CASE_* bits (up_case_needs_workspace and
     * up_assert_list_has_checks parse the case's assertions: worked out
     * once, at up_eval_plan_init and up_eval_prepare) */
    unsigned char *case_bits;
    up_eval_job *jobs;
    size_t njobs;
    size_t max_answer;    /* bytes kept per answer; 0: UP_EVAL_MAX_ANSWER */
    int prepared;         /* 1 after up_eval_prepare: jobs are graded */
    up_usage judge_usage; /* llm-rubric judge tokens, kept apart */
    size_t judge_calls;
    double margin; /* "no meaningful effect" margin, a share (0.05) */
    int family;    /* enum up_family_control of the batch's comparisons,
                      recorded in batch_plan.json when not fdr */
    /* agent mode (issue 11); set before running */
    int agent; /* 1: every job is a tool loop; 0: only the cases that need
                  a workspace (up_case_needs_workspace) */
    enum up_inject agent_inject; /* agent mode's (--inject) */
    up_agent_opts agent_opts;
    int check_mode; /* up_sandbox_mode of the executable checks */
    /* --shard I/N: the plan keeps only slice shard_index (1-based) of
     * shard_count; 0/0: the whole matrix (up_eval_plan_shard) */
    int shard_index;
    int shard_count;
    /* the statistics seed (--seed), recorded in batch_plan.json so that a
     * resume and merge can check it; up_eval_plan_init sets 1 */
    long seed;
    /* nmodels x runs x 2 (by model, repeat, arm), allocated by the first
     * up_eval_job_fold_agent, or NULL */
    up_eval_agent_sum *agent_sums;
} up_eval_plan;

/*
 * Parse "I/N" (1 <= I <= N, N <= UP_EVAL_SHARD_MAX) of --shard into
 * *index and *count; a NULL s leaves 0/0 (no shard).  Errors: UP_EUSAGE
 * naming what was expected.
 */
#define UP_EVAL_SHARD_MAX 100000
/*
 * Make p an A/A plan (eval --aa, docs/statistics.md "A/A runs"): its
 * skill arm sends the baseline's prompts, without the skill, so the two
 * arms differ only by their repeats and every claim is false: the
 * suite's noise floor.  Chat mode only; call before up_eval_prepare.
 */
void up_eval_plan_set_aa(up_eval_plan *p);

int up_eval_shard_parse(const char *s, int *index, int *count, up_error *err);

/*
 * Keep only the jobs of shard index (1-based) of count: a job belongs to
 * the shard its key (resolved model id, the case's content -- its user
 * message -- and the repeat, never an index) hashes to, so the slice is
 * the same for the same suite whatever the order of models or cases, and
 * both arms of a model x case x repeat stay in one shard.  count 0: no-op.
 */
void up_eval_plan_shard(up_eval_plan *p, int index, int count);

/* up_eval_plan.case_bits */
#define UP_EVAL_CASE_WORKSPACE 1 /* it needs a workspace */
#define UP_EVAL_CASE_CHECKS    2 /* it has an executable check (prepare) */

/* 1 when case k of p needs a workspace (worked out once per plan). */
int up_eval_case_needs_workspace(const up_eval_plan *p, size_t k);

/* 1 when job j of p runs as a tool loop. */
int up_eval_job_is_agent(const up_eval_plan *p, const up_eval_job *j);

/* Bytes of an answer kept by default (config max_answer_bytes). */
#define UP_EVAL_MAX_ANSWER ((size_t)1 << 20)

/*
 * Check every case's assertions (expected.contains, the "assert" list,
 * upstream's validator) before anything runs, so a typo in the tests
 * costs no request, refuse a case with more than UP_ASSERT_LIST_MAX of
 * them all told, and note which cases have executable checks.  The
 * plan keeps no parsed list: a job parses its case's when it is graded
 * (up_eval_job_asserts), so a large suite's lists are never all in
 * memory (bench/README.md, "Memory of large runs").  tests_file names
 * the suite in messages.  Errors: UP_EPARSE.
 */
int up_eval_prepare(up_eval_plan *p, const char *tests_file, up_error *err);

/* Number of jobs a run of p would still answer: not done, or restored
 * from a journal without what their workspace checks need. */
size_t up_eval_plan_pending(const up_eval_plan *p);

/* Number of llm-rubric verdicts still waiting for a judge after grading. */
size_t up_eval_pending_judgements(const up_eval_plan *p);

/*
 * Send every pending llm-rubric assertion to the judge endpoint (through
 * the scheduler with o's -j and stop flag) and settle it; the judge's
 * tokens go to p->judge_usage.  A judge error fails that assertion.
 */
int up_eval_judge(up_eval_plan *p, const up_endpoint *judge,
                  const up_sched_opts *o, up_error *err);

/* The most models, or cases, a plan takes: a job holds their indexes in
 * 32 bits (up_eval_job).  up_eval_check_size says so as an error. */
#define UP_EVAL_MAX_INDEX UINT32_MAX
/* The most repeats per case and arm (--runs' range, src/cli/opt.c). */
#define UP_EVAL_MAX_RUNS 1000

/* 0 when a plan of nmodels over ncases fits up_eval_job's indexes, else
 * UP_ETOOBIG with a message in err. */
int up_eval_check_size(size_t nmodels, size_t ncases, up_error *err);

/*
 * Build the job matrix for models (copied) over suite's cases, runs
 * repeats each (at most UP_EVAL_MAX_RUNS), with or without the baseline
 * arm.  The skill and suite are borrowed and must outlive the plan.
 * Aborts when up_eval_check_size refuses the sizes: callers that take
 * them from the user check first.
 */
void up_eval_plan_init(up_eval_plan *p, const up_skill *skill,
                       const up_suite *suite, const char *const *models,
                       size_t nmodels, int runs, int baseline,
                       enum up_inject inject);
void up_eval_plan_release(up_eval_plan *p);

/*
 * Compare (docs/compare.md): give the baseline arm skill a (borrowed,
 * outliving the plan), injected as the skill arm's is, so arm 0 runs
 * with skill A and arm 1 with the plan's skill B.  Call before running.
 */
void up_eval_plan_set_base(up_eval_plan *p, const up_skill *a);

/*
 * A sweep: each case that carries its own skill (up_case.skills) gets
 * the chat-mode system prompt of that skill in the skill arm
 * (up_eval_system), as the plan's skill's is made.  Call after
 * up_eval_plan_init, before running.
 */
void up_eval_plan_case_prompts(up_eval_plan *p);

/* The skill installed or injected in an arm: the plan's skill in the
 * skill arm, skill_base (NULL for a plain baseline) in the other. */
const up_skill *up_eval_arm_skill(const up_eval_plan *p, enum up_arm arm);

/* The system prompt of a job's arm. */
const char *up_eval_system(const up_eval_plan *p, const up_eval_job *j);

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

/* 1 when job j's case has an executable check (a command assertion, or
 * upstream's validator "command"), so its workspace must outlive the
 * conversation until its checks have run. */
int up_eval_job_has_checks(const up_eval_plan *p, const up_eval_job *j);

/*
 * No silent downgrade: 0 when no job still to run has a check, when
 * p->check_mode is UP_SANDBOX_NONE (the explicit opt-out), or when the
 * sandbox is usable; else the sandbox probe's error (UP_ENOTFOUND or
 * UP_EUNSAFE, exit 3) saying why, how to fix it and how to opt out.
 * up_eval_execute calls it before sending anything.
 */
int up_eval_checks_sandbox(const up_eval_plan *p, up_error *err);

/*
 * The journal: batch_dir/journal.jsonl gets one line per finished job,
 * appended as it finishes (no fsync per line; synced on close), so an
 * interrupted run loses nothing that finished and --resume re-runs only
 * the rest.  A line that could not be written whole is cut away at once;
 * a torn last line (a crash mid-write) is ignored on replay and cut away
 * when the journal is next opened.
 */
typedef struct up_journal {
    int fd;
    char *path;
    int lock_fd; /* the batch's lock (up_store_batch_lock), or -1 */
} up_journal;

/* Set j's descriptors to -1 (nothing open), for a safe close. */
void up_journal_init(up_journal *j);

/*
 * Take the batch's lock (UP_EIO naming the holder when another process
 * has it), then open batch_dir/journal.jsonl for appending, cutting away
 * a torn last line first.  The lock is held until up_journal_close.
 */
int up_journal_open(up_journal *j, const char *batch_dir, up_error *err);
/* Append job's outcome; the prompt is identified by model, arm, case and
 * repeat, plus a hash of the case's user message.  A cut at the output
 * cap is kept (cut_at); an answered tool loop also keeps what grading
 * took from its workspace (each verdict, a check's output), its counters
 * and its artifact trees, so a resume need not run it again (call after
 * grading, before the job is shed).  On a write error
 * (ENOSPC, EFBIG, ...) the partial line is truncated away and UP_EIO
 * names the file and the system's reason. */
int up_journal_append(up_journal *j, const up_eval_plan *p,
                      const up_eval_job *job, up_error *err);
/* Sync and close the journal and release the lock; safe when not open. */
int up_journal_close(up_journal *j, up_error *err);

/*
 * Mark the jobs of p found in batch_dir's journal as done, with their
 * answers (cut to p->max_answer), usage and cut_at; *restored counts
 * them.  A tool loop's line with its verdicts and counters restores it
 * as graded (j->agent set, its results and agent part filled); one
 * without them (an older journal), or whose verdicts do not fit the
 * case, is restored as an answer only (a workspace case then runs
 * again, see eval_run.c).  The
 * journal is read a line at a time, so its size does not bound memory.
 * Lines for other models, cases or prompts are ignored, so a changed
 * suite re-runs what changed.  A job whose line says it errored runs
 * again, unless the batch is a merge of shards (its batch_plan.json
 * has UP_EVAL_MERGED): that is restored as the error it was, so
 * finishing a merge sends nothing; a later answered line of the same job
 * (a shard resumed before the merge) wins over its error.
 */
int up_journal_replay(up_eval_plan *p, const char *batch_dir, size_t *restored,
                      up_error *err);

/*
 * What a batch was made for (ours, batch_dir/batch_plan.json): the
 * suite's hash, the skill arm's system prompt hash (skill and injection),
 * the models, repeats, whether the baseline runs, and the statistics
 * seed.  up_eval_batch_mark
 * writes it for p.  up_eval_batch_match checks that p is what batch_dir
 * was made for before a resume; UP_EPARSE naming what differs.  A batch
 * without the file (written before it existed) matches, and gets one.
 */
#define UP_EVAL_BATCH_PLAN "batch_plan.json"
/* The key of batch_plan.json that marks a merge of shards (upskill/merge.h):
 * {"shards": N}; not part of the identity a resume compares. */
#define UP_EVAL_MERGED "merged"
int up_eval_batch_mark(const up_eval_plan *p, const char *batch_dir,
                       up_error *err);
/*
 * The first key of a batch's identity (batch_plan.json) in which had and
 * now differ, as the words a refusal uses ("models (-m)"), or NULL when
 * they agree; the shard mark counts only with with_shard.  *va and *vb
 * get the two values as JSON text (owned, NULL when absent).  A key an
 * older batch lacks stands for its default, except the seed, which then
 * was not recorded and matches any (when absent on either side).
 */
const char *up_eval_batch_differs(const struct json_t *had,
                                  const struct json_t *now, int with_shard,
                                  char **va, char **vb);

int up_eval_batch_match(const up_eval_plan *p, const char *batch_dir,
                        up_error *err);

/* p's identity, as batch_plan.json holds it (a new reference). */
struct json_t *up_eval_batch_identity(const up_eval_plan *p);

/* One arm of one model, pooled over cases and repeats. */
typedef struct up_arm_totals {
    size_t cases;      /* distinct cases with a conversation in this arm */
    size_t jobs;       /* conversations run (cases x runs) */
    size_t passed;     /* conversations whose assertions all passed */
    size_t errors;     /* conversations that ended in an error: left out of
                          the pass rate, the token means and the verdict */
    size_t outgrew;    /* conversations whose request outgrew the context:
                          counted as failed (up_eval_job_outgrew) */
    size_t own_failed; /* conversations whose CLI exited non-zero, broke
                          a limit or ran over its wall clock: counted as
                          failed (up_eval_job_own_failure) */
    size_t cached;     /* answers served from the response cache */
    size_t cut;        /* answers that stopped at the output cap (cut_at) */
    long asserts_passed;
    long asserts_total;
    up_usage usage;       /* summed */
    double latency_ms;    /* summed */
    double cost_usd;      /* summed; < 0 when no price is configured */
    double paid_usd;      /* the part not served from the cache: what this
                             run spent; < 0 when no price is configured */
    double cost_per_pass; /* cost_usd / passed; < 0 unknown or no pass */
    up_rate rate;         /* pass rate of the answered conversations,
                             with its Wilson interval */
    /* agent mode (ours): over the answered tool-loop conversations */
    size_t agent_jobs;  /* conversations run as a tool loop */
    size_t skill_reads; /* of them: SKILL.md read (activation) */
    size_t ref_reads;   /* of them: some references/ file read */
    size_t disagree;    /* of them: a CLI's events tell otherwise than
                           the wire about SKILL.md */
    size_t limited;     /* of them: ended by a limit */
    long turns;         /* model turns */
    long tool_calls;
    long tool_errors;
    /* executable checks (command assertions) */
    long checks_passed; /* over the graded conversations */
    long checks_total;
    size_t ungradable;          /* conversations not gradable: left out of the
                                   rates like errors */
    const char *ungradable_why; /* the first one's reason, borrowed */
} up_arm_totals;

typedef struct up_eval_summary {
    const char *model;    /* borrowed from the plan */
    up_arm_totals arm[2]; /* [UP_ARM_BASELINE], [UP_ARM_SKILL] */
    int has_baseline;
    int aa;              /* an A/A plan's: every claim is false */
    up_comparison cmp;   /* filled when has_baseline */
    size_t skill_tokens; /* the skill's own size (system prompt delta) */
} up_eval_summary;

/*
 * Pool the graded jobs of model index m into out; price may be NULL (no
 * price configured).  Conversations that ended in an error are counted
 * (errors) but left out of the rates, token means and the comparison,
 * which pairs only the cases answered in both arms (p->margin sets the
 * verdict's margin); those whose request outgrew the context are counted
 * (outgrew) and graded failed.  The statistics use seed.
 */
int up_eval_summarize(const up_eval_plan *p, size_t m, const up_price *price,
                      uint64_t seed, up_eval_summary *out, up_error *err);

/*
 * Model m's graded jobs pooled per case (p->suite->ncases, a new array):
 * passes and answered runs per arm, errored, ungradable and unfinished
 * jobs left out, as the statistics take them (a request that outgrew the
 * context is an answered run that failed).
 */
up_stats_case *up_eval_cases(const up_eval_plan *p, size_t m);

/* USD of usage u at price (USD per million tokens; cached input at its
 * own price); -1 when price is NULL. */
double up_eval_cost(const up_price *price, const up_usage *u);
/* up_eval_cost of job j's tokens. */
double up_eval_job_cost(const up_price *price, const up_eval_job *j);

/*
 * Append to out the activation of s's skill arm in agent mode: "skill
 * read in 14 of 20 conversations (70%)", and when it was never read, that
 * the description did not make the model open it.  Nothing without
 * agent-mode conversations in the skill arm, nor for a reference
 * student (oracle, null: up_model_reference), which reads no skill by
 * design.
 */
void up_eval_activation_text(up_buf *out, const up_eval_summary *s);

/*
 * Does the skill pay for itself at the configured prices: 1 when a passed
 * case costs no more with the skill than without, 0 when it costs more
 * (or the skill arm passed nothing), -1 when unknown (no price, no
 * baseline, neither arm passed, or an arm answered no conversation: all
 * errored, not measured).
 */
int up_eval_pays(const up_eval_summary *s);

/*
 * Append to out the cost-aware decision line: the cost per passed case
 * of both arms, the change, and whether the skill pays for itself, next
 * to the lift and the token change.  Nothing when up_eval_pays is -1
 * for lack of prices or a baseline.
 */
void up_eval_pays_text(up_buf *out, const up_eval_summary *s);

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
    /* keep each agent job's transcript, workspace snapshot and tool table
     * for the case artifacts (set when a run log will write them; without
     * one they are not built) */
    int artifacts;
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
 * UP_EINTR when the stop flag ended the run early.  Jobs the stop flag
 * kept from running stay not done (and are not counted in progress).  A
 * journal write failure raises the stop flag (o->sched.stop, else one of
 * its own), so nothing more is sent while running jobs land in memory,
 * and is returned as UP_EIO.
 */
int up_eval_execute(up_eval_plan *p, const up_eval_run_opts *o,
                    up_sched_stats *stats, up_error *err);

/*
 * Whether upstream would run p in its benchmark mode (several models or
 * runs, no baseline, every case must pass, metadata.run_number per model):
 * not for generate's evaluations (p->per_model).
 */
int up_eval_upstream_benchmark(const up_eval_plan *p);

/*
 * Fill r (initialised by the caller, who sets batch, task, timestamp and
 * run number) with the totals of model m's arm in one repeat: cases
 * passed (as upstream's assertions_*), tokens, latency, cost when price
 * is given, model id, run type and skill name.
 */
void up_eval_run_totals(up_run_record *r, const up_eval_plan *p, size_t m,
                        int repeat, enum up_arm arm, const up_price *price);

/*
 * Jobs of model m that ended with an answer (or whose request outgrew
 * the context: answered, failed); *first_error (may be NULL) gets the
 * first of m's jobs that ended with an error, or NULL.
 */
size_t up_eval_answered(const up_eval_plan *p, size_t m,
                        const up_eval_job **first_error);

/*
 * 0 when model m answered at least one conversation (or ran none); else
 * fill err with a message naming the model and the first failure (whose
 * message names the endpoint and the cause) and return its code, a
 * provider error (exit 4).
 */
int up_eval_unanswered(const up_eval_plan *p, size_t m, up_error *err);

/*
 * Set r->error_message (upstream's field) when some conversations of
 * model m's arm in this repeat failed: how many, and the first error.
 * Left NULL when all were answered.
 */
void up_eval_run_error(up_run_record *r, const up_eval_plan *p, size_t m,
                       int repeat, enum up_arm arm);

/* Token count of an answer when the provider gives none (chars / 4). */
long up_eval_estimate_tokens(const char *text);

/*
 * `eval --trigger` (src/lib/eval/eval_trigger.c): replace suite s by its inputs
 * alone (prompts that should trigger the skill, *npos of them, first) followed
 * by a fixed set of unrelated prompts that should not; no assertions.  Errors:
 * those of up_suite_parse.
 */
int up_harness_trigger_suite(up_suite *s, size_t *npos, up_error *err);

/* One line for model m of a --trigger run: how often the skill was
 * loaded for each kind of prompt, and a sentence when that is wrong. */
void up_harness_trigger_text(up_buf *out, const up_eval_plan *p, size_t m,
                             size_t npos);

#endif
