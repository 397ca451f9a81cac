/*
 * One evaluation session: what `eval`, `benchmark` and `generate` share
 * when they measure a skill.  A session owns
 * - the targets: one value per model (the resolved model, its endpoint
 *   and the endpoint's header lines), never parallel arrays;
 * - the defaults, each worked out here once: -j (flag, config
 *   concurrency, 4) and the runs folder (flag, config runs_dir, "runs");
 * - the run log's batch folder, with the journal (its batch lock and the
 *   plan check on --resume) when the caller resumes or wants one;
 * - the response cache;
 * - the judge of llm-rubric assertions;
 * - the run log's records (run_N files and batch_summary.json).
 * A new eval feature lands here once and reaches all three commands.
 *
 * The session never prints: warnings go to opts.warn, the scheduler's
 * "still waiting" note and progress to the hooks the caller sets, and
 * facts the caller may report (a created runs folder, jobs restored by a
 * resume) are left in the session's fields.
 */
#ifndef UPSKILL_SESSION_H
#define UPSKILL_SESSION_H

#include <signal.h>
#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/cache.h"
#include "upskill/config.h"
#include "upskill/error.h"
#include "upskill/eval.h"
#include "upskill/harbor.h"
#include "upskill/model.h"
#include "upskill/provider.h"
#include "upskill/sandbox.h"
#include "upskill/sched.h"
#include "upskill/store.h"

/* -j when neither the flag nor the config's concurrency sets it. */
#define UP_SESSION_JOBS 4

/* What the session hands its caller to show; it never prints. */
enum up_session_note {
    UP_SESSION_WARN = 0, /* a warning (config, skill loader, cache) */
    UP_SESSION_TESTS,    /* where the tests came from */
    UP_SESSION_CREATED,  /* a line: the runs folder was created */
    UP_SESSION_RESUMED,  /* a line: how much of a resumed batch was done */
    UP_SESSION_LOGGING   /* the batch folder the run log goes to */
};

/* One model under evaluation (or the judge, or generate's test writer). */
typedef struct up_target {
    up_model model; /* resolved */
    up_endpoint ep; /* points into model and headers */
    char **headers; /* the endpoint's header lines, owned */
    char *no_key;   /* --resume: "no API key" for this model, said only
                       when a job is left to send (a finished batch, e.g.
                       merged shards, needs no key); owned, or NULL */
} up_target;

typedef struct up_session_opts {
    long jobs;            /* -j; <= 0: config concurrency, else 4 */
    const char *runs_dir; /* NULL: config runs_dir, else "runs" */
    const char *resume;   /* batch id to finish, or NULL */
    int no_log;           /* write no run log */
    int journal;          /* a new batch gets a journal and a plan mark */
    int no_cache;         /* neither read nor fill the response cache */
    int cancel_at;        /* the scheduler's cancel_at (1: stop at once) */
    /* llm-rubric judge: judge_model, else the config's test_gen_model or
     * skill_generation_model; with judge_base_url and no judge_model, the
     * first target judges (through judge_base_url, judge_api_key_env) */
    const char *judge_model;
    const char *judge_base_url;
    const char *judge_api_key_env;
    volatile sig_atomic_t *stop; /* Ctrl-C flag, or NULL */
    /* warnings and notes (see up_session_note); may be NULL */
    void (*note)(void *ud, enum up_session_note kind, const char *text);
    void *note_ud;
    /* the scheduler's hooks (sched.h), each with its ud; may be NULL */
    void (*waiting)(void *ud, const up_sched_wait *w);
    void *waiting_ud;
    void (*log)(void *ud, const up_http_attempt *at);
    void *log_ud;
    /* up_eval_run_opts.progress, with progress_ud; may be NULL */
    void (*progress)(void *ud, const up_eval_plan *p, size_t done,
                     const up_eval_job *job);
    void *progress_ud;
    /* Agent mode (issue 11): up_session_execute hands these to the plan;
     * up_session_opts_init sets the defaults. */
    int agent;                   /* a tool loop per conversation */
    int max_turns;               /* model turns per conversation */
    long token_budget;           /* tokens per conversation; 0: none */
    long wall_ms;                /* ms per conversation; 0: none */
    enum up_inject agent_inject; /* skill injection in agent mode */
    /* The run tool (issue 12): offered when run_tool; commands run as
     * sandbox says (UP_SANDBOX_NONE only by the user's explicit choice) */
    int run_tool;
    up_sandbox_mode sandbox;
} up_session_opts;

typedef struct up_session {
    up_session_opts o;    /* a copy of the caller's */
    const up_config *cfg; /* borrowed */
    up_target *targets;   /* ntargets, in the order added */
    size_t ntargets;
    int jobs;             /* the -j in force */
    const char *runs_dir; /* the runs folder in force (borrowed) */
    up_buf batch_dir;     /* empty: no run log */
    up_buf batch_id;
    up_journal journal;   /* open when journal.path is set */
    up_cache *cache;      /* NULL: no cache */
    int created_runs_dir; /* open_batch made the runs folder */
    size_t restored;      /* jobs a resume found done */
    up_run_record *runs;  /* the run log so far, nruns records */
    size_t nruns;
    up_sandbox_limits run_lim; /* the run tool's limits (from the config) */
    up_ws_limits ws_lim;       /* each workspace's caps and quota (same) */
    int unsandboxed; /* commands run without the sandbox (warned once) */
    /* the case artifacts written as jobs are graded (session_artifact.c,
     * eval, benchmark and select), or NULL */
    struct session_stream *stream;
} up_session;

/* o's defaults: everything off, max_turns UP_AGENT_MAX_TURNS. */
void up_session_opts_init(up_session_opts *o);

/*
 * --inject's values: "upskill" and "agentskills" everywhere; "catalog"
 * and "preload" only with agent.  1 when inject may be used, else 0.
 */
int up_session_inject_ok(const char *inject, int agent);

/* The chat-mode injection of --inject (NULL: upskill's form). */
enum up_inject up_session_chat_inject(const char *inject);

/*
 * Fill o's agent options from the flags: agent, --inject (NULL and
 * "catalog": the catalogue; "agentskills": the body in the Agent Skills
 * form; "upskill" and "preload": the body in upskill's form),
 * max_turns (<= 0: UP_AGENT_MAX_TURNS), token_budget and wall_ms
 * (0: none).
 */
void up_session_agent_opts(up_session_opts *o, int agent, const char *inject,
                           long max_turns, long token_budget, long wall_ms);

/*
 * The run tool's options from the flags: run_tool (--run-tool, which
 * implies agent mode) and sandbox (--sandbox: NULL or "bwrap" for the
 * sandbox, "none" for the explicit opt-out).  UP_EUSAGE for another
 * sandbox name.
 */
int up_session_run_opts(up_session_opts *o, int run_tool, const char *sandbox,
                        up_error *err);

/* The runs folder: dir, else cfg's runs_dir, else "runs" (borrowed). */
const char *up_session_runs_dir(const char *dir, const up_config *cfg);

/* What a command asks of an eval plan besides its skill and suite. */
typedef struct up_session_plan {
    size_t nmodels;        /* the session's first nmodels targets */
    int runs;              /* repeats per case and arm */
    int baseline;          /* run the baseline arm */
    enum up_inject inject; /* chat mode's injection */
    double margin;         /* "no meaningful effect", points; < 0: config */
    uint64_t seed;         /* the statistics seed (--seed) */
    int family;            /* enum up_family_control (--family-control) */
} up_session_plan;

/* ---- eval and benchmark ---------------------------------------------- */

/* What `eval` or `benchmark` asks for. */
typedef struct up_eval_request {
    const char *skill_path;
    const char *tests;         /* -t, or NULL: the skill's own */
    const char *const *models; /* nmodels; none: the config's eval_model,
                                  skill_generation_model, else "sonnet" */
    size_t nmodels;
    const char *base_url;    /* OpenAI-compatible URL for them, or NULL */
    const char *api_key_env; /* its key variable, or NULL */
    long max_tokens;         /* UP_MAX_TOKENS_UNSET: the config's */
    int runs;                /* repeats per case and arm */
    int baseline;            /* run the baseline arm */
    enum up_inject inject;
    double margin; /* points; < 0: the config's */
    int family;    /* enum up_family_control: claims over several models */
    /* a skill with no tests anywhere: generate them (upstream's rule) */
    int gen_tests;                /* 0: never (e.g. --plan) */
    const char *test_gen_model;   /* --test-gen-model, or NULL */
    int no_save_tests;            /* --no-save-tests */
    int shard_index, shard_count; /* --shard I/N; 0/0: all jobs */
    int aa; /* eval --aa: the skill arm without the skill (A/A) */
    /* compare (docs/compare.md): skill A's folder, run in the baseline
     * arm against skill_path (B) in the skill arm; NULL: an eval */
    const char *base_skill_path;
    long seed; /* --seed, recorded in batch_plan.json */
    /* --tasks: a Harbor task folder or a folder of them (harbor.h): its
     * runnable tasks with skills are the suite, each with its own skill;
     * skill_path and tests are unused then */
    const char *tasks;
    /* --sound FILE: only the tasks that file of --check verdicts marks
     * sound (harbor.h); NULL: every runnable task, with a warning */
    const char *sound;
    /* --online-instructions: tasks whose instruction sends the student
     * to the network run all the same (harbor.h, online_ok) */
    int online_instructions;
    /* a sweep (docs/eval.md, "Many skills in one batch"): the skill
     * folders, each with its own tests, run as one plan; nsweep 0: one
     * skill (skill_path) */
    const char *const *sweep_paths;
    size_t nsweep;
} up_eval_request;

/* The most skills one sweep takes (docs/eval.md). */
#define UP_SWEEP_MAX_SKILLS 500

/* One skill of a sweep: its own skill, tests and, once the run is
 * graded, its own plan (the sweep's jobs of its cases). */
typedef struct up_sweep_skill {
    const char *path; /* as given (borrowed) */
    up_skill skill;
    up_suite suite;    /* its own tests */
    char *tests_src;   /* where they came from ("'x/skill_meta.json'") */
    size_t off;        /* its first case in the sweep's suite */
    up_eval_plan plan; /* after up_eval_session_run: its jobs, moved out
                          of the sweep's plan; njobs 0 before */
} up_sweep_skill;

/* An eval's state: config, skill, suite, session and plan, all owned. */
typedef struct up_eval_session {
    up_config cfg;
    up_skill skill;
    up_skill base_skill; /* compare: skill A (rq->base_skill_path) */
    up_suite suite;
    up_harbor_set harbor;  /* --tasks: the tasks (their skills) */
    up_sweep_skill *sweep; /* a sweep: nsweep skills, else NULL */
    size_t nsweep;
    up_session s;
    up_eval_plan plan; /* after up_eval_session_start */
} up_eval_session;

/* Empty e, with a copy of the session options o (notes go to o.note). */
void up_eval_session_init(up_eval_session *e, const up_session_opts *o);
void up_eval_session_release(up_eval_session *e);

/*
 * Load the config (with rq's --max-tokens), the skill and its tests (the
 * suite-loading step: up_gen_suite_pick, which with rq->gen_tests writes
 * and saves a suite for a skill that has none), handing their warnings
 * and the tests' source over as notes.  With rq->base_skill_path (compare)
 * skill A is loaded too and the tests come from -t, else B's own, else
 * A's own, never generated (UP_EPARSE when none has a case).  Errors:
 * those of the loaders.
 */
int up_eval_session_load(up_eval_session *e, const up_eval_request *rq,
                         up_error *err);

/*
 * Resolve the targets and build the plan, its assertions parsed (a typo
 * in the tests costs no request); with skill A loaded (compare), its
 * baseline arm carries A (up_eval_plan_set_base).  Errors: model, key
 * and UP_EPARSE.
 */
int up_eval_session_start(up_eval_session *e, const up_eval_request *rq,
                          up_error *err);

/* The run log's batch (up_session_open_batch, with its notes), then the
 * cache. */
int up_eval_session_open(up_eval_session *e, up_error *err);

/*
 * Run the plan, close the journal, grade and judge, and write the run
 * log.  UP_EIO when the journal could not be written: nothing more was
 * sent, the journal is closed and what was answered is graded, no run
 * files are written.  UP_EINTR (with a batch: naming the --resume) when
 * the stop flag ended the run.
 */
int up_eval_session_run(up_eval_session *e, up_error *err);

/*
 * Summaries of every model (a new array of e->plan.nmodels, free it) at
 * the configured prices with the statistics seed, and *dead (a new array
 * of flags, free it): 1 for a model that answered nothing.
 */
int up_eval_session_summarize(const up_eval_session *e, uint64_t seed,
                              up_eval_summary **sums, char **dead,
                              up_error *err);

/*
 * A sweep: the summaries of skill i's models (as up_eval_session_summarize
 * over that skill's own plan), after up_eval_session_run.
 */
int up_eval_session_sweep_summarize(const up_eval_session *e, size_t i,
                                    uint64_t seed, up_eval_summary **sums,
                                    char **dead, up_error *err);

/*
 * The plans holding the jobs, for i from 0 until NULL: e->plan alone, or
 * once a sweep's run has split it, each skill's own plan.
 */
const up_eval_plan *up_eval_session_part(const up_eval_session *e, size_t i);

/* Conversations that failed after every retry, with the first and the
 * last of them (NULL when none): those outside the student's reach
 * (up_eval_job_errored) and coding-agent CLIs' own failures (UP_EAGENT:
 * counted as failed in the rates, still named); not those whose request
 * outgrew the context (up_eval_job_outgrew): they are results, failed
 * ones. */
size_t up_eval_session_failed(const up_eval_session *e,
                              const up_eval_job **first,
                              const up_eval_job **last);

/* Answers that stopped at the output cap; *cap gets the cap. */
size_t up_eval_session_cut(const up_eval_session *e, int *cap);

#endif
