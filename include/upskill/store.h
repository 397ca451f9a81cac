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

void up_run_record_init(up_run_record *r);
void up_run_record_release(up_run_record *r);

/*
 * Create a new batch folder under runs_dir; its path goes to dir and its
 * id to id.  Never reuses an existing folder.  runs_dir is created when
 * missing, but only when its parent exists (UP_ENOTFOUND naming the
 * parent otherwise).
 */
int up_store_batch_new(up_buf *dir, up_buf *id, const char *runs_dir,
                       up_error *err);

/* The batch's lock file (ours): the holder's pid, host and start. */
#define UP_STORE_LOCK_FILE "lock"

/*
 * Take the batch's advisory lock (flock on batch_dir/lock, created if
 * needed) for as long as *fd stays open, and write who holds it into the
 * file.  When another process holds it: UP_EIO with a message naming the
 * holder (pid, host, start time), *fd -1.  Release with
 * up_store_batch_unlock.
 */
int up_store_batch_lock(int *fd, const char *batch_dir, up_error *err);
/* Release a lock from up_store_batch_lock (fd may be -1). */
void up_store_batch_unlock(int fd);

/*
 * Remove the leftovers of interrupted atomic writes (NAME.tmp.XXXXXX) in
 * batch_dir, its run_N folders and their cases/; call it only while
 * holding the batch's lock.  Returns how many were removed.
 */
size_t up_store_batch_clean(const char *batch_dir);

/*
 * `runs --prune`: remove the batch folders of runs_dir in which nothing
 * was answered (no run file with a case that did not error, no journal
 * line with an answer), unless a running command holds one.  *removed
 * gets their paths (NULL-terminated, free with up_strv_free).  Errors:
 * those of listing runs_dir.
 */
int up_store_prune(char ***removed, const char *runs_dir, up_error *err);

/* Write run_N/run_metadata.json and run_N/run_result.json for r. */
int up_store_run_write(const char *batch_dir, const up_run_record *r,
                       up_error *err);

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

/* Write run_N/name (len bytes of data) atomically, creating run_N. */
int up_store_run_file_write(const char *batch_dir, int run_number,
                            const char *name, const char *data, size_t len,
                            up_error *err);

/*
 * Cap the texts of a case artifact (a JSON object with "messages"): every
 * message's "content" and every tool call's "arguments" together hold at
 * most cap bytes.  Short texts stay whole and the long ones share what is
 * left equally; a cut text ends at a UTF-8 character boundary and its
 * object gets KEY_cut: true and KEY_bytes, the size before the cut (kept
 * when already set, e.g. by an answer cut at max_answer_bytes).
 * Returns the bytes of text kept.
 */
size_t up_store_case_cap(struct json_t *artifact, size_t cap);

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

/* Open run_N's (created if needed) temporary cases file.  Errors: UP_EIO. */
int up_store_cases_open(up_store_cases *w, const char *batch_dir,
                        int run_number, up_error *err);
/* Append one artifact (compact JSON text, no newline) as a line. */
int up_store_cases_add(up_store_cases *w, const char *json, up_error *err);
/* Append len bytes of line, one artifact and its newline, as they are. */
int up_store_cases_add_line(up_store_cases *w, const char *line, size_t len,
                            up_error *err);
/* Sync and rename into place; the writer is released either way. */
int up_store_cases_close(up_store_cases *w, up_error *err);
/* Drop the temporary file (after an error); safe when not open. */
void up_store_cases_abort(up_store_cases *w);

/*
 * The artifacts of case case_index (0-based) in batch_dir: its line in
 * every run_N/cases/transcripts.jsonl, runs in number order, as a new JSON
 * array in *out (the caller decrefs it; empty when the batch has none).  Files
 * are read a line at a time.  Errors: UP_EPARSE naming the file and line
 * that is not a JSON object, UP_EIO.
 */
/*
 * Call fn with each artifact (a JSON object, borrowed for the call) of the
 * cases file path, a line at a time.  A missing file has none (0);
 * UP_EPARSE names the line that is not a JSON object, UP_EIO a read error.
 */
int up_store_cases_each(const char *path,
                        void (*fn)(void *ud, struct json_t *artifact), void *ud,
                        up_error *err);

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

/* assertions_passed / assertions_total, 0 when the total is 0. */
double up_run_rate(const up_run_record *r);

/*
 * Write results.csv at path: upstream's columns, then run_type,
 * skill_name, cached_tokens, reasoning_tokens, cost_usd.  Filters apply
 * (unlike upstream).  The folder of path must exist (UP_ENOTFOUND).
 */
int up_store_csv(const char *path, const up_run_record *runs, size_t n,
                 const char *const *skills, size_t nskills,
                 const char *const *models, size_t nmodels, up_error *err);

#endif
