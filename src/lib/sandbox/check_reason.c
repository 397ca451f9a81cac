/*
 * Why a check failed, from its output (check.h, up_check_reason): the
 * lines pytest writes for a failing test, read as text.  A verifier's
 * last line ("1 failed in 0.3s", or our "[cut at 8192 bytes]" marker)
 * says nothing of which test failed or why; pytest's short summary
 * ("FAILED tests/test_x.py::test_y - AssertionError: ...") and its
 * failure sections ("____ test_y ____" then "E   assert 1 == 2") do,
 * and so do unittest's ("FAIL: test_y (...)" then "AssertionError: ...").
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lib/sandbox/check.h"

/* One line of the output: [p, p + n). */
struct line {
    const char *p;
    size_t n;
};

/* What the scan found. */
struct found {
    struct line summary; /* the first FAILED/ERROR summary line */
    size_t nsummary;     /* how many there were */
    struct line test;    /* the first failure section's test name */
    struct line assert_; /* its first "E   " line */
    struct line last;    /* the last line that is not ours */
    struct line current; /* the section being read */
};

static int starts(const struct line *l, const char *s)
{
    size_t k = strlen(s);

    return l->n >= k && !memcmp(l->p, s, k);
}

/* Our own lines: section headers, the cut marker, blank ones. */
static int ours(const struct line *l)
{
    return !l->n || starts(l, "--- stdout ---") ||
           starts(l, "--- stderr ---") || starts(l, "--- upskill ---") ||
           starts(l, "[cut at ");
}

/* The name of a "____ name ____" header into *name; 1 when l is one. */
static int header(const struct line *l, struct line *name)
{
    size_t a = 0, b = l->n;

    while (a < b && l->p[a] == '_')
        a++;
    while (b > a && l->p[b - 1] == '_')
        b--;
    if (a < 3 || l->n - b < 3 || b - a < 3 || l->p[a] != ' ' ||
        l->p[b - 1] != ' ')
        return 0;
    *name = (struct line){l->p + a + 1, b - a - 2};
    return 1;
}

/* 1 when l reads "NameError: ..." or "SomeException..." (a traceback's
 * last line, as unittest prints it). */
static int exception_line(const struct line *l)
{
    size_t i = 0;

    while (i < l->n && (isalnum((unsigned char)l->p[i]) || l->p[i] == '_' ||
                        l->p[i] == '.'))
        i++;
    return i > 5 && i < l->n && l->p[i] == ':' &&
           (!memcmp(l->p + i - 5, "Error", 5) ||
            (i > 9 && !memcmp(l->p + i - 9, "Exception", 9)));
}

static void scan_line(struct found *f, const struct line *l)
{
    struct line name;

    if ((starts(l, "FAILED ") && !starts(l, "FAILED (")) ||
        starts(l, "ERROR ")) { /* not unittest's "FAILED (failures=1)" */
        if (!f->nsummary++)
            f->summary = *l;
    } else if (header(l, &name)) {
        f->current = name;
    } else if (starts(l, "FAIL: ") || starts(l, "ERROR: ")) {
        /* unittest's section of a failing test */
        f->current = (struct line){l->p, l->n};
    } else if (f->current.p && !f->assert_.p &&
               (starts(l, "E  ") || exception_line(l))) {
        f->test = f->current;
        f->assert_ = *l;
    }
    if (!ours(l))
        f->last = *l;
}

static void add_line(up_buf *why, const struct line *l)
{
    size_t n = l->n < UP_CHECK_REASON_LINE ? l->n : UP_CHECK_REASON_LINE;

    up_buf_add(why, l->p, n);
}

/* "assert x" of an "E   assert x" line (another as it is). */
static struct line e_text(struct line e)
{
    if (e.n < 2 || e.p[0] != 'E' || (e.p[1] != ' ' && e.p[1] != '\t'))
        return e;
    e.p += 1, e.n -= 1;
    while (e.n && (*e.p == ' ' || *e.p == '\t'))
        e.p++, e.n--;
    return e;
}

/* "FAILED tests/x.py::name" of a summary line (cut at " - ", where
 * pytest's own cut of the message to the terminal's width begins). */
static struct line summary_id(struct line l)
{
    for (size_t i = 0; i + 3 <= l.n; i++)
        if (!memcmp(l.p + i, " - ", 3)) {
            l.n = i;
            break;
        }
    return l;
}

void up_check_reason(up_buf *why, const char *out, size_t n)
{
    struct found f;

    memset(&f, 0, sizeof(f));
    for (size_t i = 0; i < n;) {
        size_t len = 0;
        struct line l;

        while (i + len < n && out[i + len] != '\n')
            len++;
        l = (struct line){out + i, len};
        while (l.n && strchr(" \t\r", l.p[l.n - 1]))
            l.n--;
        scan_line(&f, &l);
        i += len + 1;
    }
    if (f.nsummary || f.assert_.p) {
        struct line id = f.nsummary ? summary_id(f.summary) : f.test;
        struct line e = f.assert_.p ? e_text(f.assert_) : f.assert_;

        up_buf_adds(why, ": ");
        add_line(why, f.assert_.p || !f.nsummary ? &id : &f.summary);
        if (f.assert_.p) {
            up_buf_adds(why, ": ");
            add_line(why, &e);
        }
        if (f.nsummary > 1)
            up_buf_addf(why, " (and %zu more)", f.nsummary - 1);
    } else if (f.last.p) {
        up_buf_adds(why, ": ");
        add_line(why, &f.last);
    }
}
