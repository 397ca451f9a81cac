/*
 * Suites: the calls of upskill/suite.h that the library's other parts and the
 * tests make and src/cli never does (issue 33: include/upskill is what
 * src/cli needs).
 */
#ifndef UPSKILL_LIB_CASES_SUITE_LIB_H
#define UPSKILL_LIB_CASES_SUITE_LIB_H

#include "upskill/suite.h"

/* c's task members for writing: c->task, made (zero, in mem: the suite's
 * arena) when c has none. */
up_case_task *up_case_task_mut(up_case *c, up_arena *mem);

void up_suite_init(up_suite *s);
void up_suite_release(up_suite *s);

/*
 * The sources of up_suite_pick, in its order, without its "no test cases"
 * error: s may end with no case.  src gets the source with cases, quoted
 * ("'x/skill_meta.json'"), or the -t file.  Errors: those of each reader.
 */
int up_suite_find(up_suite *s, up_buf *src, const char *tests_file,
                  const up_skill *skill, const char *skill_dir, up_error *err);

/*
 * Load the suite for skill (loaded from folder skill_dir) into s, from the
 * first source with cases: tests_file (-t) when not NULL, else
 * skill_meta.json's tests, else skill_dir/evals/evals.json.  note gets
 * what to tell the user: "5 cases from 'x/evals/evals.json' (skill-creator
 * format)".  Errors: those of each reader; UP_EPARSE when no source has
 * a case.
 */
int up_suite_pick(up_suite *s, up_buf *note, const char *tests_file,
                  const up_skill *skill, const char *skill_dir, up_error *err);

/*
 * 1 when case c needs a workspace (agent mode): it has an output_file,
 * or an assertion in its "assert" list of a file-* type
 * ("file-exists", "not-file-contains", "file_regex"...), a command or a
 * verifier, else 0.
 */
int up_case_needs_workspace(const up_case *c);

/* The suite as a compact JSON array of upstream-shaped cases. */
void up_suite_to_json(const up_suite *s, up_buf *out);

/* The SHA-256 of up_suite_to_json's text as 64 hex digits + NUL, hashed
 * a case at a time (the text is never whole in memory), then, for Harbor
 * cases only, the exact bytes of their seed and check files, their
 * workdir, time limits and skills (which the JSON does not hold). */
void up_suite_sha256(const up_suite *s, char out[65]);

#endif
