/*
 * A skill that quotes its tests (docs/eval.md, "A skill that quotes its
 * tests"): a skill holding a test's case-specific text verbatim passes
 * that test by recall, not by skill, and a test whose prompt names the
 * skill can never be passed by the baseline for the right reason.
 */
#ifndef UPSKILL_QUOTE_H
#define UPSKILL_QUOTE_H

#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/skill.h"
#include "upskill/suite.h"

#define UP_QUOTE_MIN_EXPECTED 5  /* an expected string this long at least */
#define UP_QUOTE_MIN_SPAN     60 /* bytes of input quoted at least */

/* What a case gives away. */
enum up_quote_kind {
    UP_QUOTE_EXPECTED = 0, /* one of its own expected strings */
    UP_QUOTE_INPUT,        /* a long span of its input */
    UP_QUOTE_NAMES         /* its prompt names the skill */
};

/* One flagged case. */
typedef struct up_quote {
    size_t kase; /* index into the suite */
    int kind;    /* enum up_quote_kind */
    char *text;  /* the text found (owned; cut to 80 bytes) */
} up_quote;

/*
 * The cases of suite s that skill k quotes, into *out (a heap array of
 * *n, NULL when none; release with up_quote_free), at most one per case
 * and kind, in case order.  A case's expected string counts when it is
 * at least UP_QUOTE_MIN_EXPECTED bytes, holds a digit (an answer: a
 * number, a code, a path; not a term a skill teaches) and no other case
 * expects it or holds it in its input; an input span when some
 * UP_QUOTE_MIN_SPAN bytes of the input (at word starts) occur in no
 * other case's input.  Either counts when it occurs verbatim in the
 * skill's description, body or a text file.  A case whose input holds
 * the skill's name (when at least 4 bytes) is flagged as naming it.
 * Pure; never fails.
 */
void up_quote_find(up_quote **out, size_t *n, const up_skill *k,
                   const up_suite *s);
void up_quote_free(up_quote *q, size_t n);

/* Append "case 3 (its expected string \"CODE-3\"), case 5 (...)". */
void up_quote_text(up_buf *out, const up_quote *q, size_t n);

#endif
