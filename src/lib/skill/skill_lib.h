/*
 * Skills: the calls of upskill/skill.h that the library's other parts and the
 * tests make and src/cli never does (issue 33: include/upskill is what
 * src/cli needs).
 */
#ifndef UPSKILL_LIB_SKILL_SKILL_LIB_H
#define UPSKILL_LIB_SKILL_SKILL_LIB_H

#include "upskill/skill.h"

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

#endif
