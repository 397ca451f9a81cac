/*
 * Inside the eval engine, not part of the API: a job's layout (the
 * conversation model x arm x case x repeat of a plan) and what only the
 * library reads or writes of it.  The command line sees up_eval_job as
 * an opaque type (upskill/eval.h, up_eval_job_view_of), so a change here
 * rebuilds none of src/cli (issue 33).
 */
#ifndef UPSKILL_EVAL_JOB_H
#define UPSKILL_EVAL_JOB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "upskill/agent.h"
#include "lib/cases/assert.h"
#include "lib/sandbox/check.h"
#include "upskill/eval.h"
#include "lib/agent/workspace.h"

/* One tool's counts in one conversation, for the run record's
 * tool_call_map and tool_error_map (up_eval_run_totals); saturated at
 * UINT32_MAX (up_eval_count32), far past any conversation's calls. */
typedef struct up_eval_tool_count {
    uint32_t calls;
    uint32_t errors;
} up_eval_tool_count;

/*
 * What a tool-loop job adds (agent mode, ours), allocated for such jobs
 * only: a large chat run's jobs do without it (bench/README.md, "Memory
 * of large runs").  Read it through up_eval_job_agent_view.  A large
 * agent run holds one per conversation to its end, when the run records
 * sum the counters: fields go by size, widest first, so no padding is
 * left, and each is as narrow as its range allows (test_agent_job.c pins
 * the size).  The per-tool times are not kept: nothing sums them.
 */
typedef struct up_eval_agent_job {
    char *limit; /* why a limit ended it (the case fails), or NULL */
    /* The case artifact's hook (docs/runs-format.md, "Case artifacts"),
     * owned: transcript is the conversation after the system prompt as a
     * JSON array of artifact messages (agent mode: up_agent_transcript,
     * each text cut at UP_EVAL_TRANSCRIPT_TEXT) ({role, content,
     * reasoning, tool_calls: [{id, name, arguments}], tool_call_id,
     * is_error}); workspace_json is up_workspace_snapshot's object and
     * tools_json up_workspace_stats_json's, parsed, taken before the
     * workspace is released.  They are read when the case artifact is
     * written (as the job settles, or with the run's records), and freed
     * then; the artifact's cap (config artifact_max_bytes) applies on
     * writing.  NULL each: the artifact is built from the case's user
     * message and the answer. */
    struct json_t *transcript;
    struct json_t *workspace_json;
    struct json_t *tools_json;
    /* the conversation's workspace while the job lands, graded by the
     * file-* assertions and output_file; borrowed (the loop frees it), or
     * NULL.  Kept here, not in up_eval_job, as only a tool loop has one:
     * set it with up_eval_job_set_workspace. */
    const struct up_workspace *workspace;
    double llm_ms; /* the turns' durations summed (latency_ms is the
                      conversation's span) */
    /* per tool, by row (up_tool_stat_name); all zero for a coding-agent
     * CLI, which reports only the totals */
    up_eval_tool_count tool_count[UP_TOOL_ROWS];
    /* the counters below are saturated (up_eval_count32, _count16) */
    uint32_t tool_calls; /* over all turns */
    uint32_t tool_errors;
    uint32_t turns;         /* model turns answered */
    uint16_t refs_read;     /* references/ files of the skill read */
    signed char skill_read; /* SKILL.md read: 1/0; -1: no skill installed */
    signed char events_disagree; /* a CLI's: its events tell otherwise
                                    than the wire about skill_read */
} up_eval_agent_job;

/* n for a job's 32-bit counts (token counts, agent counters),
 * saturated to [0, UINT32_MAX] (a negative count, which no runner
 * reports, is 0). */
static inline uint32_t up_eval_count32(long n)
{
    return n < 0 ? 0 : (unsigned long)n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* n for a job's 16-bit counts, saturated at UINT16_MAX: assertions and
 * checks (up_eval_prepare refuses a case with more, UP_ASSERT_LIST_MAX) and
 * references read (a skill's are a few files). */
static inline uint16_t up_eval_count16(size_t n)
{
    return n > UINT16_MAX ? UINT16_MAX : (uint16_t)n;
}

/*
 * What a job holds from its answer until its case artifact is written
 * (the run log's stream sheds it then, session_artifact.c) or the plan
 * is released; NULL before and after: a large run's jobs carry one
 * pointer for it, not four fields (bench/README.md, "Memory of large
 * runs").  Read it through up_eval_job_live_view.
 */
typedef struct up_eval_job_live {
    char *answer;        /* graded text (reasoning kept out), or NULL */
    size_t answer_bytes; /* the answer's size as received */
    size_t not_utf8;     /* bytes the model (or a tool) sent that were
                            not UTF-8, stored as U+FFFD; 0: none */
    /* filled by up_eval_grade */
    up_assert_list asserts;    /* the case's assertions, parsed for this
                                  job (up_eval_job_asserts): a plan keeps
                                  none per case */
    up_assert_result *results; /* one per item of asserts */
    char *grading;             /* one line per failed assertion, or NULL */
    unsigned char listed;      /* 1 once asserts is filled */
} up_eval_job_live;

/*
 * A job's token counts: up_usage's, each in 32 bits (a conversation
 * past 4 billion tokens reads as UINT32_MAX), so a large run's jobs hold
 * 24 bytes of them, not 48.  Read the fields directly (sum them in a
 * long); store through up_eval_job_set_usage only, and widen through
 * up_eval_job_usage where an up_usage is wanted.
 */
typedef struct up_job_usage {
    uint32_t input;          /* all input tokens, cached ones included */
    uint32_t output;         /* output tokens, reasoning included */
    uint32_t cached;         /* input tokens read from the cache */
    uint32_t cache_write;    /* input tokens written to the cache */
    uint32_t reasoning;      /* reasoning/thinking tokens (part of output) */
    unsigned char estimated; /* 1 when some count is a chars/4 estimate */
} up_job_usage;

typedef struct up_eval_job { /* a large run holds one per conversation:
                                fields go by size, widest first, so no
                                padding is left but up_job_usage's tail,
                                and each is as narrow as its range allows
                                (test_artifact.c pins the size) */
    /* filled by the runner */
    struct up_eval_job_live *live; /* answer and verdicts, or NULL */
    char *error_msg;
    /* agent mode (ours): what the runner fills for a job that ran as a
     * tool loop (agent below), NULL in chat mode */
    struct up_eval_agent_job *ag;
    /* filled by up_eval_grade */
    char *ungradable;   /* why the case is not gradable (a check's program
                           is not installed), or NULL; owned */
    up_job_usage usage; /* set with up_eval_job_set_usage */
    /* whole milliseconds, as the provider measures them (up_response),
     * saturated (up_eval_latency): exact where a double was */
    uint32_t latency_ms;
    uint32_t model; /* index into the plan's models (up_eval_plan_init
                       refuses more than UP_EVAL_MAX_INDEX) */
    uint32_t kase;  /* index into the suite (the same limit) */
    int cut_at;     /* the output cap the answer stopped at, or 0 */
    /* counts of the case's assertions, at most UP_ASSERT_LIST_MAX
     * (up_eval_prepare refuses more) */
    uint16_t asserts_passed;
    uint16_t asserts_total;
    /* executable checks (command assertions, check.h) */
    uint16_t checks_total;  /* command assertions of the case */
    uint16_t checks_passed; /* of them: ran and exited 0 */
    uint16_t repeat;        /* 1-based, at most UP_EVAL_MAX_RUNS */
    uint16_t attempts;      /* HTTP attempts (1 + retries), saturated */
    signed char error;      /* 0, or an UP_E* code (all above -128) */
    unsigned char arm;      /* enum up_arm */
    /* flags, one bit each */
    bool done : 1;       /* answer or error is set */
    bool cut : 1;        /* answer holds only the first max_answer bytes */
    bool from_cache : 1; /* the answer came from the response cache */
    bool passed : 1;     /* every assertion passed and no error */
    /* ran as a tool loop (--agent, or the case needs a workspace); see
     * ag */
    bool agent : 1;
    /* the run log's stream (session_artifact.c) wrote the case artifact
     * as the job was graded, and freed its live part and agent trees;
     * grading leaves it alone */
    bool logged : 1;
    /* its agent part was summed into the plan's agent_sums and let go
     * (up_eval_job_fold_agent); skill_loaded keeps its skill_read > 0 */
    bool folded : 1;
    bool skill_loaded : 1;
} up_eval_job;

/* Store u in j's usage, each count clamped to [0, UINT32_MAX]. */
void up_eval_job_set_usage(up_eval_job *j, const up_usage *u);

/* j's usage widened into *out (an up_usage for up_eval_cost and the
 * artifact). */
void up_eval_job_usage(const up_eval_job *j, up_usage *out);

/* The agent counters of the jobs of one model x repeat x arm whose
 * agent parts were let go (up_eval_job_fold_agent): what the arm totals
 * and run records would have summed from them. */
typedef struct up_eval_agent_sum {
    double llm_ms;
    long convs;       /* conversations folded */
    long skill_reads; /* of them: SKILL.md read */
    long ref_reads;   /* of them: some references/ file read */
    long disagree;    /* of them: a CLI's events and the wire disagree */
    long turns;
    long tool_calls;
    long tool_errors;
    long calls[UP_TOOL_ROWS]; /* per tool row (up_tool_stat_name) */
    long errors[UP_TOOL_ROWS];
} up_eval_agent_sum;

/*
 * Sum job j's agent part into p's agent_sums and free it, once its case
 * artifact is written and only the counters are left to read
 * (up_eval_job_shed): a large agent run then keeps per conversation only
 * the job.  A job with no agent part, an error or a limit (whose reason
 * the report prints) keeps its part.
 */
void up_eval_job_fold_agent(up_eval_plan *p, up_eval_job *j);

/*
 * What only job j's case artifact needed goes, once it is written (the
 * run log's stream, session_artifact.c): its live part, and its agent
 * part folded into p's sums (up_eval_job_fold_agent), or, kept, its
 * artifact trees.  j is marked logged: grading leaves it alone.
 */
void up_eval_job_shed(up_eval_plan *p, up_eval_job *j);

/* 1 when job j read its skill's SKILL.md (folded or not). */
int up_eval_job_skill_loaded(const up_eval_job *j);

/* Bytes of each file, and of all, a job's workspace snapshot keeps. */
#define UP_EVAL_SNAPSHOT_FILE  ((size_t)16 << 10)
#define UP_EVAL_SNAPSHOT_TOTAL ((size_t)64 << 10)
/* Bytes of each message text (and call arguments) a transcript keeps. */
#define UP_EVAL_TRANSCRIPT_TEXT ((size_t)4 << 10)

/* j's live part, allocated (zeroed) on first use. */
up_eval_job_live *up_eval_job_live_of(up_eval_job *j);
/* j's live part to read: a zeroed one when it has none. */
const up_eval_job_live *up_eval_job_live_view(const up_eval_job *j);
/* Free j's live part (answer, assertions, results, grading and all). */
void up_eval_job_live_free(up_eval_job *j);
/* Free j's assertion results only (a job to run again keeps its answer
 * till it is replaced). */
void up_eval_job_results_free(up_eval_job *j);

/* j's agent part, allocated (zeroed) on first use. */
up_eval_agent_job *up_eval_job_agent(up_eval_job *j);
/* j's agent part to read: a zeroed one when it has none (chat mode). */
const up_eval_agent_job *up_eval_job_agent_view(const up_eval_job *j);
/* Lend j workspace ws (NULL: take it back); a job without an agent part
 * gets one only for a non-NULL ws. */
void up_eval_job_set_workspace(up_eval_job *j, const struct up_workspace *ws);
/* Free j's agent part (limit, trees and all). */
void up_eval_job_agent_free(up_eval_job *j);

/*
 * Set j's answer to a copy of the len bytes of text, cut to the plan's
 * max_answer (at a UTF-8 character boundary) when longer; j->cut and
 * j->answer_bytes record it.  A cut answer is graded on what is kept.
 */
void up_eval_keep_answer(const up_eval_plan *p, up_eval_job *j,
                         const char *text, size_t len);

/* Job j's assertions, parsed into its live part on first use. */
const up_assert_list *up_eval_job_asserts(const up_eval_plan *p,
                                          up_eval_job *j);

/* n for up_eval_job.attempts, saturated at UINT16_MAX (retries are a few;
 * a journal read back might say anything). */
static inline uint16_t up_eval_attempts(long n)
{
    return n < 0 ? 0 : n > UINT16_MAX ? UINT16_MAX : (uint16_t)n;
}

/* ms for up_eval_job.latency_ms, saturated to [0, UINT32_MAX] and
 * rounded (a journal read back might say anything). */
static inline uint32_t up_eval_latency(double ms)
{
    return !(ms > 0)                  ? 0
           : ms >= (double)UINT32_MAX ? UINT32_MAX
                                      : (uint32_t)(ms + 0.5);
}

/* code for up_eval_job.error: the UP_E* codes fit; anything else keeps
 * its sign, saturated, so a failure stays one. */
static inline signed char up_eval_error_code(long code)
{
    return code < SCHAR_MIN   ? SCHAR_MIN
           : code > SCHAR_MAX ? SCHAR_MAX
                              : (signed char)code;
}

/*
 * 1 when j's request outgrew the model's context (UP_ECONTEXT): the arm's
 * own failure (a skill that fills the context), graded failed and counted
 * in its pass rate, never cached, not excluded as an error.
 */
static inline int up_eval_job_outgrew(const up_eval_job *j)
{
    return j->error == UP_ECONTEXT;
}

/*
 * 1 when j ended in a failure the student (or its skill) caused, which
 * counts as that conversation's failure in the rates (docs/statistics.md,
 * "Errors are not evidence"): a request that outgrew the context, or a
 * coding-agent CLI that exited non-zero, broke a sandbox limit or ran
 * over its wall clock (UP_EAGENT).  Its tokens count (the outgrown
 * request's are untold).
 */
static inline int up_eval_job_own_failure(const up_eval_job *j)
{
    return up_eval_job_outgrew(j) || j->error == UP_EAGENT;
}

/*
 * The next check of done job j waiting to run, from its assertion *at
 * on, in workspace folder ws: its item into *it (borrowing j's live
 * part) and *at past it; 0 when none is left.  The first call grades
 * j's other assertions.  The runner starts each (up_check_start) as
 * the last parked phase of the job, then lands the job, which settles
 * its verdict.
 */
int up_eval_job_next_check(up_eval_plan *p, up_eval_job *j, size_t *at,
                           const char *ws, up_check_item *it);

/* Case k's assertions into l (initialised here; up_assert_list_release
 * frees it).  up_eval_prepare has checked them, so this cannot fail. */
void up_eval_case_asserts(const up_eval_plan *p, size_t k, up_assert_list *l);

/* ---- the engine's calls (none of src/cli's) ---- */

/*
 * Keep only the jobs of shard index (1-based) of count: a job belongs to
 * the shard its key (resolved model id, the case's content -- its user
 * message -- and the repeat, never an index) hashes to, so the slice is
 * the same for the same suite whatever the order of models or cases, and
 * both arms of a model x case x repeat stay in one shard.  count 0: no-op.
 */
void up_eval_plan_shard(up_eval_plan *p, int index, int count);

/* 1 when case k of p needs a workspace (worked out once per plan). */
int up_eval_case_needs_workspace(const up_eval_plan *p, size_t k);

/* 1 when job j of p runs as a tool loop. */
int up_eval_job_is_agent(const up_eval_plan *p, const up_eval_job *j);

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

int up_eval_batch_match(const up_eval_plan *p, const char *batch_dir,
                        up_error *err);

/* p's identity, as batch_plan.json holds it (a new reference). */
struct json_t *up_eval_batch_identity(const up_eval_plan *p);

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

/* USD of usage u at price (USD per million tokens; cached input at its
 * own price); -1 when price is NULL. */
double up_eval_cost(const up_price *price, const up_usage *u);
/* up_eval_cost of job j's tokens. */
double up_eval_job_cost(const up_price *price, const up_eval_job *j);

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
 * Set r->error_message (upstream's field) when some conversations of
 * model m's arm in this repeat failed: how many, and the first error.
 * Left NULL when all were answered.
 */
void up_eval_run_error(up_run_record *r, const up_eval_plan *p, size_t m,
                       int repeat, enum up_arm arm);

/* Token count of an answer when the provider gives none (chars / 4). */
long up_eval_estimate_tokens(const char *text);

#endif
