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

void up_skill_init(up_skill *s);
void up_skill_release(up_skill *s);

/*
 * Parse SKILL.md text into s's frontmatter and body fields.  file names
 * the source in messages ("'x/SKILL.md':3: ...").  Accepts a BOM-less
 * UTF-8 text with LF or CRLF endings, delimiters "---" as whole lines,
 * upstream's folded "description: >-" form.  Errors: UP_EPARSE.
 */
int up_skill_parse(up_skill *s, const char *text, size_t len, const char *file,
                   up_error *err);

/*
 * Render s's frontmatter and body as SKILL.md text into out: name,
 * description, then license, compatibility, allowed-tools, metadata and
 * extra keys, each value quoted only when YAML needs it so that parsing
 * the output gives back the same values (a name up_skill_name_plain
 * accepts is never quoted, so upstream reads it too); LF endings, final
 * newline.
 */
void up_skill_render(const up_skill *s, up_buf *out);

/*
 * What a YAML reader makes of name written plain when that is not text:
 * "a number" (123, 0x1f, 1e5), "a boolean" (on, yes, true...), "null" or
 * "a date" (2024-01-01); NULL when YAML reads it as the text it is.
 * Such a name has no spelling that both YAML and upstream upskill's line
 * reader (which keeps quotes) read as the name, so validate refuses it.
 */
const char *up_skill_name_yaml_type(const char *name);

/*
 * 1 when name (lowercase letters, digits, hyphens, not starting with a
 * hyphen, not typed by YAML) is written plain, which YAML and upstream
 * read alike; 0 when it must be quoted.
 */
int up_skill_name_plain(const char *name);

/*
 * Check the name rel of a file in a skill folder (relative to it, e.g.
 * "references/notes.md"): every part must be UTF-8 text without a
 * control character (< 0x20, 0x7f, U+0080-U+009F) or a backslash, so
 * that the file can be installed in a workspace, named to a model and
 * shown on a terminal the same on every system.  0, or UP_EUNSAFE with
 * "skill file '<rel, escaped>': the name holds <what>; rename it".  The
 * loader, the saver and the workspace installer all use it.
 */
int up_skill_check_file_name(const char *rel, up_error *err);

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

/*
 * Apply every rule of up_skill_load to the folder dir except reading and
 * parsing SKILL.md (the validator checks that itself): no symlink leading
 * outside, a valid skill_meta.json, resource folders at most
 * UP_SKILL_MAX_DEPTH deep, the size caps.  0 when the loader would accept
 * the rest of the folder; else the loader's error and message.
 */
int up_skill_check_folder(const char *dir, up_error *err);

/*
 * Free the contents of s's resource files (s loaded from dir), keeping
 * each one's path, size, run bit and SHA-256, so a sweep of many skills
 * holds their metadata, not their references (issue 36: 40 skills of
 * 48 MiB took 1.98 GB); up_skill_file_read brings one back for the job
 * that installs it.  A file already dropped is left as it is.
 */
void up_skill_files_drop(up_skill *s, const char *dir);

/*
 * The contents of s's file i into out (reset first): its data when held,
 * else read again from the folder it was loaded from; UP_EIO (naming the
 * skill and the file) when it changed since (size or SHA-256), else
 * up_fs_read's errors.
 */
int up_skill_file_read(const up_skill *s, size_t i, up_buf *out, up_error *err);

/*
 * Save s as the folder dir, as a whole: SKILL.md, skill_meta.json and
 * each resource file are written into a new hidden folder beside dir
 * (".<name>.upskill-new-<pid>-XXXXXX"), which then replaces dir by
 * renames (an exchange where the system has one), so a reader sees the
 * old version or the new one, never a mix.  Entries of an old dir that
 * are no part of a skill (other than SKILL.md, skill.md,
 * skill_meta.json, references/, scripts/, assets/) are kept; old
 * resource files the new version lacks are gone.  On any failure dir is
 * untouched and the hidden folder removed; hidden folders left by a
 * process that died mid-save are removed by the next save beside them.
 * Refuses before writing anything (UP_EUNSAFE) a file path that would
 * escape dir ("..", absolute paths, control characters) and what
 * up_skill_load would refuse (UP_EPARSE, UP_ETOOBIG: folders nested too
 * deep, files over the caps, a SKILL.md that does not parse back).
 * Errors of the write: UP_EIO and the codes of up_fs_write_atomic.
 */
int up_skill_save(const up_skill *s, const char *dir, up_error *err);

/*
 * Set the "tests" of dir/skill_meta.json to tests_json (a JSON value),
 * keeping every other key as it was, unknown ones included, and the
 * file's mode; a missing file is created with upstream's default
 * metadata.  The file is replaced atomically.  Errors: UP_EPARSE (tests
 * not JSON, the file not a JSON object), read errors, the codes of
 * up_fs_write_atomic.
 */
int up_skill_save_tests(const char *dir, const char *tests_json, up_error *err);

/* Rough token estimate of text (upstream: words x 1.3). */
size_t up_tokens_estimate(const char *text, size_t len);

#endif
