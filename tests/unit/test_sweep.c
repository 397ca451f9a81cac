/*
 * Unit tests for a sweep's plan (docs/eval.md, "Many skills in one
 * batch"): each case that carries its own skill gets that skill's system
 * prompt in the skill arm (up_eval_plan_case_prompts), the baseline
 * stays neutral, and cases of one skill share one string.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "lib/cases/suite_lib.h"
#include "lib/skill/skill_lib.h"
#include "lib/eval/eval_job.h"
#include "upskill/upskill.h"

static void skill(up_skill *s, const char *name, const char *body)
{
    up_skill_init(s);
    s->name = up_xstrdup(name);
    s->description = up_xstrdup("a test skill");
    s->body = up_xstrdup(body);
}

/* The job of model 0, repeat 1, arm, case k (the plan's first jobs). */
static const up_eval_job *job(const up_eval_plan *p, int arm, size_t k)
{
    for (size_t i = 0; i < p->njobs; i++)
        if (p->jobs[i].arm == arm && p->jobs[i].kase == k)
            return &p->jobs[i];
    cr_assert_fail("no job");
    return NULL;
}

Test(sweep, each_case_runs_its_own_skill)
{
    static const char tests[] =
        "[{\"input\": \"a1\", \"expected\": {\"contains\": [\"x\"]}},"
        " {\"input\": \"a2\", \"expected\": {\"contains\": [\"x\"]}},"
        " {\"input\": \"b1\", \"expected\": {\"contains\": [\"x\"]}},"
        " {\"input\": \"plain\", \"expected\": {\"contains\": [\"x\"]}}]";
    const char *models[] = {"m"};
    up_skill a, b;
    up_suite s;
    up_eval_plan p;

    skill(&a, "a", "BODY-A");
    skill(&b, "b", "BODY-B");
    up_suite_init(&s);
    cr_assert_eq(up_suite_parse(&s, tests, strlen(tests), "t", "", NULL), 0);
    for (size_t i = 0; i < 3; i++) {
        up_case_task *t = up_case_task_mut(&s.cases[i], &s.mem);

        t->skills = i < 2 ? &a : &b;
        t->nskills = 1;
    }
    up_eval_plan_init(&p, &a, &s, models, 1, 1, 1, UP_INJECT_UPSKILL);
    up_eval_plan_case_prompts(&p);
    cr_expect(strstr(up_eval_system(&p, job(&p, UP_ARM_SKILL, 0)), "BODY-A"));
    cr_expect(strstr(up_eval_system(&p, job(&p, UP_ARM_SKILL, 1)), "BODY-A"));
    cr_expect(strstr(up_eval_system(&p, job(&p, UP_ARM_SKILL, 2)), "BODY-B"));
    cr_expect(!strstr(up_eval_system(&p, job(&p, UP_ARM_SKILL, 2)), "BODY-A"));
    /* a case without its own skill keeps the plan's */
    cr_expect_eq(up_eval_system(&p, job(&p, UP_ARM_SKILL, 3)), p.system_skill);
    cr_expect_str_eq(up_eval_system(&p, job(&p, UP_ARM_BASELINE, 2)),
                     up_eval_neutral_prompt);
    cr_expect_eq(p.case_system[0], p.case_system[1], "one string per skill");
    cr_expect_neq(p.case_system[1], p.case_system[2]);
    up_eval_plan_release(&p);
    up_suite_release(&s);
    up_skill_release(&a);
    up_skill_release(&b);
}
