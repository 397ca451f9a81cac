/*
 * `eval` and `benchmark` on the evaluation session: load, resolve, plan,
 * run, grade, judge, log.  The caller parses, renders and gates; every
 * step between lives here, so a new eval feature lands once.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/cases/suite_lib.h"
#include "lib/skill/skill_lib.h"
#include "lib/gen/gen_lib.h"
#include "upskill/alloc.h"
#include "upskill/gen.h"
#include "upskill/session.h"

#include "lib/eval/session_int.h"
#include "lib/eval/session_sweep.h"

void up_eval_session_init(up_eval_session *e, const up_session_opts *o)
{
    memset(e, 0, sizeof(*e));
    up_config_init(&e->cfg);
    up_skill_init(&e->skill);
    up_skill_init(&e->base_skill);
    up_suite_init(&e->suite);
    up_session_init(&e->s, o, &e->cfg);
}

void up_eval_session_release(up_eval_session *e)
{
    if (e->plan.jobs)
        up_eval_plan_release(&e->plan);
    up_session_release(&e->s);
    up_suite_release(&e->suite);
    up_harbor_release(&e->harbor);
    session_sweep_release(e); /* after e->suite, whose cases point here */
    up_skill_release(&e->skill);
    up_skill_release(&e->base_skill);
    up_config_release(&e->cfg);
}

static void notes(const up_eval_session *e, char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        session_note(&e->s, UP_SESSION_WARN, v[i]);
}

/* compare: skill A, then the tests from -t, else B's own, else A's own;
 * a comparison measures and writes nothing, so none are generated. */
static int compare_load(up_eval_session *e, const up_eval_request *rq,
                        up_buf *note, up_error *err)
{
    up_buf src = UP_BUF_INIT;
    int rc = up_skill_load(&e->base_skill, rq->base_skill_path, err);

    if (!rc)
        notes(e, e->base_skill.warnings, e->base_skill.nwarnings);
    if (!rc)
        rc = up_suite_find(&e->suite, &src, rq->tests, &e->skill,
                           rq->skill_path, err);
    if (!rc && !e->suite.ncases && !rq->tests)
        rc = up_suite_find(&e->suite, &src, NULL, &e->base_skill,
                           rq->base_skill_path, err);
    if (!rc && !e->suite.ncases && rq->tests)
        rc = up_error_set(err, UP_EPARSE, "'%s': no test cases", rq->tests);
    else if (!rc && !e->suite.ncases)
        rc = up_error_set(err, UP_EPARSE,
                          "no test cases in '%s' nor in '%s' "
                          "(skill_meta.json, evals/evals.json): pass -t FILE",
                          rq->skill_path, rq->base_skill_path);
    if (!rc)
        up_buf_addf(note, "%zu case%s from %s", e->suite.ncases,
                    e->suite.ncases == 1 ? "" : "s", src.data);
    up_buf_release(&src);
    return rc;
}

/* --sound FILE: append to note how many tasks were left out as not
 * sound by FILE, and each with its verdict there. */
static void left_out_note(const up_eval_session *e, up_buf *note, size_t n,
                          const char *file)
{
    size_t shown = 0;

    up_buf_addf(note, "; %zu left out as not sound by '%s'", n, file);
    for (size_t i = 0; i < e->harbor.n; i++) {
        const up_harbor_task *k = &e->harbor.v[i];

        if (k->left_out)
            up_buf_addf(note, "%s %s (%s)", shown++ ? "," : ":", k->name,
                        k->left_out);
    }
}

/* --tasks: the runnable tasks with skills as the suite; the first
 * one's skill is the eval's (its name and description in the logs),
 * each case installing its own. */
static int tasks_load(up_eval_session *e, const up_eval_request *rq,
                      up_buf *note, up_error *err)
{
    const up_harbor_task *first = NULL;
    size_t off = 0, unsound = 0;
    int rc;

    e->harbor.sound = rq->sound;
    e->harbor.online_ok = rq->online_instructions;
    rc = up_harbor_load(&e->harbor, &e->suite, rq->tasks, err);
    for (size_t i = 0; !rc && i < e->harbor.n; i++) {
        const up_harbor_task *k = &e->harbor.v[i];

        if (k->runnable && k->has_skill && !k->left_out && !first)
            first = k;
        unsound += k->left_out != NULL;
        off += !(k->runnable && k->has_skill) && !k->left_out;
    }
    if (!rc && !first)
        return up_error_set(err, UP_EPARSE,
                            "'%s': no task here runs and has a skill "
                            "(environment/skills/*/SKILL.md): see --check",
                            rq->tasks);
    if (!rc)
        rc = up_skill_load(&e->skill, first->skills[0], err);
    if (!rc)
        up_buf_addf(note,
                    "%zu case%s from the Harbor tasks in '%s' (%zu left "
                    "out: not runnable here or without skills; "
                    "--check says why)",
                    e->suite.ncases, e->suite.ncases == 1 ? "" : "s", rq->tasks,
                    off);
    if (!rc && rq->sound)
        left_out_note(e, note, unsound, rq->sound);
    return rc;
}

/* The skill at rq->skill_path and its tests (compare: skill A too). */
static int skill_and_tests(up_eval_session *e, const up_eval_request *rq,
                           up_buf *note, const up_gen_tests_req *gen,
                           up_error *err)
{
    int rc = up_skill_load(&e->skill, rq->skill_path, err);

    if (!rc)
        notes(e, e->skill.warnings, e->skill.nwarnings);
    if (!rc && rq->base_skill_path)
        rc = compare_load(e, rq, note, err);
    else if (!rc)
        rc = up_gen_suite_pick(&e->suite, note, rq->tests, &e->skill,
                               rq->skill_path, rq->gen_tests ? gen : NULL,
                               &e->cfg, err);
    return rc;
}

int up_eval_session_load(up_eval_session *e, const up_eval_request *rq,
                         up_error *err)
{
    up_buf note = UP_BUF_INIT;
    up_gen_tests_req gen = {
        rq->test_gen_model, rq->nmodels ? rq->models[0] : NULL,
        rq->base_url,       rq->api_key_env,
        rq->no_save_tests,  e->s.o.stop};
    int rc = up_config_load(&e->cfg, err);

    if (!rc)
        rc = up_config_set_max_tokens(&e->cfg, rq->max_tokens, "--max-tokens",
                                      err);
    if (!rc)
        notes(e, e->cfg.warnings, e->cfg.nwarnings);
    session_settle(&e->s);
    if (!rc) /* before anything is sent, test generation included */
        rc = up_session_check_sandbox(&e->s, err);
    if (!rc && rq->tasks)
        rc = tasks_load(e, rq, &note, err);
    else if (!rc && rq->nsweep)
        rc = session_sweep_load(e, rq, &note, err);
    else if (!rc)
        rc = skill_and_tests(e, rq, &note, &gen, err);
    if (!rc)
        session_note(&e->s, UP_SESSION_TESTS, note.data);
    up_buf_release(&note);
    return rc;
}

static int add_targets(up_eval_session *e, const up_eval_request *rq,
                       up_error *err)
{
    const char *dflt = e->cfg.eval_model.value
                           ? e->cfg.eval_model.value
                           : e->cfg.skill_generation_model.value;
    size_t n = rq->nmodels ? rq->nmodels : 1;
    int rc = 0;

    for (size_t i = 0; i < n && !rc; i++) {
        const char *spec = rq->nmodels ? rq->models[i] : dflt;

        rc = up_session_add_target(&e->s, spec ? spec : "sonnet", rq->base_url,
                                   rq->api_key_env, NULL, err);
    }
    return rc;
}

int up_eval_session_start(up_eval_session *e, const up_eval_request *rq,
                          up_error *err)
{
    up_session_plan sp = {.runs = rq->runs,
                          .baseline = rq->baseline,
                          .inject = rq->inject,
                          .margin = rq->margin,
                          .family = rq->family,
                          .seed = (uint64_t)rq->seed};
    int rc = add_targets(e, rq, err);

    if (!rc)
        rc = up_eval_check_size(e->s.ntargets, e->suite.ncases, err);
    if (rc)
        return rc;
    sp.nmodels = e->s.ntargets;
    up_session_plan_init(&e->s, &e->plan,
                         e->nsweep ? &e->sweep[0].skill : &e->skill, &e->suite,
                         &sp);
    if (e->nsweep) /* each case's skill arm runs its own skill */
        up_eval_plan_case_prompts(&e->plan);
    if (rq->base_skill_path) /* compare: arm 0 runs skill A */
        up_eval_plan_set_base(&e->plan, &e->base_skill);
    if (rq->aa) /* A/A: the skill arm as the baseline */
        up_eval_plan_set_aa(&e->plan);
    up_eval_plan_shard(&e->plan, rq->shard_index, rq->shard_count);
    return up_eval_prepare(&e->plan, rq->tests, err);
}

int up_eval_session_open(up_eval_session *e, up_error *err)
{
    int rc = up_session_open_batch(&e->s, &e->plan, err);

    if (!rc)
        up_session_open_cache(&e->s);
    return rc;
}

int up_eval_session_run(up_eval_session *e, up_error *err)
{
    up_error jerr;
    int rc;

    if (!e->nsweep) /* a sweep's artifacts are written per skill */
        session_stream_open(&e->s, &e->plan); /* the artifacts as jobs land */
    rc = up_session_execute(&e->s, &e->plan, NULL, err);

    if (rc == UP_EIO) { /* only the journal fails so */
        up_session_close_journal(&e->s, &jerr);
        up_eval_grade(&e->plan);
        if (e->nsweep)
            session_sweep_split(e);
        return rc;
    }
    if (up_session_close_journal(&e->s, &jerr) && !rc)
        rc = up_error_set(err, jerr.code, "%s", jerr.msg);
    if (rc == UP_EINTR && e->s.batch_id.len)
        up_error_set(err, UP_EINTR,
                     "interrupted; finished work is saved: resume with "
                     "--resume %s",
                     e->s.batch_id.data);
    if (!rc)
        rc = up_session_grade(&e->s, &e->plan, err);
    if (!rc && e->nsweep) {
        session_sweep_split(e);
        return session_sweep_log(e, err);
    }
    if (!rc)
        rc = up_session_log_runs(
            &e->s, &e->plan, e->skill.description ? e->skill.description : "",
            0, err);
    if (!rc)
        rc = up_session_log_summary(
            &e->s, e->skill.description ? e->skill.description : "", NULL, err);
    return rc;
}

/* The summaries of plan p's models. */
static int summarize(const up_eval_session *e, const up_eval_plan *p,
                     uint64_t seed, up_eval_summary **sums, char **dead,
                     up_error *err)
{
    size_t n = p->nmodels;
    int rc = 0;

    *sums = up_xcalloc(n ? n : 1, sizeof(**sums));
    *dead = up_xcalloc(n ? n : 1, 1);
    for (size_t m = 0; m < n && !rc; m++) {
        (*dead)[m] = up_eval_unanswered(p, m, NULL) != 0;
        rc = up_eval_summarize(p, m, up_session_price(&e->s, m), seed,
                               &(*sums)[m], err);
    }
    return rc;
}

int up_eval_session_summarize(const up_eval_session *e, uint64_t seed,
                              up_eval_summary **sums, char **dead,
                              up_error *err)
{
    return summarize(e, &e->plan, seed, sums, dead, err);
}

int up_eval_session_sweep_summarize(const up_eval_session *e, size_t i,
                                    uint64_t seed, up_eval_summary **sums,
                                    char **dead, up_error *err)
{
    return summarize(e, &e->sweep[i].plan, seed, sums, dead, err);
}

const up_eval_plan *up_eval_session_part(const up_eval_session *e, size_t i)
{
    if (!e->nsweep || !e->sweep[0].plan.jobs)
        return i ? NULL : &e->plan;
    return i < e->nsweep ? &e->sweep[i].plan : NULL;
}

size_t up_eval_session_failed(const up_eval_session *e,
                              const up_eval_job **first,
                              const up_eval_job **last)
{
    const up_eval_plan *p;
    size_t n = 0;

    *first = *last = NULL;
    for (size_t k = 0; (p = up_eval_session_part(e, k)) != NULL; k++)
        for (size_t i = 0; i < p->njobs; i++)
            if (up_eval_job_errored(&p->jobs[i]) ||
                p->jobs[i].error == UP_EAGENT) {
                *first = *first ? *first : &p->jobs[i];
                *last = &p->jobs[i];
                n++;
            }
    return n;
}

size_t up_eval_session_cut(const up_eval_session *e, int *cap)
{
    const up_eval_plan *p;
    size_t n = 0;

    *cap = 0;
    for (size_t k = 0; (p = up_eval_session_part(e, k)) != NULL; k++)
        for (size_t i = 0; i < p->njobs; i++)
            if (p->jobs[i].cut_at) {
                *cap = p->jobs[i].cut_at;
                n++;
            }
    return n;
}
