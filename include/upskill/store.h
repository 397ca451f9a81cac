/*
 * The run store: upstream upskill's runs folder, made safe.
 *
 *   <runs_dir>/<batch_id>/batch_summary.json
 *   <runs_dir>/<batch_id>/run_N/run_metadata.json, run_result.json
 *   <runs_dir>/<batch_id>/run_N/cases/transcripts.jsonl, system_prompt.md
 * (ours: case artifacts, a line each)
 *
 * Batch ids are local time to the second and never collide (a suffix is
 * added when the folder exists; creation is an exclusive mkdir).  Every
 * file is written atomically.  The JSON keeps upstream's fields with their
 * meaning; our additions are new keys (see docs/runs-format.md).
 */
#ifndef UPSKILL_STORE_H
#define UPSKILL_STORE_H

#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/config.h"
#include "upskill/error.h"
#include "upskill/stats.h"

#define UP_STORE_SB_TASKS_MAX 1000000 /* "skillsbench".tasks read at most */

typedef struct up_run_record {
    char *batch_id;
    int run_number; /* the run_N folder number (upstream: per model) */
    /* written as metadata.run_number when not 0: upstream's benchmark
     * mode restarts it per model (the repeat); 0: run_number.  Read back
     * into run_number, as upstream's readers take it. */
    int meta_run_number;
    char *model; /* resolved model id */
    char *task;
    char *timestamp; /* ISO 8601 */
    char *run_type;  /* "baseline" or "with_skill" */
    char *skill_name;
    int passed;     /* upstream's meaning (docs/runs-format.md) */
    int all_passed; /* ours: every case passed ("all_cases_passed") */
    long assertions_passed;
    long assertions_total;
    char *error_message; /* NULL: null */
    /* upstream's ConversationStats subset */
    double span_ms;
    double llm_time_ms;
    double tool_time_ms;
    long turns;
    long input_tokens;
    long output_tokens;
    long total_tokens;
    /* ours */
    long cached_tokens;
    long reasoning_tokens;
    long cases_passed;
    long cases_total;
    long cases_errored;
    int repeat;      /* 1-based repeat index within the model */
    int attempt;     /* generate: 1-based refinement attempt; 0: none */
    int superseded;  /* in memory: a generate attempt that was not kept */
    int upstream;    /* in memory: written by upstream (no "repeat" key) */
    double cost_usd; /* < 0: unknown (no price configured) */
    /* upstream's tool fields (agent mode; 0 and {} in chat mode) */
    long tool_calls;
    long tool_errors;
    long execute_calls;   /* upstream: the calls that are not MCP calls */
    char *tool_call_map;  /* JSON object text {tool: count}, or NULL: {} */
    char *tool_error_map; /* the same for errors */
    long model_turns;     /* ours: model turns over every conversation */
    long skill_reads;     /* ours: conversations that read SKILL.md */
    long agent_convs;     /* ours: conversations run as a tool loop */
    const char *sandbox;  /* ours: how the run tool ran ("bwrap", "none";
                           * a static string), NULL: no run tool */
    /* ours, compare only (docs/compare.md): the arm ("A" or "B", a
     * static string; NULL: not a compare batch) and the name of the skill
     * it ran with (owned) */
    const char *compare_arm;
    char *arm_skill;
    char *arm_version; /* that skill's skill_meta.json version, or NULL */
    /* ours: a with-skill run of a batch with a baseline holds its model's
     * SkillsBench view over the whole batch ("skillsbench"); has_sb 0:
     * none (or one that does not read as one) */
    int has_sb;
    up_sbview sb;
} up_run_record;

/* The batch's lock file (ours): the holder's pid, host and start. */
#define UP_STORE_LOCK_FILE "lock"

/*
 * `runs --prune`: remove the batch folders of runs_dir in which nothing
 * was answered (no run file with a case that did not error, no journal
 * line with an answer), unless a running command holds one.  *removed
 * gets their paths (NULL-terminated, free with up_strv_free).  Errors:
 * those of listing runs_dir.
 */
int up_store_prune(char ***removed, const char *runs_dir, up_error *err);

/* ---- case artifacts (docs/runs-format.md, "Case artifacts") -------- */

struct json_t;

/* Default of config artifact_max_bytes: message text per artifact. */
#define UP_STORE_CASE_MAX ((size_t)256 << 10)

/* A run folder's system prompt, named by its artifacts' system message. */
#define UP_STORE_SYSTEM_FILE "cases/system_prompt.md"

/*
 * SkillsBench's view as JSON (docs/runs-format.md): {"tasks", "with",
 * "without", "difference", "g", "ci95_with", "ci95_without",
 * "ci95_difference"}, null where undefined; only "tasks" when it is 0.
 */
struct json_t *up_store_sb_json(const up_sbview *v);

/* A run folder's artifacts, one compact JSON object per line. */
#define UP_STORE_CASES_FILE "cases/transcripts.jsonl"

/*
 * Writing run_N/cases/transcripts.jsonl as a stream: lines go to a temporary
 * file in run_N as they come (one artifact in memory at a time), and close
 * makes it whole at once (fsync, rename, folder fsync), so a reader sees the
 * old file or the complete new one.  One file per run folder, not one per
 * case: creating thousands of small files cost more than the run itself
 * (bench/README.md).
 */
typedef struct up_store_cases {
    int fd;     /* the temporary file, or -1 */
    up_buf tmp; /* its path */
    up_buf path;
} up_store_cases;

int up_store_case_load(struct json_t **out, const char *batch_dir,
                       size_t case_index, up_error *err);

/*
 * The newest batch in runs_dir (the greatest folder name: batch ids are
 * times) into id.  UP_ENOTFOUND when runs_dir has no batch.
 */
int up_store_batch_latest(up_buf *id, const char *runs_dir, up_error *err);

/*
 * Write batch_summary.json: {batch_id, model, task, total_runs,
 * passed_runs, results: [run_result...]} plus our "stats" object given as
 * JSON text (may be NULL).
 */
int up_store_summary_write(const char *batch_dir, const char *batch_id,
                           const char *model, const char *task,
                           const up_run_record *runs, size_t n,
                           const char *stats_json, up_error *err);

/*
 * Load every run result under runs_dir: per batch (sorted by name), from
 * batch_summary.json when it parses, else from run_N/run_result.json in
 * numeric order.  A file or record that cannot be used is skipped and
 * reported: *skipped_files (when not NULL) receives one message per skip,
 * naming the file and what is wrong, as a NULL-terminated vector the
 * caller frees with up_strv_free (empty, never NULL, when all was read).
 */
int up_store_load(up_run_record **runs, size_t *n, char ***skipped_files,
                  const char *runs_dir, up_error *err);
/* up_store_load for the one batch folder batch_dir.  Never fails. */
int up_store_load_batch(up_run_record **runs, size_t *n, char ***skipped_files,
                        const char *batch_dir);
void up_store_free(up_run_record *runs, size_t n);

/*
 * One (model, skill) comparison: the with-skill and baseline runs of one
 * batch, their repeats pooled.  Strings point into the loaded runs.
 */
typedef struct up_compare {
    const char *model;
    const char *skill;
    const char *batch_id;
    double with_rate;   /* pooled assertions_passed / assertions_total */
    double base_rate;   /* same for the baseline runs */
    double with_tokens; /* mean total_tokens per run */
    double base_tokens;
    int has_baseline;
    /* the batch of the baseline when it is not batch_id's (the latest
     * batch had none: an earlier one's is shown, marked), else NULL */
    const char *base_batch;
    size_t nruns;        /* with-skill runs pooled */
    int with_errored;    /* every with-skill case errored: no rate */
    int base_errored;    /* same for the baseline */
    const char *error;   /* their first error_message, or NULL */
    const up_sbview *sb; /* the batch's SkillsBench view (its with-skill
                            runs' "skillsbench"), or NULL: none */
    /* a compare batch (docs/compare.md): the skills its arms A (the
     * "baseline" runs) and B ran with; both NULL in any other batch */
    const char *arm_a, *arm_b;
} up_compare;

/*
 * Pair runs into comparisons, one per (model, skill), after filtering by
 * the given skills and models (NULL/0: all).  best = 0 keeps the latest
 * batch (its kept generate attempt, its repeats pooled) in which the
 * model answered something: a later batch whose with-skill runs all
 * errored does not hide an earlier answered one; when it has no
 * baseline run, the latest earlier baseline is used and its batch named
 * in base_batch.  best = 1 is
 * upstream's pick exactly: each with-skill run on its own (superseded
 * attempts included) with upstream's baseline from its batch, the
 * highest rate kept, ties keeping the earliest.  The result is a
 * heap array sorted by skill, then model; free it with free().
 */
void up_store_compare(up_compare **out, size_t *nout, const up_run_record *runs,
                      size_t n, const char *const *skills, size_t nskills,
                      const char *const *models, size_t nmodels, int best);

/*
 * The model string s as one key for grouping and filtering: its resolved
 * id through the alias table (cfg's aliases, then the built-in ones; cfg
 * may be NULL), so upstream's "sonnet" and this project's
 * "anthropic.claude-sonnet-4-5" are one model; a copy of s when it does
 * not resolve.  The caller frees the result.
 */
char *up_store_model_key(const char *s, const up_config *cfg);

/*
 * The runs whose model's key (up_store_model_key) is one of keys, as
 * shallow copies in a heap array (their strings belong to runs: free only
 * the array); *nout gets their number.
 */
up_run_record *up_store_pick_models(const up_run_record *runs, size_t n,
                                    const char *const *keys, size_t nkeys,
                                    const up_config *cfg, size_t *nout);

/* Replace each record's model by its up_store_model_key. */
void up_store_key_models(up_run_record *runs, size_t n, const up_config *cfg);

/*
 * Write results.csv at path: upstream's columns, then run_type,
 * skill_name, cached_tokens, reasoning_tokens, cost_usd.  Filters apply
 * (unlike upstream).  The folder of path must exist (UP_ENOTFOUND).
 */
int up_store_csv(const char *path, const up_run_record *runs, size_t n,
                 const char *const *skills, size_t nskills,
                 const char *const *models, size_t nmodels, up_error *err);

#endif
