/*
 * The skill model: a folder with SKILL.md (YAML frontmatter + Markdown),
 * skill_meta.json (upstream upskill's metadata and tests), and resource
 * files under references/, scripts/ and assets/.
 *
 * Ownership: an up_skill owns every string and array it points to;
 * up_skill_release frees them all.  NULL string fields mean "absent".
 */
#ifndef UPSKILL_SKILL_H
#define UPSKILL_SKILL_H

#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/error.h"
#include "upskill/fs.h"

/* The loader's limits, which saving and the validator apply too. */
#define UP_SKILL_MAX_TOTAL (4u * UP_FS_MAX_READ) /* resources together */
#define UP_SKILL_MAX_DEPTH 16 /* folders below the skill folder */

/*
 * How a skill reaches the student (--inject, docs/agent-mode.md): the
 * catalogue (agent mode only: name, description and where SKILL.md is;
 * the model reads it itself), or the body in the system prompt, in
 * upskill's form (## Skill:) or the Agent Skills form
 * (<skill_content>).  Chat mode has no catalogue and takes CATALOG as
 * UPSKILL.  batch_plan.json records the value ("agent_inject"), so the
 * numbers never change.
 */
enum up_inject {
    UP_INJECT_CATALOG = 0,
    UP_INJECT_UPSKILL = 1,
    UP_INJECT_AGENTSKILLS = 2
};

typedef struct up_kv {
    char *key;
    char *value;
} up_kv;

typedef struct up_skill_file {
    char *path;     /* relative to the skill folder: "references/api.md" */
    char *data;     /* contents, NUL-terminated, may hold other NULs; NULL
                       once dropped (up_skill_files_drop) */
    size_t len;     /* bytes in data */
    int executable; /* the owner's run bit; kept on save */
    unsigned char sha256[32]; /* of data, set when it is dropped */
} up_skill_file;

/* skill_meta.json "metadata" (upstream's SkillMetadata). */
typedef struct up_skill_meta {
    char *version;      /* "1.0" by default */
    char *generated_by; /* model string */
    char *generated_at; /* ISO 8601 UTC, "...Z" */
    char *source_task;
    char *license;
    char *compatibility;
    double test_pass_rate;
    int has_test_pass_rate; /* 0: null in JSON */
} up_skill_meta;

typedef struct up_skill {
    /* frontmatter */
    char *name;
    char *description;
    char *license;
    char *compatibility;
    char *allowed_tools; /* space-separated, as the spec says */
    up_kv *metadata;     /* the metadata mapping, in file order */
    size_t nmetadata;
    up_kv *extra; /* other scalar keys (e.g. Claude Code's), in order */
    size_t nextra;
    /* body */
    char *body;    /* Markdown after the frontmatter, trimmed */
    int body_line; /* line of SKILL.md where the body text starts */
    /* resources */
    up_skill_file *files; /* sorted by path */
    size_t nfiles;
    /* skill_meta.json */
    up_skill_meta meta;
    int has_meta;     /* skill_meta.json existed */
    char *tests_json; /* its "tests" value as compact JSON, or NULL */
    /* load warnings for the CLI to print, e.g. "'x/SKILL.md':3: invalid
     * YAML (...), read line by line as upstream upskill does; quote ..." */
    char **warnings;
    size_t nwarnings, warnings_cap;
    char *files_dir; /* where dropped files are read back from, or NULL */
} up_skill;

/*
 * Load the skill folder dir: SKILL.md (required), skill_meta.json (if
 * present) and every regular file under references/, scripts/, assets/.
 * Errors name the file: UP_ENOTFOUND, UP_EPARSE, UP_ETOOBIG, UP_EUNSAFE
 * (a symlink leading outside the folder, a file name that
 * up_skill_check_file_name refuses).  Frontmatter that is not valid
 * YAML but has upstream upskill's unquoted "key: value" line shape is
 * read as upstream reads it, with one entry in s->warnings per line.
 */
int up_skill_load(up_skill *s, const char *dir, up_error *err);

/* Rough token estimate of text (upstream: words x 1.3). */
size_t up_tokens_estimate(const char *text, size_t len);

#endif
