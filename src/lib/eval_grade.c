/*
 * Grading: upstream's expected.contains (every string must occur,
 * case-insensitively after Unicode case folding).  A job that ended in an
 * error fails all its assertions.
 */
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

#include "upskill/alloc.h"
#include "upskill/eval.h"

/* Case-folded copy of s (NUL-terminated); invalid UTF-8 is kept as is. */
static char *fold(const char *s)
{
    utf8proc_uint8_t *out = NULL;
    utf8proc_ssize_t n =
        utf8proc_map((const utf8proc_uint8_t *)s, 0, &out,
                     UTF8PROC_NULLTERM | UTF8PROC_CASEFOLD | UTF8PROC_STABLE);

    if (n < 0 || !out)
        return up_xstrdup(s);
    return (char *)out;
}

static void grade_job(up_eval_job *j, const up_case *c)
{
    char *answer = fold(j->answer ? j->answer : "");
    up_buf why = UP_BUF_INIT;

    j->asserts_total = (int)c->ncontains;
    j->asserts_passed = 0;
    for (size_t i = 0; i < c->ncontains; i++) {
        char *want = fold(c->contains[i]);

        if (!j->error && strstr(answer, want))
            j->asserts_passed++;
        else
            up_buf_addf(&why, "missing '%s'\n", c->contains[i]);
        free(want);
    }
    if (j->error)
        up_buf_addf(&why, "error: %s\n",
                    j->error_msg ? j->error_msg : "request failed");
    j->passed = !j->error && j->asserts_passed == j->asserts_total;
    free(j->grading);
    j->grading = why.len ? up_buf_detach(&why) : NULL;
    up_buf_release(&why);
    free(answer);
}

int up_eval_grade(up_eval_plan *p, const char *tests_file, up_error *err)
{
    (void)tests_file;
    (void)err;
    for (size_t i = 0; i < p->njobs; i++)
        if (p->jobs[i].done)
            grade_job(&p->jobs[i], &p->suite->cases[p->jobs[i].kase]);
    return 0;
}
