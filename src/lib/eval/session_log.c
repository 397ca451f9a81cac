/*
 * The evaluation session's judge and run log (upskill/session.h).
 *
 * The judge of llm-rubric assertions is resolved only when a plan has a
 * verdict pending, so a suite without rubrics needs no judge key.  The
 * run log keeps every record of the session, so generate's attempts
 * number on and batch_summary.json covers them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/store/store_lib.h"
#include "upskill/alloc.h"
#include "upskill/session.h"

#include "lib/eval/session_int.h"

/*
 * The judge: o.judge_model, else the config's test_gen_model or
 * skill_generation_model; with judge_base_url and no judge_model, the
 * first target judges.
 */
static int judge_target(up_session *s, up_target *t, up_error *err)
{
    const up_session_opts *o = &s->o;
    const char *spec = o->judge_model ? o->judge_model
                       : s->cfg->test_gen_model.value
                           ? s->cfg->test_gen_model.value
                           : s->cfg->skill_generation_model.value;
    int own = spec && (o->judge_model || !o->judge_base_url);

    up_model_init(&t->model);
    t->headers = NULL;
    if (!own && !s->ntargets)
        return up_error_set(err, UP_EUSAGE, "no model to judge with");
    return up_model_resolve(&t->model, own ? spec : s->targets[0].model.spec,
                            o->judge_model ? NULL : o->judge_base_url,
                            o->judge_model ? NULL : o->judge_api_key_env,
                            s->cfg, err);
}

int up_session_grade(up_session *s, up_eval_plan *p, up_error *err)
{
    up_target t;
    up_sched_opts o;
    int rc;

    up_eval_grade(p);
    if (!up_eval_pending_judgements(p))
        return 0;
    rc = judge_target(s, &t, err);
    if (!rc)
        rc = up_model_endpoint(&t.ep, &t.headers, &t.model, s->cfg, err);
    if (!rc) {
        session_sched_opts(s, &o);
        o.log = NULL; /* as before: the judge's attempts are not logged */
        o.waiting = NULL;
        rc = up_eval_judge(p, &t.ep, &o, err);
    }
    up_strv_free(t.headers);
    up_model_release(&t.model);
    return rc;
}

/*
 * Now as upstream stamps its runs (Python's datetime.now().isoformat()):
 * local time without a zone, microseconds unless they are 0.
 */
static void local_stamp(char *out, size_t size)
{
    struct timespec ts;
    struct tm tm;
    size_t n;
    long us;

    clock_gettime(CLOCK_REALTIME, &ts);
    localtime_r(&ts.tv_sec, &tm);
    n = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
    us = ts.tv_nsec / 1000;
    if (us && n && n + 8 <= size)
        snprintf(out + n, size - n, ".%06ld", us);
}

static up_run_record *new_record(up_session *s)
{
    up_run_record *r;

    s->runs = up_xrealloc(s->runs, (s->nruns + 1) * sizeof(*s->runs));
    r = &s->runs[s->nruns++];
    up_run_record_init(r);
    r->run_number = (int)s->nruns;
    return r;
}

int up_session_log_runs(up_session *s, const up_eval_plan *p, const char *task,
                        int attempt, up_error *err)
{
    char stamp[32];
    int rc = 0;

    if (!s->batch_dir.len)
        return 0;
    local_stamp(stamp, sizeof(stamp));
    for (size_t m = 0; m < p->nmodels && !rc; m++)
        for (int r = 1; r <= p->runs && !rc; r++)
            for (int arm = p->baseline ? 0 : 1; arm <= 1 && !rc; arm++) {
                up_run_record *rec = new_record(s);

                up_eval_run_totals(rec, p, m, r, (enum up_arm)arm,
                                   up_session_price(s, m));
                if (up_eval_upstream_benchmark(p))
                    rec->meta_run_number = r; /* upstream: per model */
                up_eval_run_error(rec, p, m, r, (enum up_arm)arm);
                if (p->agent_opts.run_tool || s->unsandboxed)
                    rec->sandbox =
                        s->o.sandbox == UP_SANDBOX_NONE ? "none" : "bwrap";
                rec->batch_id = up_xstrdup(s->batch_id.data);
                rec->task = up_xstrdup(task ? task : "");
                rec->attempt = attempt;
                rec->timestamp = up_xstrdup(stamp);
                rc = up_store_run_write(s->batch_dir.data, rec, err);
                if (!rc)
                    rc = session_log_cases(s, p, m, r, (enum up_arm)arm,
                                           rec->run_number, attempt, err);
            }
    return rc;
}

int up_session_log_summary(up_session *s, const char *task, const char *stats,
                           up_error *err)
{
    if (!s->batch_dir.len || !s->nruns)
        return 0;
    return up_store_summary_write(
        s->batch_dir.data, s->batch_id.data, s->targets[0].model.resolved,
        task ? task : "", s->runs, s->nruns, stats, err);
}
