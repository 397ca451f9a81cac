/*
 * `upskill eval --trigger`: a description-only check.  The suite's
 * inputs are prompts that should make a model load the skill; a fixed
 * set of unrelated tasks should not.  Only the skill arm runs; what is
 * measured is activation, not answers (docs/agent-clis.md).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cases/suite_lib.h"
#include "lib/eval/eval_job.h"
#include "upskill/harness.h"
#include "upskill/alloc.h"
#include "upskill/eval.h"

/* Prompts no skill under test should be loaded for. */
static const char *const unrelated[] = {
    "What is 17 multiplied by 23? Answer with the number.",
    "Write a haiku about autumn leaves.",
    "Translate 'good morning, see you tomorrow' into French.",
    "Name three prime numbers between 40 and 60.",
};

#define NUNRELATED (sizeof(unrelated) / sizeof(unrelated[0]))

/* A case of input alone: its one check, "", always holds (what is
 * measured is activation). */
static json_t *trigger_case(const char *input)
{
    return json_pack("{s:s,s:{s:[s]}}", "input", input, "expected", "contains",
                     "");
}

int up_harness_trigger_suite(up_suite *s, size_t *npos, up_error *err)
{
    json_t *cases = json_array(), *root;
    up_suite t;
    char *text;
    int rc;

    for (size_t i = 0; i < s->ncases; i++)
        json_array_append_new(
            cases, trigger_case(s->cases[i].input ? s->cases[i].input : ""));
    for (size_t i = 0; i < NUNRELATED; i++)
        json_array_append_new(cases, trigger_case(unrelated[i]));
    root = json_pack("{s:o}", "cases", cases);
    text = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    up_suite_init(&t);
    rc = up_suite_parse(&t, text, strlen(text), "--trigger", "", err);
    free(text);
    if (rc) {
        up_suite_release(&t);
        return rc;
    }
    *npos = s->ncases;
    up_suite_release(s);
    *s = t;
    return 0;
}

/* Skill-arm conversations of model m in cases [from, to): answered, and
 * of those the ones that loaded the skill. */
static void count(const up_eval_plan *p, size_t m, size_t from, size_t to,
                  size_t *answered, size_t *loaded)
{
    *answered = *loaded = 0;
    for (size_t i = 0; i < p->njobs; i++) {
        const up_eval_job *j = &p->jobs[i];

        if (j->model != m || j->arm != UP_ARM_SKILL || !j->done || j->error ||
            j->kase < from || j->kase >= to)
            continue;
        (*answered)++;
        *loaded += up_eval_job_skill_loaded(j) != 0;
    }
}

static double pct(size_t k, size_t n)
{
    return n ? 100.0 * (double)k / (double)n : 0.0;
}

void up_harness_trigger_text(up_buf *out, const up_eval_plan *p, size_t m,
                             size_t npos)
{
    size_t pa, pl, na, nl;

    count(p, m, 0, npos, &pa, &pl);
    count(p, m, npos, p->suite->ncases, &na, &nl);
    up_buf_addf(out,
                "%s: loaded the skill for %zu of %zu prompts that should "
                "trigger it (%.0f%%) and for %zu of %zu that should not "
                "(%.0f%%)",
                p->models[m], pl, pa, pct(pl, pa), nl, na, pct(nl, na));
    if (pa && 2 * pl < pa)
        up_buf_adds(out, "; its description does not say plainly enough "
                         "when to use it");
    if (nl)
        up_buf_adds(out, "; it is also loaded for unrelated tasks: make the "
                         "description narrower");
}
