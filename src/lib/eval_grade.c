/*
 * Grading: every case's assertions are upstream's expected.contains (each
 * string must occur, case-insensitively) plus our "assert" list (see
 * docs/assertions.md).  llm-rubric verdicts come from a judge model,
 * whose tokens are counted apart from the model under test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"
#include "upskill/eval.h"

int up_eval_prepare(up_eval_plan *p, const char *tests_file, up_error *err)
{
    const char *file = tests_file ? tests_file : "skill_meta.json";
    const char *root = tests_file ? "cases" : "tests";

    p->asserts = up_xcalloc(p->suite->ncases, sizeof(*p->asserts));
    for (size_t k = 0; k < p->suite->ncases; k++) {
        const up_case *c = &p->suite->cases[k];
        char prefix[64];

        up_assert_list_init(&p->asserts[k]);
        up_assert_list_add_contains(&p->asserts[k], c->contains, c->ncontains);
        snprintf(prefix, sizeof(prefix), "%s[%zu].assert", root, k);
        if (c->assert_json &&
            up_assert_list_parse(&p->asserts[k], c->assert_json, file, prefix,
                                 err))
            return UP_EPARSE;
    }
    return 0;
}

/* Counts and the failure lines from a job's results. */
static void settle(up_eval_job *j, const up_assert_list *l)
{
    up_assert_summary s;
    up_buf why = UP_BUF_INIT;

    up_assert_summarize(&s, j->results, l->n);
    for (size_t i = 0; i < l->n; i++)
        if (j->error || j->results[i].status != UP_ASSERT_PASS)
            up_buf_addf(&why, "%s: %s\n", up_assert_label(&l->items[i]),
                        j->results[i].message.len ? j->results[i].message.data
                                                  : "not judged");
    if (j->error)
        up_buf_addf(&why, "error: %s\n",
                    j->error_msg ? j->error_msg : "request failed");
    if (j->limit) /* an answered conversation that failed its limit */
        up_buf_addf(&why, "limit: %s\n", j->limit);
    j->asserts_total = (int)s.total;
    j->asserts_passed = j->error ? 0 : (int)s.passed;
    j->passed = !j->error && !j->limit && up_assert_summary_ok(&s);
    free(j->grading);
    j->grading = why.len ? up_buf_detach(&why) : NULL;
    up_buf_release(&why);
}

void up_eval_grade_job(up_eval_plan *p, up_eval_job *j)
{
    const up_assert_list *l = &p->asserts[j->kase];
    up_assert_usage u = {j->usage.estimated ? -1 : j->usage.output,
                         j->workspace, p->suite->cases[j->kase].output_file};

    if (!j->done)
        return;
    if (!j->results) {
        j->results = up_assert_results_new(l->n);
        up_assert_check(l, j->error ? "" : j->answer, &u, j->results);
    }
    settle(j, l);
}

void up_eval_grade(up_eval_plan *p)
{
    for (size_t i = 0; i < p->njobs; i++)
        up_eval_grade_job(p, &p->jobs[i]);
}

size_t up_eval_pending_judgements(const up_eval_plan *p)
{
    size_t n = 0;

    for (size_t i = 0; i < p->njobs; i++) {
        const up_eval_job *j = &p->jobs[i];

        for (size_t a = 0; j->results && !j->error && a < p->asserts[j->kase].n;
             a++)
            n += j->results[a].status == UP_ASSERT_PENDING;
    }
    return n;
}
