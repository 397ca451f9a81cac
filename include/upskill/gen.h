/*
 * upskill generate: a teacher model writes a skill, a test-gen model
 * writes its tests, the eval engine measures it on the teacher and the
 * students, the teacher refines it on the failures, and the version with
 * the best measured lift is saved with its tests.  docs/generate.md
 * describes the flow, the prompts and the reply format.
 *
 * Phases: up_gen_init resolves the models and reads the source (a skill
 * folder to improve, or a trace); up_gen_run does the work; the caller
 * renders the result from the up_gen struct; up_gen_release frees it.
 *
 * Ownership: an up_gen owns everything it points to except its options'
 * strings, which are borrowed and must outlive it.
 */
#ifndef UPSKILL_GEN_H
#define UPSKILL_GEN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "upskill/buf.h"
#include "upskill/config.h"
#include "upskill/error.h"
#include "upskill/eval.h"
#include "upskill/model.h"
#include "upskill/quote.h"
#include "upskill/session.h"
#include "upskill/skill.h"
#include "upskill/store.h"
#include "upskill/suite.h"
#include "upskill/validate.h"

/* ---- prompts (gen_prompts.c) ------------------------------------------ */

/* One {{key}} of a prompt template and its value.  Strings borrowed. */
typedef struct up_gen_var {
    const char *key;
    const char *value;
} up_gen_var;

/*
 * Append tmpl to out with every {{key}} of vars replaced by its value.
 * Values are inserted verbatim and never expanded again, so user text
 * can hold anything; unknown placeholders are kept as written.
 */
void up_gen_expand(up_buf *out, const char *tmpl, const up_gen_var *vars,
                   size_t nvars);

/* ---- teacher replies (gen_reply.c) ------------------------------------ */

enum up_gen_format {
    UP_GEN_REPLY_JSON, /* {"files": {"SKILL.md": "...", ...}} */
    UP_GEN_REPLY_BARE  /* a bare SKILL.md, code fences stripped */
};

/* A skill as the teacher wrote it, before it becomes an up_skill. */
typedef struct up_gen_draft {
    char *skill_md;       /* SKILL.md text as written */
    up_skill_file *files; /* the other files, in reply order */
    size_t nfiles;
    enum up_gen_format format;
} up_gen_draft;

/*
 * Read a teacher's reply into d: a JSON object {"files": {path: text}}
 * (alone, in a ```json fence, or with prose around it), else a bare
 * SKILL.md (an outer code fence and chatter before the first "---" line
 * are dropped).  Errors (UP_EPARSE, the message says what to fix): JSON
 * without a "files" object, a file value that is not a string, no
 * SKILL.md, text that is neither JSON nor SKILL.md.
 */
int up_gen_reply_parse(up_gen_draft *d, const char *reply, up_error *err);

/* ---- tests (gen_tests.c) ---------------------------------------------- */

/* The JSON Schema asked of the test-gen model: {"cases": [...]}. */
extern const char up_gen_tests_schema[];

/* ---- refinement input (gen_refine.c) ---------------------------------- */

/* ---- the run ---------------------------------------------------------- */

enum up_gen_stage {
    UP_GEN_EV_TRACE,    /* the trace was read (detail: format, warnings) */
    UP_GEN_EV_SKILL,    /* asking the teacher for the skill (detail: how) */
    UP_GEN_EV_REPAIR,   /* a reply was invalid, sent back (detail: errors) */
    UP_GEN_EV_WARNINGS, /* the accepted skill has warnings (detail) */
    UP_GEN_EV_TESTS,    /* asking for tests, or got them (detail: notes) */
    UP_GEN_EV_EVAL,     /* evaluating an attempt */
    UP_GEN_EV_ATTEMPT,  /* an attempt's results are in */
    UP_GEN_EV_REFINE,   /* asking the teacher for a better version */
    UP_GEN_EV_STOP      /* the loop ended (detail: why) */
};

/* Why the refinement loop stopped. */
enum up_gen_stop {
    UP_GEN_STOP_NONE,       /* did not run (--no-eval) */
    UP_GEN_STOP_GOOD,       /* significant lift for every driving model */
    UP_GEN_STOP_CEILING,    /* the skill arm passes every case already */
    UP_GEN_STOP_PLATEAU,    /* with-skill rate moved less than 5 points */
    UP_GEN_STOP_LIMIT,      /* max_refine_attempts evaluations done */
    UP_GEN_STOP_REJECTED,   /* a refinement stayed invalid after repairs */
    UP_GEN_STOP_ERROR,      /* a provider error ended it (best kept) */
    UP_GEN_STOP_INTERRUPTED /* the stop flag (Ctrl-C) ended it (best kept) */
};

/* How the skill did on the teacher itself. */
enum up_gen_teacher {
    UP_GEN_TEACHER_OK,         /* kept its performance */
    UP_GEN_TEACHER_MISCAPTURE, /* significant drop: the skill is wrong */
    UP_GEN_TEACHER_REDUNDANT   /* no gain, only more tokens */
};

/* One evaluated version of the skill. */
typedef struct up_gen_attempt {
    int number;            /* 1-based */
    up_skill skill;        /* this version, owned */
    up_eval_plan plan;     /* its evaluation; models[0] is the teacher */
    up_eval_summary *sums; /* one per plan model */
    int evaluated;         /* plan ran and was graded */
    int failed;            /* evaluated, but conversations failed after
                              retries: not judged, and the run stopped */
    double score;          /* mean lift over the driving models */
    double skill_rate;     /* mean with-skill rate over driving models */
    int good;              /* significant lift for every driving model */
    enum up_gen_teacher teacher;
    /* the training cases this version gives away (quote.h): a
     * refinement that gives away more than the first version is never
     * kept */
    char *quotes; /* up_quote_text of them, or NULL: none */
    size_t nquotes;
    int quoting; /* gives away more than the first version: not kept */
} up_gen_attempt;

typedef struct up_gen_event {
    enum up_gen_stage stage;
    int attempt;               /* 1-based, 0 before the loop */
    const char *model;         /* the model concerned, or NULL */
    const char *detail;        /* text, or NULL */
    const up_gen_attempt *att; /* ATTEMPT: the evaluated attempt */
    const struct up_gen *gen;
} up_gen_event;

typedef struct up_gen_opts {
    const char *task;            /* the task or improvement request */
    const char *const *examples; /* -e, nexamples of them */
    size_t nexamples;
    const char *from;   /* NULL, a skill folder or a trace file */
    const char *output; /* NULL: skills_dir/<name>; names the skill */
    const char *model;  /* -m: NULL: config or "sonnet" */
    const char *test_gen_model;
    const char *const *eval_models; /* --eval-model, neval_models */
    size_t neval_models;
    const char *eval_base_url;    /* OpenAI-compatible URL for them */
    const char *eval_api_key_env; /* its key variable, or NULL */
    const char *runs_dir;         /* NULL: config's, or "runs" */
    int no_eval;                  /* save the skill without tests */
    int force;                    /* replace a folder already there */
    int no_log;                   /* write no run log */
    int no_cache;                 /* evaluations skip the response cache */
    int max_attempts;             /* evaluations; 0: config's */
    int runs;                     /* repeats per case and arm; 0: 1 */
    int jobs;                     /* conversations at once; 0: config */
    int min_tests, max_tests;     /* 0: config min_tests, max_tests */
    int max_repairs;              /* invalid replies sent back; -1: 2 */
    size_t trace_budget;          /* tokens of trace; 0: the trace module's */
    size_t refine_budget;         /* tokens of failures; 0: 6000 */
    uint64_t seed;                /* statistics seed */
    volatile sig_atomic_t *stop;  /* Ctrl-C flag, or NULL: once non-zero
                                     the call or eval in flight is
                                     cancelled and up_gen_run returns
                                     UP_EINTR, the best version saved */
    void (*event)(void *ud, const up_gen_event *ev);
    void *event_ud;
    /* The eval scheduler's "no answer for a while" hook (sched.h), with
     * event_ud; may be NULL. */
    void (*waiting)(void *ud, const up_sched_wait *w);
    /* Called each second of a teacher or test-writer call while it has
     * no answer (the loop's waiting hook, UP_GEN_CALL_TICK_MS), with
     * event_ud; may be NULL. */
    void (*call_waiting)(void *ud, const up_sched_wait *w);
    /* The evaluation session's warnings (upskill/session.h), with
     * event_ud; may be NULL. */
    void (*note)(void *ud, enum up_session_note kind, const char *text);
    /* The evaluations' progress (up_eval_run_opts.progress), with
     * event_ud; may be NULL. */
    void (*progress)(void *ud, const up_eval_plan *p, size_t done,
                     const up_eval_job *job);
    /* Agent mode of the students' evaluations (up_session_agent_opts):
     * --agent, --inject (NULL: the catalogue), --max-turns,
     * --token-budget, --time-limit in ms; 0: the defaults. */
    int agent;
    const char *inject;
    long max_turns, token_budget, wall_ms;
    /* The run tool (up_session_run_opts): --run-tool, --sandbox. */
    int run_tool;
    const char *sandbox;
    /* --holdout PCT: the share of the tests held out of refinement and
     * of the choice of the kept version, which is then measured on them
     * (docs/generate.md); < 0: UP_GEN_HOLDOUT, 0: none */
    int holdout;
} up_gen_opts;

#define UP_GEN_HOLDOUT      40   /* default --holdout, percent */
#define UP_GEN_CALL_TICK_MS 1000 /* call_waiting's period */
#define UP_GEN_HOLDOUT_MIN  2    /* cases held out at least */
#define UP_GEN_HOLDOUT_KEEP 3    /* training cases kept at least */

/* Why no case was held out (up_gen.holdout_off). */
enum up_gen_holdout_off {
    UP_GEN_HOLDOUT_ON = 0, /* held out: up_gen.nheld cases */
    UP_GEN_HOLDOUT_ASKED,  /* --holdout 0 */
    UP_GEN_HOLDOUT_FEW     /* too few tests to hold 2 out and keep 3 */
};

/* Tokens and cost of a group of calls. */
typedef struct up_gen_cost {
    int calls;       /* conversations */
    up_usage usage;  /* summed */
    double cost_usd; /* < 0: some model has no price configured */
} up_gen_cost;

typedef struct up_gen {
    const up_gen_opts *o;
    const up_config *cfg; /* borrowed */
    /* The evaluation session: its targets are the teacher, the students
     * (nmodels in all: the models evaluated), then the test-gen model;
     * it owns the cache, the judge and the run log. */
    up_session session;
    size_t nmodels;
    up_skill source;  /* --from DIR: the skill improved */
    int has_source;   /* source was loaded */
    up_buf trace;     /* --from FILE: the trace text for the prompt */
    up_suite suite;   /* the tests */
    int tests_reused; /* tests came from the source skill */
    up_gen_attempt *attempts;
    size_t nattempts, max_attempts;
    size_t best; /* index of the kept attempt */
    enum up_gen_stop stop;
    up_gen_cost writing;      /* the teacher writing, repairing, refining */
    up_gen_cost testing;      /* the test-gen model writing the tests */
    int min_tests, max_tests; /* cases asked for, resolved at init */
    up_buf output;            /* the folder the skill was saved to */
    up_buf backup;            /* --force: the old folder's copy, or "" */
    up_vreport saved;         /* validation of the saved folder */
    /* held-out cases: suite holds the training cases only; held the
     * others, never shown to the teacher nor used to choose; the kept
     * version is measured on them once the loop ends (hsums) */
    int holdout_off;        /* enum up_gen_holdout_off */
    up_suite held;          /* the held-out cases */
    size_t *held_idx;       /* nheld indices into the saved tests, ascending */
    size_t nheld;           /* 0: none held out */
    size_t ntests;          /* every case, training and held out */
    char *all_tests;        /* every case's JSON, in the saved order (NULL:
                               none held out: suite is all) */
    up_eval_plan hplan;     /* the kept version on the held-out cases */
    up_eval_summary *hsums; /* its summaries per model, NULL: not run */
} up_gen;

/*
 * Resolve the models (teacher: o->model, config skill_generation_model,
 * "sonnet"; test-gen: o->test_gen_model, config test_gen_model, the
 * teacher; students: o->eval_models, through o->eval_base_url when set)
 * and read o->from (a folder: the skill to improve; a file: a trace).
 * cfg is borrowed.  Errors: UP_EPARSE (model, skill), UP_ENOTFOUND.
 */
int up_gen_init(up_gen *g, const up_gen_opts *o, const up_config *cfg,
                up_error *err);
void up_gen_release(up_gen *g);

/*
 * Generate (or improve), test, evaluate and refine, then save the kept
 * version to g->output with its tests in skill_meta.json, and log every
 * attempt under the runs folder.  When an error stops the loop after a
 * valid skill exists, the best version so far is still saved and the
 * error says where.  Errors: UP_EINVALID (the teacher's skill stayed
 * invalid), UP_EPARSE, provider errors, UP_EINTR, write errors.
 */
int up_gen_run(up_gen *g, up_error *err);

/*
 * The evaluation conversations of model m (index into g->models) over
 * every attempt, into *out: each attempt's skill arm, and the baseline
 * once (later attempts reuse the first one's answers).
 */
void up_gen_eval_cost(const up_gen *g, size_t m, up_gen_cost *out);

/* Model m of the evaluated ones (0: the teacher), or with m == nmodels
 * the test-gen model. */
const up_model *up_gen_model(const up_gen *g, size_t m);

/* ---- tests for eval and benchmark (gen_tests.c, suite_gen.c) -------- */

/* How eval and benchmark get tests for a skill that has none. */
typedef struct up_gen_tests_req {
    const char *model;       /* --test-gen-model, or NULL */
    const char *eval_model;  /* the first model under test, or NULL */
    const char *base_url;    /* eval's --base-url, or NULL */
    const char *api_key_env; /* its key variable, or NULL */
    int no_save;             /* --no-save-tests: keep them out of the skill */
    volatile sig_atomic_t *stop; /* Ctrl-C flag, or NULL */
} up_gen_tests_req;

/* The kept version (NULL before one exists). */
const up_skill *up_gen_skill(const up_gen *g);

/* Short text of a stop reason / teacher check, for reports. */
const char *up_gen_stop_label(enum up_gen_stop s);
const char *up_gen_teacher_label(enum up_gen_teacher t);

#endif
