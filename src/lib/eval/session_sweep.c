/*
 * A sweep: several skills, each with its own tests, evaluated as one
 * batch (docs/eval.md, "Many skills in one batch").
 *
 * The skills' suites are laid end to end into the session's suite, each
 * case carrying its own skill (up_case.skills), so the one plan, the one
 * scheduler, the journal, the cache and --shard see a single matrix; in
 * chat mode each case's skill arm gets its own skill's system prompt
 * (up_eval_plan_case_prompts), in agent mode the case's skill is
 * installed, as for Harbor tasks.  The baseline of a case is the case's
 * own.  Once graded, the jobs are moved out into one plan per skill, in
 * the order that skill's own plan would hold them, so everything after
 * (summaries, run files, artifacts) is a single-skill eval's, per skill.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/cases/suite_lib.h"
#include "lib/skill/skill_lib.h"
#include "upskill/alloc.h"
#include "upskill/session.h"

#include "lib/eval/session_int.h"
#include "lib/eval/session_sweep.h"
#include "util/json.h"

void session_sweep_release(up_eval_session *e)
{
    for (size_t i = 0; i < e->nsweep; i++) {
        up_sweep_skill *sw = &e->sweep[i];

        if (sw->plan.jobs)
            up_eval_plan_release(&sw->plan);
        up_suite_release(&sw->suite);
        up_skill_release(&sw->skill);
        free(sw->tests_src);
    }
    free(e->sweep);
    e->sweep = NULL;
    e->nsweep = 0;
}

/* Skill sw and its own tests: the skill's, or -t; never generated. */
static int load_one(up_eval_session *e, up_sweep_skill *sw, const char *tests,
                    up_error *err)
{
    up_buf src = UP_BUF_INIT;
    int rc = up_skill_load(&sw->skill, sw->path, err);

    for (size_t w = 0; !rc && w < sw->skill.nwarnings; w++)
        session_note(&e->s, UP_SESSION_WARN, sw->skill.warnings[w]);
    if (!rc)
        rc = up_suite_find(&sw->suite, &src, tests, &sw->skill, sw->path, err);
    if (!rc && !sw->suite.ncases)
        rc = up_error_set(err, UP_EPARSE,
                          "'%s': no test cases (skill_meta.json's tests, "
                          "evals/evals.json): a sweep writes no tests; run "
                          "`upskill eval %s` once to generate them, or "
                          "pass -t FILE",
                          sw->path, sw->path);
    sw->tests_src = up_buf_detach(&src);
    /* only the metadata stays: a job reads the files it installs, so the
     * sweep's memory is bounded by the jobs under way, not the registry */
    if (!rc)
        up_skill_files_drop(&sw->skill, sw->path);
    return rc;
}

/* Two skills of one name would share their run records' skill_name. */
static int unique_names(const up_eval_session *e, up_error *err)
{
    for (size_t i = 0; i < e->nsweep; i++)
        for (size_t k = 0; k < i; k++)
            if (!strcmp(e->sweep[i].skill.name ? e->sweep[i].skill.name : "",
                        e->sweep[k].skill.name ? e->sweep[k].skill.name : ""))
                return up_error_set(err, UP_EPARSE,
                                    "'%s' and '%s' are both named '%s': a "
                                    "sweep tells its skills apart by name",
                                    e->sweep[k].path, e->sweep[i].path,
                                    e->sweep[i].skill.name);
    return 0;
}

/* The sweep's suite: every skill's cases in turn, each with its skill.
 * The cases' strings stay in the skills' own suites (arenas), and so do
 * their tasks (each case needs one: its skill). */
static void lay_out(up_eval_session *e)
{
    size_t n = 0, at = 0;

    for (size_t i = 0; i < e->nsweep; i++)
        n += e->sweep[i].suite.ncases;
    e->suite.cases = up_xcalloc(n ? n : 1, sizeof(*e->suite.cases));
    for (size_t i = 0; i < e->nsweep; i++) {
        up_sweep_skill *sw = &e->sweep[i];

        sw->off = at;
        for (size_t k = 0; k < sw->suite.ncases; k++, at++) {
            up_case *c = &e->suite.cases[at];
            up_case_task *t = up_arena_alloc(&sw->suite.mem, sizeof(*t));

            *c = sw->suite.cases[k];
            *t = *up_case_task_of(c); /* its own: the skill is this arm's */
            t->skills = &sw->skill;
            t->nskills = 1;
            c->task = t;
        }
    }
    e->suite.ncases = n;
}

int session_sweep_load(up_eval_session *e, const up_eval_request *rq,
                       up_buf *note, up_error *err)
{
    int rc = 0;

    if (rq->nsweep > UP_SWEEP_MAX_SKILLS)
        return up_error_set(err, UP_EUSAGE,
                            "a sweep takes at most %d skills (%zu given): "
                            "split them into several sweeps",
                            UP_SWEEP_MAX_SKILLS, rq->nsweep);
    e->sweep = up_xcalloc(rq->nsweep, sizeof(*e->sweep));
    e->nsweep = rq->nsweep;
    for (size_t i = 0; i < e->nsweep; i++) {
        up_skill_init(&e->sweep[i].skill);
        up_suite_init(&e->sweep[i].suite);
        e->sweep[i].path = rq->sweep_paths[i];
    }
    for (size_t i = 0; !rc && i < e->nsweep; i++)
        rc = load_one(e, &e->sweep[i], rq->tests, err);
    if (!rc)
        rc = unique_names(e, err);
    if (rc)
        return rc;
    lay_out(e);
    up_buf_addf(note, "%zu cases from %zu skills:", e->suite.ncases, e->nsweep);
    for (size_t i = 0; i < e->nsweep; i++)
        up_buf_addf(note, "%s %s %zu from %s", i ? "," : "",
                    e->sweep[i].skill.name, e->sweep[i].suite.ncases,
                    e->sweep[i].tests_src);
    return 0;
}

/* Skill i's own plan, its settings the sweep's, with no job yet. */
static void sub_plan(const up_eval_plan *all, up_sweep_skill *sw)
{
    up_eval_plan *p = &sw->plan;

    up_eval_plan_init(p, &sw->skill, &sw->suite,
                      (const char *const *)all->models, all->nmodels, all->runs,
                      all->baseline, all->inject);
    p->njobs = 0;
    p->per_model = all->per_model;
    p->max_answer = all->max_answer;
    p->prepared = all->prepared;
    p->margin = all->margin;
    p->family = all->family;
    p->agent = all->agent;
    p->agent_inject = all->agent_inject;
    p->agent_opts = all->agent_opts;
    p->check_mode = all->check_mode;
    p->shard_index = all->shard_index;
    p->shard_count = all->shard_count;
    p->seed = all->seed;
    for (size_t k = 0; k < sw->suite.ncases; k++)
        p->case_bits[k] = all->case_bits[sw->off + k];
}

void session_sweep_split(up_eval_session *e)
{
    up_eval_plan *all = &e->plan;
    uint32_t *owner =
        up_xcalloc(e->suite.ncases ? e->suite.ncases : 1, sizeof(*owner));

    for (size_t i = 0; i < e->nsweep; i++) {
        sub_plan(all, &e->sweep[i]);
        for (size_t k = 0; k < e->sweep[i].suite.ncases; k++)
            owner[e->sweep[i].off + k] = (uint32_t)i;
    }
    /* the sweep's order (model, repeat, arm, case) restricted to one
     * skill's cases is that skill's own plan's order */
    for (size_t n = 0; n < all->njobs; n++) {
        up_eval_job *j = &all->jobs[n];
        up_sweep_skill *sw = &e->sweep[owner[j->kase]];
        up_eval_job *to = &sw->plan.jobs[sw->plan.njobs++];

        *to = *j;
        to->kase = (uint32_t)(j->kase - sw->off);
        memset(j, 0, sizeof(*j)); /* moved: released by the skill's plan */
    }
    all->njobs = 0;
    if (e->nsweep) { /* the judge's tokens, once */
        e->sweep[0].plan.judge_usage = all->judge_usage;
        e->sweep[0].plan.judge_calls = all->judge_calls;
    }
    free(owner);
}

int session_sweep_log(up_eval_session *e, up_error *err)
{
    up_buf task = UP_BUF_INIT;
    json_t *names = json_array(), *o;
    char *stats;
    int rc = 0;

    for (size_t i = 0; i < e->nsweep && !rc; i++) {
        const up_skill *k = &e->sweep[i].skill;

        rc = up_session_log_runs(&e->s, &e->sweep[i].plan,
                                 k->description ? k->description : "", 0, err);
    }
    up_buf_addf(&task, "sweep of %zu skills", e->nsweep);
    for (size_t i = 0; i < e->nsweep; i++)
        json_array_append_new(names,
                              up_json_str_or_null(e->sweep[i].skill.name));
    o = json_pack("{s:{s:o}}", "sweep", "skills", names);
    stats = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!rc)
        rc = up_session_log_summary(&e->s, task.data, stats, err);
    free(stats);
    up_buf_release(&task);
    return rc;
}
