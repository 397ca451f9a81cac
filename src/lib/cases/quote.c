/*
 * Finding a skill's quotes of its tests (include/upskill/quote.h).  The
 * skill's text is searched for each case's case-specific strings: its
 * own expected strings (none that another case shares, so a suite-wide
 * marker such as "GOOD" is never one) and spans of its input no other
 * case holds.  Plain substring search: suites are at most a few hundred
 * cases, skills a few hundred KB.
 */
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"
#include "upskill/quote.h"

/* 1 when needle (len bytes) occurs in hay. */
static int holds(const char *hay, const char *needle, size_t len)
{
    size_t hl = hay ? strlen(hay) : 0;

    if (!len || len > hl)
        return 0;
    for (const char *p = hay; (p = strchr(p, needle[0])) != NULL; p++) {
        if ((size_t)(hay + hl - p) < len)
            return 0;
        if (!memcmp(p, needle, len))
            return 1;
    }
    return 0;
}

/* 1 when needle occurs in any text of the skill. */
static int in_skill(const up_skill *k, const char *needle, size_t len)
{
    if (holds(k->description, needle, len) || holds(k->body, needle, len))
        return 1;
    for (size_t i = 0; i < k->nfiles; i++)
        if (k->files[i].data && holds(k->files[i].data, needle, len))
            return 1;
    return 0;
}

/* 1 when another case than i expects str or holds it in its input. */
static int shared(const up_suite *s, size_t i, const char *str, size_t len)
{
    for (size_t j = 0; j < s->ncases; j++) {
        if (j == i)
            continue;
        if (holds(s->cases[j].input, str, len))
            return 1;
        for (size_t e = 0; e < s->cases[j].ncontains; e++)
            if (holds(s->cases[j].contains[e], str, len))
                return 1;
    }
    return 0;
}

static void add(up_quote **out, size_t *n, size_t kase, int kind,
                const char *text, size_t len)
{
    *out = up_xrealloc(*out, (*n + 1) * sizeof(**out));
    (*out)[*n].kase = kase;
    (*out)[*n].kind = kind;
    (*out)[*n].text = up_xstrndup(text, len > 80 ? 80 : len);
    (*n)++;
}

/* 1 when str holds a digit: an answer-like token (a number, a code). */
static int has_digit(const char *str)
{
    return strpbrk(str, "0123456789") != NULL;
}

/*
 * Case i gives its answer away when the skill holds one of its
 * case-specific expected strings that holds a digit: a number, a code, a
 * path, an id -- an answer, not a term a skill teaches.  A word the skill
 * teaches ("jitter", "LEFT JOIN") is knowledge, not a quote: on the
 * skills of examples/ a rule without the digit flagged 6 such words.
 */
static int expected_quote(const up_skill *k, const up_suite *s, size_t i,
                          up_quote **out, size_t *n)
{
    const up_case *c = &s->cases[i];

    for (size_t e = 0; e < c->ncontains; e++) {
        const char *str = c->contains[e];
        size_t len = str ? strlen(str) : 0;

        if (len >= UP_QUOTE_MIN_EXPECTED && has_digit(str) &&
            !shared(s, i, str, len) && in_skill(k, str, len)) {
            add(out, n, i, UP_QUOTE_EXPECTED, str, len);
            return 1;
        }
    }
    return 0;
}

static void input_quote(const up_skill *k, const up_suite *s, size_t i,
                        up_quote **out, size_t *n)
{
    const char *in = s->cases[i].input;
    size_t len = in ? strlen(in) : 0;

    for (size_t at = 0; at + UP_QUOTE_MIN_SPAN <= len; at++) {
        if (at && in[at - 1] != ' ' && in[at - 1] != '\n')
            continue; /* spans start at words */
        if (!shared(s, i, in + at, UP_QUOTE_MIN_SPAN) &&
            in_skill(k, in + at, UP_QUOTE_MIN_SPAN)) {
            add(out, n, i, UP_QUOTE_INPUT, in + at, UP_QUOTE_MIN_SPAN);
            return;
        }
    }
}

void up_quote_find(up_quote **out, size_t *n, const up_skill *k,
                   const up_suite *s)
{
    size_t nl = k->name ? strlen(k->name) : 0;

    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < s->ncases; i++) {
        if (!expected_quote(k, s, i, out, n))
            input_quote(k, s, i, out, n);
        if (nl >= 4 && holds(s->cases[i].input, k->name, nl))
            add(out, n, i, UP_QUOTE_NAMES, k->name, nl);
    }
}

void up_quote_free(up_quote *q, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(q[i].text);
    free(q);
}

void up_quote_text(up_buf *out, const up_quote *q, size_t n)
{
    static const char *const what[] = {
        [UP_QUOTE_EXPECTED] = "the skill holds its expected string",
        [UP_QUOTE_INPUT] = "the skill holds its input",
        [UP_QUOTE_NAMES] = "its prompt names the skill",
    };

    for (size_t i = 0; i < n; i++) {
        up_buf_addf(out, "%scase %zu (%s \"", i ? "; " : "", q[i].kase + 1,
                    what[q[i].kind]);
        for (const char *p = q[i].text; *p; p++)
            up_buf_addf(out, "%c", *p == '\n' || *p == '"' ? ' ' : *p);
        up_buf_adds(out, "\")");
    }
}
