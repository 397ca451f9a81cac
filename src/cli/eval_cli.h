/*
 * Shared by `upskill eval` and `upskill benchmark`: the parsed arguments
 * and the one function that runs either.
 */
#ifndef UPSKILL_EVAL_CLI_H
#define UPSKILL_EVAL_CLI_H

#include <jansson.h>

#include "cli.h"

struct eval_args {
    const char *skill_path;
    const char *tests;
    const char *runs_dir;
    const char *base_url;
    const char *api_key_env;
    const char *inject;
    const char *resume;
    const char *judge_model;
    const char *test_gen_model; /* --test-gen-model: when tests are made */
    struct strlist models;
    long runs;
    long jobs;
    long seed;
    long max_tokens;   /* --max-tokens; UP_MAX_TOKENS_UNSET: the config's */
    double fail_under; /* < 0: no gate */
    double margin;     /* --margin POINTS; < 0: config or default */
    int plan;          /* --plan: power planning only, nothing sent */
    double plan_p0;    /* --baseline-rate: expected baseline (0-1) */
    double plan_lift;  /* --target-lift POINTS */
    int no_baseline;
    int verbose;
    int no_log;
    int log_runs;      /* --log-runs: upstream's default, accepted */
    int no_save_tests; /* --no-save-tests: generated tests stay unsaved */
    int no_cache;      /* --no-cache: neither read nor write the cache */
    int json;
    int require_lift;
    int benchmark;       /* 1 for `upskill benchmark` */
    int agent;           /* --agent: every conversation a tool loop */
    int trigger;         /* --trigger: activation only (harness.h) */
    long max_turns;      /* --max-turns; 0: UP_AGENT_MAX_TURNS */
    long token_budget;   /* --token-budget per conversation; 0: none */
    long time_limit;     /* --time-limit seconds per conversation; 0: none */
    int run_tool;        /* --run-tool: offer `run` (implies --agent) */
    const char *sandbox; /* --sandbox bwrap|none */
    const char *shard;   /* --shard I/N: one slice of the job matrix */
    const char *tasks;   /* --tasks DIR: Harbor task folders */
    int tasks_check;     /* --check: classify the tasks, run oracle and
                            null on them; send nothing */
    int static_check;    /* --static: --check without oracle and null */
    const char *family_control; /* --family-control fdr|holm|none */
    int family;                 /* ... parsed: enum up_family_control */
    int aa;            /* --aa: the skill arm without the skill (A/A) */
    const char *sound; /* --sound FILE: --check writes its verdicts
                          there; an eval runs only the sound tasks */
    int online;        /* --online-instructions: run the tasks whose instruction
                          sends the student to the network all the same */
    const char *const *sweep; /* eval SKILL...: the skill folders of a
                                 sweep (nsweep > 1), else NULL */
    size_t nsweep;
    int upstream_lines; /* eval: upstream's "Loaded N test case(s) from"
                           and "Recommendation:" lines on stdout */
    json_t **json_into; /* --inject both --json: the eval's document is
                           left here (a new reference), not printed */
};

/* The options eval and benchmark share, for a struct eval_args a. */
#define EVAL_SHARED_OPTS(a)                                                     \
    {'t', "tests", OPT_STRING, &(a).tests, "FILE", "test cases (JSON)"},        \
        {0,        "no-baseline",                                               \
         OPT_FLAG, &(a).no_baseline,                                            \
         NULL,     "skip the run without the skill"},                           \
        {'v', "verbose", OPT_FLAG, &(a).verbose, NULL, "one line per case"},    \
        {0,                                                                     \
         "no-cache",                                                            \
         OPT_FLAG,                                                              \
         &(a).no_cache,                                                         \
         NULL,                                                                  \
         "send every request; neither read nor fill the response cache"},       \
        {0,          "base-url",                                                \
         OPT_STRING, &(a).base_url,                                             \
         "URL",      "OpenAI-compatible endpoint for the -m models"},           \
        {0,          "api-key-env",                                             \
         OPT_STRING, &(a).api_key_env,                                          \
         "NAME",     "variable holding that endpoint's key"},                   \
        {'j', "jobs", OPT_INT, &(a).jobs, "N", "conversations at once"},        \
        {0, "json", OPT_FLAG, &(a).json, NULL, "print one JSON document"},      \
        {0,          "fail-under",                                              \
         OPT_DOUBLE, &(a).fail_under,                                           \
         "RATE",     "exit 1 when a with-skill pass rate is below RATE (0-1)"}, \
        {0,        "require-lift",                                              \
         OPT_FLAG, &(a).require_lift,                                           \
         NULL,     "exit 1 unless the skill is beneficial for every model"},    \
        {0, "seed", OPT_INT, &(a).seed, "N", "seed of the statistics (1)"},     \
        {0,          "shard",                                                   \
         OPT_STRING, &(a).shard,                                                \
         "I/N",      "run slice I of N of the jobs (docs/sharding.md)"},        \
        {0,          "margin",                                                  \
         OPT_DOUBLE, &(a).margin,                                               \
         "POINTS",   "\"no meaningful effect\" margin in points (5)"},          \
        {0,          "family-control",                                          \
         OPT_STRING, &(a).family_control,                                       \
         "HOW",      "several comparisons: fdr (default), holm, none"},         \
        {0,       "max-tokens",                                                 \
         OPT_INT, &(a).max_tokens,                                              \
         "N",     "output cap per answer (max_tokens, 4096)"},                  \
        {0,                                                                     \
         "inject",                                                              \
         OPT_STRING,                                                            \
         &(a).inject,                                                           \
         "HOW",                                                                 \
         "upskill (default), agentskills; --agent: catalog (default), "         \
         "preload, both (eval: discovery vs preloading)"},                      \
        {0,        "agent",                                                     \
         OPT_FLAG, &(a).agent,                                                  \
         NULL,     "students work as agents: tools over a workspace per case"}, \
        {0, "max-turns", OPT_INT, &(a).max_turns, "N", HELP_MAX_TURNS},         \
        {0,       "token-budget",                                               \
         OPT_INT, &(a).token_budget,                                            \
         "N",     "agent mode: tokens per conversation (none)"},                \
        {0,         "time-limit",                                               \
         OPT_INT,   &(a).time_limit,                                            \
         "SECONDS", "agent mode: wall clock per conversation (none)"},          \
        {0,        "run-tool",                                                  \
         OPT_FLAG, &(a).run_tool,                                               \
         NULL,     "offer the sandboxed run tool (implies --agent)"},           \
        {0,          "sandbox",                                                 \
         OPT_STRING, &(a).sandbox,                                              \
         "HOW",      "how run runs commands: bwrap (default), none"},           \
        {0,          "judge-model",                                             \
         OPT_STRING, &(a).judge_model,                                          \
         "MODEL",    "judge for llm-rubric assertions"},                        \
        {0,          "test-gen-model",                                          \
         OPT_STRING, &(a).test_gen_model,                                       \
         "MODEL",    "writes the tests when the skill has none"},               \
        {0,        "no-save-tests",                                             \
         OPT_FLAG, &(a).no_save_tests,                                          \
         NULL,     "do not save generated tests into skill_meta.json"},         \
    {                                                                           \
        0, "resume", OPT_STRING, &(a).resume, "BATCH",                          \
            "finish an interrupted batch"                                       \
    }

/* State of the live progress line (eval_report_progress's ud). */
struct eval_progress {
    long start;     /* when the run began (up_http_now_ms) */
    size_t passing; /* jobs passing so far */
    long tokens;    /* tokens so far */
    int tty;        /* a live line; else a plain line per quarter done */
    int quarter;    /* not a TTY: quarters reported so far */
    size_t before;  /* jobs done before this run (--resume, the cache):
                       left out of the ETA's rate */
    int started;    /* a first call was seen */
};

/* Run the eval described by a; returns the process exit code. */
int eval_cli_run(struct eval_args *a);

/* SKILL_PATH and -t must exist (upstream's click paths): 0, or a usage
 * error printed and -1. */
int eval_cli_need_paths(const struct cmd_spec *spec, const struct eval_args *a,
                        const char *skill_path);
/* Load, run and report one eval of a in e (eval_cli_run's body); < 0:
 * an error in err, else the exit code. */
int eval_cli_session_run(up_eval_session *e, const struct eval_args *a,
                         up_error *err);
/* --inject both: discovery vs preloading (eval_inject.c); the exit code. */
int eval_inject_both(struct eval_args *a);

/* The session's notes (an up_session_opts.note; ud: the eval_args). */
void eval_note(void *ud, enum up_session_note kind, const char *text);

/* Upstream's "Loaded N test case(s) from SOURCE" line for suite s, when
 * a->upstream_lines. */
void eval_loaded_line(const struct eval_args *a, const up_suite *s);

/* The session options and the request of a (eval_cli.c; also `select`). */
void eval_cli_session_opts(up_session_opts *o, const struct eval_args *a);
void eval_cli_request(up_eval_request *rq, const struct eval_args *a);

/* "Evaluating SKILL on N model(s): ..." on stderr. */
void eval_report_start(const up_eval_session *e);
/* A sweep's: "Evaluating N skills on M model(s): ..." (eval_sweep.c). */
void eval_sweep_start(const up_eval_session *e);
/* A sweep's outcome: each skill's report, the leaderboard, gates and
 * failures (eval_sweep.c); the exit code, or a negative UP_E*. */
int eval_sweep_outcome(const up_eval_session *e, const struct eval_args *a,
                       up_error *err);
/* The gates (--fail-under, --require-lift) over n summaries: EXIT_GATE
 * with each failure printed, else EXIT_OK. */
int eval_gates(const struct eval_args *a, const up_eval_summary *s, size_t n);
/* The comparison table of n summaries, without the models that
 * answered nothing (dead[m]). */
void eval_outcome_table(const up_eval_summary *s, const char *dead, size_t n);
/* Say how many answers stopped at the output cap, if any. */
void eval_outcome_cut_note(const up_eval_session *e);
/*
 * After a run: reports, table, cut answers, gates, failures; returns the
 * exit code (EXIT_GATE, EXIT_PROVIDER), or a negative UP_E* in err.
 */
int eval_outcome(const up_eval_session *e, const struct eval_args *a,
                 up_error *err);
/*
 * Say the models that answered nothing (dead[m]) and the conversations
 * that failed after retries; EXIT_PROVIDER when any failed (1 when only
 * coding-agent CLIs failed: UP_EAGENT), else EXIT_OK.
 */
int eval_outcome_failures(const up_eval_session *e, const char *dead);
/* After a journal write failure (err): what was answered, the cause;
 * returns EXIT_IO. */
int eval_outcome_unsaved(const up_eval_session *e, const struct eval_args *a,
                         up_error *err);

/*
 * The scheduler's "still waiting" hook: one plain stderr line saying how
 * long no conversation has ended, and the last failure (terminal or not);
 * at the first Ctrl-C (w->stopping) how many conversations are finishing.
 */
void eval_cli_wait_note(void *ud, const up_sched_wait *w);

/* Report rendering (eval_report.c). */
void eval_report_text(const up_eval_plan *p, const up_eval_summary *s,
                      int verbose);
/* Several models: one box-drawn row per model. */
void eval_report_table(const up_eval_summary *s, size_t n);
/* --plan: the power plan for suite at a's runs, baseline and target on
 * stdout (one JSON document with --json); returns the exit code. */
int eval_report_plan(const up_suite *suite, const struct eval_args *a);
/* --json's document of an eval (a new reference; it takes tasks). */
json_t *eval_report_json(const up_eval_plan *p, const up_eval_summary *s,
                         const char *batch_id, json_t *tasks);
/* Into o, comparison c's verdict and the numbers behind it (verdict,
 * lift, lift_ci, p_value, ...: docs/statistics.md). */
void eval_report_verdict_json(json_t *o, const up_comparison *c);

/* Parse a->family_control into a->family; UP_EUSAGE naming the value. */
int eval_cli_family(struct eval_args *a, up_error *err);

/* The family of c as JSON: {"comparisons", "claimed", "control", "rate",
 * "level", "text"} (a new reference). */
json_t *eval_report_family_json(const up_comparison *c);

/* The first of s[0..n) that is one of a family of several, or NULL. */
const up_comparison *eval_report_family_of(const up_eval_summary *s, size_t n);

/* Print c's family line ("60 comparisons; claims hold at ..."), after an
 * empty line; nothing for NULL or a comparison alone. */
void eval_report_family_line(const up_comparison *c);

/* Control the claims of the comparisons of s[0..n) (those with a
 * baseline) as one family, control an enum up_family_control. */
void eval_report_family(up_eval_summary *s, size_t n, int control);
/* Model m's answers cut at the output cap, as that document's
 * cut_conversations (a new reference). */
json_t *eval_report_cut_json(const up_eval_plan *p, size_t m);
/* One model's entry of that document (a new reference). */
json_t *eval_report_model_json(const up_eval_summary *s);
/*
 * Progress on stderr (an up_eval_run_opts.progress): a live line on a
 * TTY, else a plain line at each quarter of the jobs.
 */
void eval_report_progress(void *ud, const up_eval_plan *p, size_t done,
                          const up_eval_job *job);
/* -v: one stderr line per HTTP attempt that did not simply succeed. */
void eval_report_attempt(void *ud, const up_http_attempt *at);

/* `eval --tasks DIR --check`: each task runnable here or not and why
 * (harbor_report.c).  Returns the exit code. */
int harbor_check_report(struct eval_args *a);

#endif
