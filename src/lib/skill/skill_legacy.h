/*
 * Upstream upskill's SKILL.md frontmatter, read the way upstream reads it
 * (line by line, "key: value", the value taken literally) for the files
 * its unquoted writer made that are not valid YAML.  Internal to the
 * library: the loader falls back to it, the validator borrows its hint.
 */
#ifndef UPSKILL_SKILL_LEGACY_H
#define UPSKILL_SKILL_LEGACY_H

#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/error.h"
#include "upskill/skill.h"

/*
 * Called by the loader after up_skill_parse failed with rc on SKILL.md
 * text: when the frontmatter is not valid YAML and every line has the
 * simple "key: value" shape upstream writes, parse it again with each
 * offending value quoted, add one warning per such line to s->warnings
 * ("'file':3: ...; quote the value: key: \"...\"") and return 0.
 * Otherwise return rc and leave err (the YAML error) as it was.
 */
int up_skill_legacy_parse(up_skill *s, const char *text, size_t len,
                          const char *file, int rc, up_error *err);

/*
 * For frontmatter [fm, fm+len) whose first line is file line first_line:
 * when it is upstream's line shape, the 1-based file line of the first
 * value YAML cannot read, with the fix ("quote the value: key: \"...\"")
 * appended to hint; 0 (hint untouched) otherwise.
 */
int up_skill_legacy_hint(up_buf *hint, const char *fm, size_t len,
                         int first_line);

/*
 * After a YAML parse of frontmatter [fm, fm+len) (first line first_line)
 * into root: one warning in s->warnings for each top-level plain value
 * YAML reads differently from upstream's line reader ("#1 tool", "&co",
 * "a # b", a value going on over indented lines), with both readings and
 * the fix.
 */
struct up_ynode;
void up_skill_legacy_check(up_skill *s, const struct up_ynode *root,
                           const char *fm, size_t len, int first_line,
                           const char *file);

/* The same check, each difference to cb with its file line and the
 * message without file and line ("YAML reads description as ..."). */
typedef void (*up_skill_reading_fn)(void *ud, int line, const char *msg);
void up_skill_legacy_readings(const struct up_ynode *root, const char *fm,
                              size_t len, int first_line,
                              up_skill_reading_fn cb, void *ud);

#endif
