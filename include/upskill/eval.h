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

/* up_eval_plan.case_bits */
#define UP_EVAL_CASE_WORKSPACE 1 /* it needs a workspace */
#define UP_EVAL_CASE_CHECKS    2 /* it has an executable check (prepare) */

/* Bytes of an answer kept by default (config max_answer_bytes). */
#define UP_EVAL_MAX_ANSWER ((size_t)1 << 20)

/* The most models, or cases, a plan takes: a job holds their indexes in
 * 32 bits (up_eval_job).  up_eval_check_size says so as an error. */
#define UP_EVAL_MAX_INDEX UINT32_MAX
/* The most repeats per case and arm (--runs' range, src/cli/opt.c). */
#define UP_EVAL_MAX_RUNS 1000

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
 * Model m's graded jobs pooled per case (p->suite->ncases, a new array):
 * passes and answered runs per arm, errored, ungradable and unfinished
 * jobs left out, as the statistics take them (a request that outgrew the
 * context is an answered run that failed).
 */
up_stats_case *up_eval_cases(const up_eval_plan *p, size_t m);

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
