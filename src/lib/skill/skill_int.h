/*
 * Internal interface between the skill loader and saver (skill_io.c) and
 * the folder swap (skill_swap.c).  Not installed, not public.
 */
#ifndef UPSKILL_SKILL_INT_H
#define UPSKILL_SKILL_INT_H

#include <jansson.h>

#include "upskill/buf.h"
#include "upskill/error.h"
#include "upskill/skill.h"

/* Tests set this to take the rename-aside path instead of the exchange. */
extern int skill_swap_no_exchange;

/*
 * Create an empty folder "<prefix><pid>-XXXXXX" in parent (mode 0700),
 * named after this process, and put its path in out.  Errors: UP_EIO.
 */
int skill_tmp_dir(up_buf *out, const char *parent, const char *prefix,
                  up_error *err);

/*
 * Remove the "<prefix><pid>-..." entries of parent made by processes that
 * no longer run, except that one is renamed to restore instead when
 * restore is not NULL and missing.  Never fails.
 */
void skill_clean_dead(const char *parent, const char *prefix,
                      const char *restore);

/* skill_tmp_dir for a save of parent/base: ".<base>.upskill-<kind>-". */
int skill_save_dir(up_buf *out, const char *parent, const char *base,
                   const char *kind, up_error *err);

/*
 * Remove what dead processes left of their saves of dir (parent/base):
 * their new versions, and their old versions set aside, except that an
 * old version is put back when dir is missing.  Never fails.
 */
void skill_clean_saves(const char *parent, const char *base, const char *dir);

/*
 * Put the complete folder tmp (made by skill_save_dir in parent) in the
 * place of dir (parent/base), which may be missing, keeping the old
 * folder's entries that are no part of a skill, and remove the old
 * version.  On failure dir is as it was and tmp still exists.  Errors:
 * UP_EIO naming dir.
 */
int skill_swap_in(const char *tmp, const char *dir, const char *parent,
                  const char *base, up_error *err);

/* Append msg's text (detached: msg is left empty) to s->warnings, kept
 * NULL-terminated for up_strv_free. */
void skill_warn(up_skill *s, up_buf *msg);

/*
 * Set root's "tests" to tests with upstream's TestCase keys only, and
 * root's "upskill_c".tests to the other keys of each test (the key is
 * removed when no test has any).  tests is borrowed.
 */
void skill_meta_put_tests(json_t *root, json_t *tests);

/*
 * The tests of a skill_meta.json root with their extensions put back (a
 * new reference), or NULL when it has no "tests".  Extensions that do not
 * pair with the tests are left out with a warning in s->warnings naming
 * path.
 */
json_t *skill_meta_get_tests(json_t *root, up_skill *s, const char *path);

#endif
