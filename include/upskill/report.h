/*
 * upskill report: one self-contained HTML page (inline CSS and SVG, no
 * network) over eval batches, recomputed from each batch's run files and
 * case artifacts (run_N/run_result.json, run_N/cases/transcripts.jsonl)
 * with the statistics of stats.h.  See docs/report.md.
 */
#ifndef UPSKILL_REPORT_H
#define UPSKILL_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "upskill/buf.h"
#include "upskill/config.h"
#include "upskill/error.h"
#include "upskill/provider.h"
#include "upskill/stats.h"

/* One case of one model: both arms, its runs pooled. */
typedef struct up_report_cell {
    up_stats_case c;    /* counts and tokens for up_stats_compare */
    int first_run[2];   /* run_N of its first artifact per arm (0 base,
                           1 skill); 0: none */
    int fail_run[2];    /* run_N of its first answered repeat that failed,
                           per arm; 0: none (the matrix links it) */
    unsigned errors[2]; /* conversations that errored, per arm */
} up_report_cell;

/* One model of a batch. */
typedef struct up_report_model {
    char *model;           /* resolved id */
    up_report_cell *cells; /* ncases */
    up_comparison cmp;     /* up_stats_compare over cells */
    double cost[2];        /* USD per arm, < 0 unknown */
    size_t errors[2];      /* conversations that errored, per arm: an arm
                              with no answered one was not measured */
    double tokens[2];      /* total tokens per arm */
    up_usage usage[2];     /* per arm, summed over the artifacts' usage
                              (input, output, cached) */
    long tool_calls[2];    /* agent mode */
    long skill_reads[2];   /* conversations that read SKILL.md */
    long agent_convs[2];   /* conversations run as a tool loop */
} up_report_model;

/* One batch folder. */
typedef struct up_report_batch {
    char *dir;       /* the batch folder */
    char *id;        /* its name */
    char *skill;     /* skill_name of its runs */
    char *version;   /* upskill_version of its runs */
    char *suite_sha; /* batch_plan.json suite_sha256, or NULL */
    char *skill_sha; /* batch_plan.json skill_sha256, or NULL */
    size_t ncases;
    up_report_model *models;
    size_t nmodels;
    int kept_attempt; /* a generate batch: the refinement attempt
                         batch_summary.json names as kept
                         (stats.generate.kept_attempt), whose runs
                         alone are read; 0: every run counts */
    /* a batch without case artifacts (upstream's): its run records and
     * upstream's figures over them (up_store_compare, best = 1, as
     * upstream's `runs` shows them), the only things the page shows of it;
     * ncases is 0 */
    struct up_run_record *runs;
    size_t nruns;
    struct up_compare *upstream;
    size_t nupstream;
    /* a sweep (eval SKILL...: several skills in one batch folder): the
     * skill this view of the batch holds (its runs only), or NULL: every
     * run of the folder */
    char *only_skill;
    unsigned char *run_in; /* with only_skill: per run number up to
                              nrun_in, 1 when run_N is this skill's */
    size_t nrun_in;
    uint64_t seed;     /* statistics seed used */
    int seed_given;    /* 1: the caller's --seed; 0: batch_plan.json's
                          (else 1, eval's default) */
    double margin;     /* "no meaningful effect" margin used (a share) */
    int margin_given;  /* 1: the caller's; 0: batch_plan.json's, else
                          UP_STATS_MARGIN */
    int family;        /* batch_plan.json's "family_control" (enum
                          up_family_control; fdr when not there) */
    long shard_index;  /* batch_plan.json's shard (--shard I/N); */
    long shard_count;  /* 0: the whole batch */
    char *arm_name[2]; /* a compare batch: "A: NAME VERSION" and "B: ...",
                          from run_result.json's "compare"; NULL: an
                          eval (baseline, with skill) */
    char **case_text;  /* ntext (<= ncases): each case's input, or
                          NULL */
    size_t ntext;
    const up_config *cfg; /* the prices shown (the caller's; may be NULL) */
} up_report_batch;

/*
 * Load the batch folder dir: every run_N's run_result.json and
 * cases/transcripts.jsonl, pooled per model and case, and the comparison
 * per model (seed for the statistics, at eval's default margin).  In a
 * generate batch only the kept attempt's runs count (kept_attempt).  A
 * batch without case artifacts holds its run records instead (runs,
 * upstream).  Errors: UP_ENOTFOUND when dir has neither, UP_EPARSE naming
 * the file and line, UP_EIO.  Release with up_report_batch_release.
 */
int up_report_batch_load(up_report_batch *b, const char *dir, uint64_t seed,
                         up_error *err);

/* The caller's statistics settings for up_report_batch_load_skill: a
 * value not given (has_* 0) is the batch's own (batch_plan.json's "seed"
 * and "margin"), else eval's default. */
typedef struct up_report_opts {
    uint64_t seed;
    int has_seed;
    double margin; /* a share: 0.05 for 5 points */
    int has_margin;
    /* a sweep's folder: each run number's skill (up_report_run_skills,
     * read once for all its views), borrowed; NULL: a view of one skill
     * reads them itself */
    char *const *run_skill;
    size_t nrun_skill;
} up_report_opts;

void up_report_batch_release(up_report_batch *b);

/*
 * Control the claims of the loaded views b[0..n) as eval did: the models
 * of one batch, or every skill x model of one sweep's consecutive views,
 * form one family (up_stats_family at the batch's family control); a
 * generate batch's models are judged each alone, as generate does.
 * Call once, after loading and before rendering.
 */
void up_report_family(up_report_batch *b, size_t n);

/*
 * A sweep batch's view of one skill: as up_report_batch_load, reading
 * only the runs whose run_result.json names skill (b->only_skill), so
 * that the page shows each skill of the batch as its own batch.  skill
 * NULL: the whole folder, at o's seed and margin.
 */
int up_report_batch_load_skill(up_report_batch *b, const char *dir,
                               const char *skill, const up_report_opts *o,
                               up_error *err);

/*
 * The skills of a sweep batch in dir, in their order (batch_summary.json's
 * stats.sweep.skills), each name once and at most UP_REPORT_SWEEP_MAX of
 * them (eval's cap, UP_SWEEP_MAX_SKILLS: a longer list was not written
 * by eval), appended to *names (a NULL-terminated heap vector of *n heap
 * strings); nothing for any other batch.
 */
#define UP_REPORT_SWEEP_MAX 500
void up_report_sweep_skills(char ***names, size_t *n, const char *dir);

/* Each run_N's skill (run_result.json's skill_name) in folder dir, into
 * a heap vector indexed by N (NULL where none; up_strv-style, freed by
 * the caller entry by entry); returns its length. */
size_t up_report_run_skills(char ***names, const char *dir);

/* 1 when run_N of the folder belongs to b (every run, unless b views
 * one skill of a sweep). */
int up_report_run_in(const up_report_batch *b, int run);

/*
 * The leaderboard of the sweeps among b (report_board.c): for each run
 * of consecutive views of one sweep folder, a skill x model table of
 * lifts with their 95% intervals and verdicts, sorted by a click on a
 * column header (a small inline script).  Nothing when b holds no sweep.
 */
void up_report_board(up_buf *out, const up_report_batch *b, size_t n);

/*
 * The batch folders named by path: path itself when it holds a
 * batch_plan.json, batch_summary.json or run_1, else its sub-folders
 * that do and have case artifacts (run_1/cases/transcripts.jsonl: a
 * runs folder; upstream's batches, which have none, are left out),
 * sorted.  Appended to *dirs (a heap vector of *n heap
 * strings).  UP_ENOTFOUND when none.
 */
int up_report_find_batches(char ***dirs, size_t *n, const char *path,
                           up_error *err);

/*
 * Append to out the whole HTML page over the n batches, the case
 * artifacts embedded (read again from each batch's run folders).  Every
 * text from outside (model names, answers, ids) is HTML-escaped.
 * Errors: those of reading the artifacts.
 */
int up_report_html(up_buf *out, const up_report_batch *b, size_t n,
                   up_error *err);

/* Append s HTML-escaped (& < > " ') to out; s may be NULL. */
void up_report_esc(up_buf *out, const char *s);

#endif
