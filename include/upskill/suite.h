/*
 * Test suites in upstream upskill's JSON format: a list of cases or
 * {"cases": [...]}, each with input, context.files, expected.contains (a
 * string or a list), output_file, validator, validator_config.  Our own
 * extension, "assert" (a list of assertion objects, docs/assertions.md),
 * is kept as raw JSON for the assertion module; and "check_files" (files
 * only the case's command checks see, at /tests) and "check_owned" (the
 * context files the checks own, put back before they run), both lists of
 * (relative path, bytes).  Unknown fields are errors, as upstream.
 */
#ifndef UPSKILL_SUITE_H
#define UPSKILL_SUITE_H

#include <stddef.h>

#include "upskill/arena.h"
#include "upskill/buf.h"
#include "upskill/error.h"
#include "upskill/fs.h"
#include "upskill/skill.h"

/* A case's hidden check files ("check_files"): at most this many, */
#define UP_CASE_CHECK_FILES_MAX 256
/* of at most this many bytes in all, */
#define UP_CASE_CHECK_BYTES ((size_t)16 << 20)
/* each path at most this long (bytes). */
#define UP_CASE_CHECK_PATH_MAX 1024

/* A case's strings and arrays live in its suite's arena (up_suite.mem):
 * they are never freed one by one, and a case moved to another suite
 * needs that suite to adopt the arena (up_arena_adopt). */
typedef struct up_ctx_file {
    char *name;
    char *content;
} up_ctx_file;

/* What only Harbor tasks (harbor.h) and rare cases carry, apart from the
 * case so that a plain case stays small (100,000 of them are a suite):
 * allocated in the suite's arena, reached by up_case.task. */
typedef struct up_case_task {
    up_fs_entry *check_files; /* "check_files": seen only by the checks */
    size_t ncheck_files;
    up_fs_entry *check_owned; /* "check_owned": context files put back */
    size_t ncheck_owned;      /* before the checks run (data: the suite's) */
    /* Harbor tasks (harbor.h) only; never in a tests file's JSON: */
    up_fs_entry *seed; /* files the workspace starts with, binary-safe;
                          data NULL: an empty folder */
    size_t nseed;
    char *workdir;          /* the workspace's place in the sandbox, or
                               NULL: /workspace */
    char **places;          /* folders outside it ("/data", NULL-ended;
                               their files seeded under the workspace's
                               UP_SANDBOX_PLACES), or NULL */
    char **env;             /* NAME=value words of the Dockerfile's ENV,
                               NULL-ended, for the run tool, a CLI, the
                               oracle and the verifier; or NULL */
    unsigned run_wall_s;    /* the run tool's wall clock; 0: its default */
    unsigned check_wall_s;  /* each check's wall clock; 0: the default */
    const up_skill *skills; /* the skill arm's skills for this case
                               (borrowed; the first is measured: its
                               reads), or NULL: the eval's one */
    size_t nskills;
    up_fs_entry *solution; /* a Harbor task's solution/ (the oracle's, */
    size_t nsolution;      /* bound read-only at /solution), or NULL */
    size_t nsolution_all;  /* with, after them, its skills folder at
                              .skills/ (the skill arm's: skill_links) */
    char *skill_links;     /* the oracle's shell prefix in the skill arm
                              (up_harbor_skill_links), or NULL */
} up_case_task;

/* The members every case may have stay inline (80 bytes). */
typedef struct up_case {
    char *input;
    up_ctx_file *files; /* context.files in file order */
    size_t nfiles;
    char **contains; /* expected.contains, a string becomes one entry */
    size_t ncontains;
    char *output_file;           /* NULL when absent or null */
    char *validator;             /* NULL when absent or null */
    char *validator_config_json; /* compact JSON object, or NULL */
    char *assert_json;           /* compact JSON array, or NULL */
    up_case_task *task; /* NULL: none (up_case_task_of reads an empty one) */
} up_case;

/* The zero up_case_task, which a case without one reads. */
extern const up_case_task up_case_task_none;

/* c's task members for reading: c->task, or up_case_task_none. */
static inline const up_case_task *up_case_task_of(const up_case *c)
{
    return c->task ? c->task : &up_case_task_none;
}

/* Where a suite's cases came from, as the suite's pickers set it. */
enum up_suite_from {
    UP_SUITE_FROM_OTHER,    /* parsed or built by its caller */
    UP_SUITE_FROM_FILE,     /* a -t tests file */
    UP_SUITE_FROM_META,     /* skill_meta.json's tests */
    UP_SUITE_FROM_EVALS,    /* evals/evals.json (skill-creator) */
    UP_SUITE_FROM_GENERATED /* written by a model */
};

typedef struct up_suite {
    up_case *cases;
    size_t ncases;
    int from;        /* enum up_suite_from */
    size_t nignored; /* fields beside "cases" in a tests file, ignored as
                        upstream ignores them */
    up_arena mem;    /* the cases' strings and arrays */
} up_suite;

/*
 * Parse len bytes of JSON text into s (appending cases).  file names the
 * source in messages; root is the JSON path of text's value inside that
 * file ("" for a tests file, "tests" for skill_meta.json's tests), so an
 * error reads: 'tests.json': cases[3].expected.contains: expected a
 * string or a list of strings.  Errors: UP_EPARSE.
 */
int up_suite_parse(up_suite *s, const char *text, size_t len, const char *file,
                   const char *root, up_error *err);

/* Read and parse the tests file at path (a list or {"cases": [...]}). */
int up_suite_load(up_suite *s, const char *path, up_error *err);

/*
 * Read Anthropic skill-creator's evals.json at path into s (appending):
 * {"skill_name", "evals": [{id, prompt, expected_output, files,
 * expectations}]} or a bare list of evals ("assertions" is read as
 * "expectations").  Each eval is one case: prompt as input, each file
 * (relative to skill_dir) as a context file named by its path, each
 * expectation an llm-rubric assertion; with none, expected_output is the
 * rubric.  Errors (UP_EPARSE, UP_ENOTFOUND, UP_EUNSAFE) name the file and
 * evals[i].key.
 */
int up_suite_load_evals(up_suite *s, const char *path, const char *skill_dir,
                        up_error *err);

#endif
