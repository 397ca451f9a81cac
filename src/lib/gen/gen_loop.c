/*
 * upskill generate, the measuring side: evaluate each version of the
 * skill with the eval engine, decide whether to refine, log every
 * attempt, keep the best version and save it with its tests.
 *
 * Decisions (docs/generate.md):
 * - every version runs on the teacher (plan model 0) and the students;
 *   the students' results drive refinement when there are students, the
 *   teacher's otherwise;
 * - the baseline does not depend on the skill, so it runs once, with the
 *   first version, and later plans reuse its answers: every version is
 *   compared with the same baseline and later attempts cost half;
 * - the kept version is the one with the best mean lift over the driving
 *   models among those that do not mis-capture the task for the teacher;
 *   ties keep the earlier version; refinement starts from the best;
 * - the loop stops early when the lift is significant for every driving
 *   model (the eval engine's verdict, not upstream's 5-point rule, which
 *   one lucky case satisfies), or when the skill arm passes every case;
 * - plateau: the with-skill rate moved less than 5 points since the
 *   previous attempt (never on the first attempt, unlike upstream).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cases/suite_lib.h"
#include "lib/skill/skill_lib.h"
#include "lib/gen/gen_lib.h"
#include "lib/eval/session_lib.h"
#include "lib/eval/eval_job.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/gen.h"

#include "lib/gen/gen_loop.h"

#define PLATEAU 0.05

static const char *const stop_labels[] = {
    [UP_GEN_STOP_NONE] = "not evaluated",
    [UP_GEN_STOP_GOOD] = "beneficial",
    [UP_GEN_STOP_CEILING] = "the skill passes every case",
    [UP_GEN_STOP_PLATEAU] = "plateaued",
    [UP_GEN_STOP_LIMIT] = "attempt limit reached",
    [UP_GEN_STOP_REJECTED] = "refinement rejected as invalid",
    [UP_GEN_STOP_ERROR] = "stopped by an error",
    [UP_GEN_STOP_INTERRUPTED] = "interrupted",
};

static const char *const teacher_labels[] = {
    [UP_GEN_TEACHER_OK] = "keeps its performance",
    [UP_GEN_TEACHER_MISCAPTURE] = "significant drop: the skill mis-captures "
                                  "the task",
    [UP_GEN_TEACHER_REDUNDANT] = "redundant for the teacher: no gain, more "
                                 "tokens",
};

const char *up_gen_stop_label(enum up_gen_stop s)
{
    return stop_labels[s];
}

const char *up_gen_teacher_label(enum up_gen_teacher t)
{
    return teacher_labels[t];
}

const up_skill *up_gen_skill(const up_gen *g)
{
    return g->nattempts ? &g->attempts[g->best].skill : NULL;
}

/* ---- tests ------------------------------------------------------------ */

static int load_tests(up_gen *g, up_error *err)
{
    up_buf path = UP_BUF_INIT;
    int rc = 0;

    if (g->has_source && g->source.tests_json) {
        up_fs_join(&path, g->o->from, "skill_meta.json");
        rc = up_suite_parse(&g->suite, g->source.tests_json,
                            strlen(g->source.tests_json), path.data, "tests",
                            err);
        g->tests_reused = !rc && g->suite.ncases;
    }
    up_buf_release(&path);
    if (g->tests_reused)
        gen_emit(g, UP_GEN_EV_TESTS, 0, NULL, "reused", NULL);
    return rc || g->tests_reused ? rc : gen_tests(g, err);
}

/* ---- evaluating one version ------------------------------------------ */

static void copy_job(up_eval_job *to, const up_eval_job *from)
{
    to->done = 1;
    if (up_eval_job_live_view(from)->answer)
        up_eval_job_live_of(to)->answer =
            up_xstrdup(up_eval_job_live_view(from)->answer);
    to->usage = from->usage; /* both already saturated */
    to->latency_ms = from->latency_ms;
    to->attempts = from->attempts;
    to->from_cache = from->from_cache;
    to->error = from->error;
    to->error_msg = from->error_msg ? up_xstrdup(from->error_msg) : NULL;
}

/* Same models, suite and runs: the job matrices line up index by index. */
static void reuse_baseline(up_eval_plan *p, const up_eval_plan *first)
{
    for (size_t i = 0; i < p->njobs && i < first->njobs; i++)
        if (p->jobs[i].arm == UP_ARM_BASELINE && first->jobs[i].done)
            copy_job(&p->jobs[i], &first->jobs[i]);
}

static int summarize(up_gen *g, up_gen_attempt *a, up_error *err)
{
    int rc = 0;

    a->sums = up_xcalloc(g->nmodels, sizeof(*a->sums));
    for (size_t m = 0; m < g->nmodels && !rc; m++)
        rc = up_eval_summarize(&a->plan, m, up_session_price(&g->session, m),
                               g->o->seed, &a->sums[m], err);
    return rc;
}

/*
 * One version through the evaluation session: its -j, cache, stop flag
 * and judge, as eval's.
 */
static int run_plan(up_gen *g, up_gen_attempt *a, up_error *err)
{
    up_session_plan sp = {.nmodels = g->nmodels,
                          .runs = g->o->runs > 0 ? g->o->runs : 1,
                          .baseline = 1,
                          .inject = UP_INJECT_UPSKILL,
                          .margin = -1, /* the config's */
                          .seed = g->o->seed};
    int rc;

    up_session_plan_init(&g->session, &a->plan, &a->skill, &g->suite, &sp);
    a->plan.per_model = 1; /* upstream's generate: an eval per model */
    rc = up_eval_prepare(&a->plan, NULL, err);
    if (rc)
        return rc;
    if (a != g->attempts)
        reuse_baseline(&a->plan, &g->attempts[0].plan);
    rc = up_session_execute(&g->session, &a->plan, NULL, err);
    if (!rc)
        rc = up_session_grade(&g->session, &a->plan, err);
    if (!rc)
        rc = summarize(g, a, err);
    a->evaluated = !rc;
    return rc;
}

/* Score, rate and verdicts of an evaluated attempt. */
static void judge(const up_gen *g, up_gen_attempt *a)
{
    size_t first = g->nmodels > 1 ? 1 : 0, n = g->nmodels - first;
    const up_comparison *t = &a->sums[0].cmp;

    a->good = 1;
    for (size_t m = first; m < g->nmodels; m++) {
        a->score += a->sums[m].cmp.lift.diff / (double)n;
        a->skill_rate += a->sums[m].arm[UP_ARM_SKILL].rate.rate / (double)n;
        a->good &= a->sums[m].cmp.verdict == UP_VERDICT_BENEFICIAL;
    }
    if (t->verdict == UP_VERDICT_HARMFUL)
        a->teacher = UP_GEN_TEACHER_MISCAPTURE;
    else if (t->lift.diff <= 0 && t->token_change > 0)
        a->teacher = UP_GEN_TEACHER_REDUNDANT;
    else
        a->teacher = UP_GEN_TEACHER_OK;
}

/* Is a better than b? */
static int better(const up_gen_attempt *a, const up_gen_attempt *b)
{
    int ga = a->teacher != UP_GEN_TEACHER_MISCAPTURE;
    int gb = b->teacher != UP_GEN_TEACHER_MISCAPTURE;

    if (!b->evaluated || ga != gb)
        return !b->evaluated || ga > gb;
    return a->score > b->score + 1e-9;
}

static enum up_gen_stop decide(const up_gen *g, size_t i)
{
    const up_gen_attempt *a = &g->attempts[i];
    int sound = a->teacher != UP_GEN_TEACHER_MISCAPTURE;

    if (a->good && sound)
        return UP_GEN_STOP_GOOD;
    if (a->skill_rate >= 1 && sound)
        return UP_GEN_STOP_CEILING;
    if (i > 0 && fabs(a->skill_rate - g->attempts[i - 1].skill_rate) < PLATEAU)
        return UP_GEN_STOP_PLATEAU;
    if (i + 1 >= g->max_attempts)
        return UP_GEN_STOP_LIMIT;
    return UP_GEN_STOP_NONE;
}

static void add_arm(up_gen_cost *c, const up_arm_totals *t)
{
    c->calls += (int)t->jobs;
    c->usage.input += t->usage.input;
    c->usage.output += t->usage.output;
    c->usage.cached += t->usage.cached;
    c->usage.reasoning += t->usage.reasoning;
    c->usage.estimated |= t->usage.estimated;
    if (t->cost_usd < 0 || c->cost_usd < 0)
        c->cost_usd = -1;
    else
        c->cost_usd += t->cost_usd;
}

void up_gen_eval_cost(const up_gen *g, size_t m, up_gen_cost *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < g->nattempts && m < g->nmodels; i++) {
        const up_gen_attempt *a = &g->attempts[i];

        if (!a->evaluated)
            continue;
        add_arm(out, &a->sums[m].arm[UP_ARM_SKILL]);
        if (i == 0)
            add_arm(out, &a->sums[m].arm[UP_ARM_BASELINE]);
    }
}

/* ---- the run log ------------------------------------------------------ */

static int log_attempt(up_gen *g, const up_gen_attempt *a, up_error *err)
{
    return up_session_log_runs(&g->session, &a->plan, g->o->task, a->number,
                               err);
}

static int open_batch(up_gen *g, up_error *err)
{
    int rc = up_session_open_batch(&g->session, NULL, err);

    if (!rc)
        up_session_open_cache(&g->session);
    return rc;
}

/* ---- refining --------------------------------------------------------- */

static void results_text(up_buf *out, const up_gen *g, const up_gen_attempt *a)
{
    for (size_t m = 0; m < g->nmodels; m++) {
        const up_eval_summary *s = &a->sums[m];

        up_buf_addf(out, "- %s (%s): %.0f%% -> %.0f%%\n", s->model,
                    m ? "student" : "teacher",
                    s->arm[UP_ARM_BASELINE].rate.rate * 100,
                    s->arm[UP_ARM_SKILL].rate.rate * 100);
    }
}

static void copy_meta(up_skill_meta *to, const up_skill_meta *from)
{
    char **dst[] = {&to->version,     &to->generated_by, &to->generated_at,
                    &to->source_task, &to->license,      &to->compatibility};
    char *const src[] = {from->version,      from->generated_by,
                         from->generated_at, from->source_task,
                         from->license,      from->compatibility};

    for (size_t i = 0; i < sizeof(src) / sizeof(*src); i++)
        *dst[i] = src[i] ? up_xstrdup(src[i]) : NULL;
}

/* The refine prompt for the best version so far. */
static int refine_prompt(up_gen *g, const up_gen_attempt *base, up_buf *user,
                         up_error *err)
{
    up_buf tmpl = UP_BUF_INIT, skill = UP_BUF_INIT, res = UP_BUF_INIT,
           fails = UP_BUF_INIT;
    size_t drivers[64], n = 0;
    size_t budget = (g->o->refine_budget ? g->o->refine_budget : 6000) * 4;
    int rc = up_gen_prompt(&tmpl, "refine", g->cfg->prompts_dir.value, err);

    if (base->teacher == UP_GEN_TEACHER_MISCAPTURE || g->nmodels == 1)
        drivers[n++] = 0;
    for (size_t m = 1; m < g->nmodels && n < 64; m++)
        drivers[n++] = m;
    up_gen_skill_text(&skill, &base->skill);
    results_text(&res, g, base);
    up_gen_failures(&fails, &base->plan, drivers, n, budget, NULL, NULL);
    if (!rc) {
        up_gen_var v[] = {{"task", g->o->task},
                          {"skill", skill.data},
                          {"results", res.data},
                          {"failures", fails.data}};

        up_gen_expand(user, tmpl.data, v, 4);
    }
    up_buf_release(&tmpl);
    up_buf_release(&skill);
    up_buf_release(&res);
    up_buf_release(&fails);
    return rc;
}

/* Ask for the next version; 1 when the teacher's reply stayed invalid. */
static int refine(up_gen *g, up_error *err)
{
    const up_gen_attempt *base = &g->attempts[g->best];
    up_gen_attempt *a = &g->attempts[g->nattempts];
    up_buf user = UP_BUF_INIT;
    int rc = refine_prompt(g, base, &user, err);

    memset(a, 0, sizeof(*a));
    up_skill_init(&a->skill);
    a->number = (int)g->nattempts + 1;
    if (!rc) {
        gen_emit(g, UP_GEN_EV_REFINE, a->number, up_gen_model(g, 0)->resolved,
                 NULL, base);
        rc = gen_ask_skill(g, user.data, &base->skill, &a->skill, a->number,
                           err);
    }
    if (!rc) {
        copy_meta(&a->skill.meta, &base->skill.meta);
        a->skill.has_meta = 1;
        g->nattempts++;
    } else {
        up_skill_release(&a->skill);
    }
    up_buf_release(&user);
    return rc == UP_EINVALID ? 1 : rc;
}

/* ---- the loop --------------------------------------------------------- */

/*
 * Failed conversations are not failures of the skill: refining on them
 * would teach the teacher about a dead endpoint.  The first model with a
 * failed conversation ends the loop with a provider error naming it.
 */
static int provider_errors(const up_gen *g, const up_gen_attempt *a,
                           up_error *err)
{
    for (size_t m = 0; m < g->nmodels; m++) {
        const up_eval_job *first;
        size_t ok = up_eval_answered(&a->plan, m, &first), failed = 0;

        if (!first)
            continue;
        if (!ok)
            return up_eval_unanswered(&a->plan, m, err);
        for (size_t i = 0; i < a->plan.njobs; i++)
            failed += a->plan.jobs[i].model == m && a->plan.jobs[i].error;
        return up_error_set(
            err, up_exit_code(first->error) == 4 ? first->error : UP_EHTTP,
            "'%s': %zu conversation(s) failed, so the results cannot guide "
            "a refinement: %.800s",
            up_gen_model(g, m)->resolved, failed,
            first->error_msg ? first->error_msg : up_strerror(first->error));
    }
    return 0;
}

/* Which training cases version i gives away; a refinement that gives
 * away more than the first version is quoting its tests. */
static void quotes(up_gen *g, size_t i)
{
    up_gen_attempt *a = &g->attempts[i];
    up_buf t = UP_BUF_INIT;
    up_quote *q;

    up_quote_find(&q, &a->nquotes, &a->skill, &g->suite);
    for (size_t k = 0; k < a->nquotes; k++) /* as the saved tests number */
        q[k].kase = gen_holdout_saved_index(g, q[k].kase);
    if (a->nquotes) {
        up_quote_text(&t, q, a->nquotes);
        a->quotes = up_buf_detach(&t);
    }
    a->quoting = i > 0 && a->nquotes > g->attempts[0].nquotes;
    up_quote_free(q, a->nquotes);
}

static int attempt_done(up_gen *g, size_t i, up_error *err)
{
    up_gen_attempt *a = &g->attempts[i];
    int rc = log_attempt(g, a, err);

    if (!rc && (rc = provider_errors(g, a, err)) != 0) {
        a->failed = 1; /* logged, but no verdict built on errors */
        return rc;
    }
    judge(g, a);
    quotes(g, i);
    if (i == 0 || (!a->quoting && better(a, &g->attempts[g->best])))
        g->best = i;
    gen_emit(g, UP_GEN_EV_ATTEMPT, a->number, NULL, NULL, a);
    return rc;
}

static int loop(up_gen *g, up_error *err)
{
    int rc = load_tests(g, err);

    if (!rc)
        rc = gen_holdout_split(g, err);
    if (!rc)
        rc = open_batch(g, err);
    for (size_t i = 0; !rc; i++) {
        gen_emit(g, UP_GEN_EV_EVAL, (int)i + 1, NULL, NULL, NULL);
        rc = run_plan(g, &g->attempts[i], err);
        if (!rc)
            rc = attempt_done(g, i, err);
        if (!rc && (g->stop = decide(g, i)) != UP_GEN_STOP_NONE)
            break;
        if (!rc && (rc = refine(g, err)) == 1) {
            g->stop = UP_GEN_STOP_REJECTED;
            gen_emit(g, UP_GEN_EV_REPAIR, (int)i + 2, NULL, err->msg, NULL);
            rc = 0;
            break;
        }
    }
    if (!rc)
        rc = gen_holdout_eval(g, err);
    if (rc)
        g->stop = rc == UP_EINTR ? UP_GEN_STOP_INTERRUPTED : UP_GEN_STOP_ERROR;
    gen_emit(g, UP_GEN_EV_STOP, (int)g->nattempts, NULL,
             up_gen_stop_label(g->stop), NULL);
    return rc;
}

/* ---- saving ----------------------------------------------------------- */

static int save(up_gen *g, int finished, up_error *err)
{
    up_gen_attempt *a = &g->attempts[g->best];
    up_skill *s = &a->skill;
    up_buf tests = UP_BUF_INIT, name = UP_BUF_INIT;
    int rc;

    if (g->all_tests) { /* every case, the held-out ones too */
        free(s->tests_json);
        s->tests_json = up_xstrdup(g->all_tests);
    } else if (g->suite.ncases) {
        up_suite_to_json(&g->suite, &tests);
        free(s->tests_json);
        s->tests_json = up_buf_detach(&tests);
    }
    if (g->hsums) { /* measured on the cases that did not choose it */
        s->meta.test_pass_rate = g->hsums[0].arm[UP_ARM_SKILL].rate.rate;
        s->meta.has_test_pass_rate = 1;
    } else if (a->evaluated) {
        s->meta.test_pass_rate = a->sums[0].arm[UP_ARM_SKILL].rate.rate;
        s->meta.has_test_pass_rate = 1;
    }
    gen_output_name(g, &name);
    if (name.len) { /* -o DIR: the skill is named after DIR */
        free(s->name);
        s->name = up_buf_detach(&name);
    }
    gen_target(g, s->name, &g->output);
    rc = gen_make_room(g, finished, &g->output, err);
    if (!rc)
        rc = up_skill_save(s, g->output.data, err);
    if (rc && g->backup.len) { /* the old version is still in place */
        up_fs_rm_tree(g->backup.data);
        up_buf_reset(&g->backup);
    }
    if (!rc)
        up_validate_path(&g->saved, g->output.data);
    up_buf_release(&name);
    return rc;
}

/* ", "holdout": {"held_out_cases": [...], "lift": [per model]}": the
 * kept version measured on the held-out cases, when it was. */
static void holdout_stats(up_buf *out, const up_gen *g)
{
    if (!g->hsums)
        return;
    up_buf_adds(out, ", \"holdout\": {\"held_out_cases\": [");
    for (size_t i = 0; i < g->nheld; i++)
        up_buf_addf(out, "%s%zu", i ? ", " : "", g->held_idx[i]);
    up_buf_adds(out, "], \"lift\": [");
    for (size_t m = 0; m < g->nmodels; m++)
        up_buf_addf(out, "%s%.17g", m ? ", " : "", g->hsums[m].cmp.lift.diff);
    up_buf_adds(out, "]}");
}

/* batch_summary.json, with which attempt was kept under "stats". */
static int summary(up_gen *g, up_error *err)
{
    up_buf stats = UP_BUF_INIT;
    int rc;

    if (!g->session.batch_dir.len || !g->session.nruns)
        return 0;
    up_buf_addf(&stats,
                "{\"generate\": {\"attempts\": %zu, \"kept_attempt\": %d, "
                "\"stop\": \"%s\"",
                g->nattempts, g->attempts[g->best].number,
                up_gen_stop_label(g->stop));
    holdout_stats(&stats, g);
    up_buf_adds(&stats, "}}");
    rc = up_session_log_summary(&g->session, g->o->task, stats.data, err);
    up_buf_release(&stats);
    return rc;
}

/* The error that ends the run, once the best version is saved. */
/* A run that did not finish and saved beside an existing folder says so. */
static void beside_note(up_gen *g, up_error *err)
{
    up_buf target = UP_BUF_INIT;
    char msg[UP_ERROR_MAX];

    gen_target(g, g->attempts[g->best].skill.name, &target);
    if (strcmp(target.data, g->output.data)) {
        memcpy(msg, err->msg, sizeof(msg));
        up_error_set(err, err->code,
                     "%.700s ('%s' was there before this run and is left "
                     "as it was)",
                     msg, target.data);
    }
    up_buf_release(&target);
}

static void saved_note(up_gen *g, int rc, up_error *err)
{
    char msg[UP_ERROR_MAX];

    memcpy(msg, err->msg, sizeof(msg));
    if (rc != UP_EINTR)
        up_error_set(err, rc,
                     "%.900s; the best version so far is saved to "
                     "'%s'",
                     msg, g->output.data);
    else if (g->session.nruns)
        up_error_set(err, rc,
                     "interrupted; the best version so far is saved to "
                     "'%s', finished attempts to '%s'",
                     g->output.data, g->session.batch_dir.data);
    else
        up_error_set(err, rc,
                     "interrupted; the best version so far is saved to "
                     "'%s'",
                     g->output.data);
    beside_note(g, err);
}

int up_gen_run(up_gen *g, up_error *err)
{
    up_gen_attempt *a = &g->attempts[0];
    up_error e2;
    int rc;

    a->number = 1;
    up_skill_init(&a->skill);
    rc = gen_first(g, &a->skill, err);
    if (rc) {
        up_skill_release(&a->skill);
        if (rc == UP_EINTR)
            up_error_set(err, rc,
                         "interrupted before the teacher wrote a "
                         "skill; nothing saved");
        return rc;
    }
    g->nattempts = 1;
    if (!g->o->output && (rc = gen_check_target(g, a->skill.name, err)))
        return rc; /* the name says where: the folder rule, now */
    if (!g->o->no_eval)
        rc = loop(g, err);
    if (summary(g, rc ? &e2 : err) && !rc)
        return err->code;
    if (!rc)
        return save(g, 1, err);
    if (rc == UP_EINTR)
        up_error_set(err, rc, "interrupted; nothing saved");
    if (!save(g, 0, &e2))
        saved_note(g, rc, err);
    return rc;
}
