/*
 * The eval pipeline for `eval` and `benchmark`: load, resolve, plan, run,
 * grade, summarize, log, render, gate.  Every step is a library call.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval_cli.h"

/* Without a TTY, runs of fewer conversations print no progress lines. */
#define PLAIN_PROGRESS_MIN 200

static volatile sig_atomic_t stop;

static void on_sigint(int sig)
{
    (void)sig;
    stop++;
}

struct ctx {
    up_config cfg;
    up_skill skill;
    up_suite suite;
    up_model *models;
    up_endpoint *eps;
    char ***headers;
    size_t nmodels;
    up_eval_plan plan;
    up_buf batch_dir, batch_id;
    up_journal journal;
    up_cache *cache; /* NULL: no cache this run */
    up_error err;
    struct eval_progress progress;
};

static int load_tests(struct ctx *c, const struct eval_args *a)
{
    up_buf note = UP_BUF_INIT;
    up_gen_tests_req rq = {
        a->test_gen_model, a->models.n ? a->models.v[0] : NULL,
        a->base_url,       a->api_key_env,
        a->no_save_tests,  &stop};
    int rc =
        up_gen_suite_pick(&c->suite, &note, a->tests, &c->skill, a->skill_path,
                          a->plan ? NULL : &rq, &c->cfg, &c->err);

    if (!rc)
        fprintf(stderr, "tests: %s\n", out_safe(note.data));
    up_buf_release(&note);
    return rc;
}

static int resolve_models(struct ctx *c, const struct eval_args *a)
{
    const char *dflt = c->cfg.eval_model.value
                           ? c->cfg.eval_model.value
                           : c->cfg.skill_generation_model.value;
    size_t n = a->models.n ? a->models.n : 1;

    c->models = up_xcalloc(n, sizeof(*c->models));
    c->eps = up_xcalloc(n, sizeof(*c->eps));
    c->headers = up_xcalloc(n, sizeof(*c->headers));
    for (size_t i = 0; i < n; i++) {
        const char *spec = a->models.n ? a->models.v[i] : dflt;
        int rc;

        up_model_init(&c->models[i]);
        c->nmodels = i + 1;
        rc = up_model_resolve(&c->models[i], spec ? spec : "sonnet",
                              a->base_url, a->api_key_env, &c->cfg, &c->err);
        if (rc)
            return rc;
        rc = up_eval_endpoint(&c->eps[i], &c->headers[i], &c->models[i],
                              &c->cfg, &c->err);
        if (rc)
            return rc;
    }
    return 0;
}

static int open_batch(struct ctx *c, const struct eval_args *a)
{
    const char *runs_dir = a->runs_dir             ? a->runs_dir
                           : c->cfg.runs_dir.value ? c->cfg.runs_dir.value
                                                   : "runs";
    size_t restored = 0;
    int rc;

    if (a->resume) {
        up_buf_adds(&c->batch_id, a->resume);
        up_fs_join(&c->batch_dir, runs_dir, a->resume);
        if (!up_fs_is_dir(c->batch_dir.data))
            return up_error_set(&c->err, UP_ENOTFOUND,
                                "'%s': no such batch to resume",
                                c->batch_dir.data);
        /* the lock first: the checks and repairs are the holder's */
        rc = up_journal_open(&c->journal, c->batch_dir.data, &c->err);
        if (!rc)
            rc = up_eval_batch_match(&c->plan, c->batch_dir.data, &c->err);
        if (!rc)
            up_store_batch_clean(c->batch_dir.data);
        if (!rc)
            rc = up_journal_replay(&c->plan, c->batch_dir.data, &restored,
                                   &c->err);
        if (!rc && !a->json)
            fprintf(stderr, "resuming %s: %zu of %zu jobs already done\n",
                    c->batch_id.data, restored, c->plan.njobs);
    } else if (a->no_log) {
        return 0;
    } else {
        int had = up_fs_is_dir(runs_dir);

        rc = up_store_batch_new(&c->batch_dir, &c->batch_id, runs_dir, &c->err);
        if (!rc && !had)
            fprintf(stderr, "created the runs folder '%s'\n", runs_dir);
        if (!rc)
            rc = up_journal_open(&c->journal, c->batch_dir.data, &c->err);
        if (!rc)
            rc = up_eval_batch_mark(&c->plan, c->batch_dir.data, &c->err);
    }
    if (!rc && !a->json)
        fprintf(stderr, "%sLogging to: %s%s\n", out_c(C_DIM), c->batch_dir.data,
                out_c(C_RESET));
    return rc;
}

/*
 * The response cache, unless --no-cache or the config turns it off.  A
 * cache that will not open costs only time and money, not results, so it
 * is a warning.
 */
static void open_cache(struct ctx *c, const struct eval_args *a)
{
    up_error err;

    if (a->no_cache || !c->cfg.cache_enabled.value || !c->cfg.cache_path.value)
        return;
    if (up_cache_open(&c->cache, c->cfg.cache_path.value,
                      c->cfg.cache_ttl_days.value,
                      (long)(c->cfg.cache_lock_timeout.value * 1000), &err))
        out_warn("%s; running without the response cache", err.msg);
}

void eval_cli_wait_note(void *ud, const up_sched_wait *w)
{
    (void)ud;
    if (out_err_is_tty()) /* end the live progress line first */
        fputc('\n', stderr);
    fprintf(stderr,
            "upskill: no answer for %ld s: %zu conversation(s) in flight, "
            "%zu failed so far",
            w->waited_ms / 1000, w->in_flight, w->failed);
    if (w->last)
        fprintf(stderr, "; the last failure: %s", w->last);
    if (w->last && w->retry_in_ms >= 0)
        fprintf(stderr, " (next try in %ld s)", (w->retry_in_ms + 999) / 1000);
    fputc('\n', stderr);
}

static int execute(struct ctx *c, const struct eval_args *a)
{
    up_eval_run_opts o;
    up_sched_stats st;
    struct sigaction sa;
    int rc;

    memset(&o, 0, sizeof(o));
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    o.endpoints = c->eps;
    up_sched_opts_init(&o.sched);
    o.sched.jobs =
        (int)(a->jobs > 0                    ? a->jobs
              : c->cfg.concurrency.value > 0 ? c->cfg.concurrency.value
                                             : 4);
    o.sched.stop = &stop;
    o.sched.waiting = eval_cli_wait_note;
    if (a->verbose)
        o.sched.log = eval_report_attempt;
    o.journal = c->journal.path ? &c->journal : NULL;
    o.cache = c->cache;
    /* Progress: live on a TTY; plain lines for runs long enough to log. */
    c->progress.tty = out_err_is_tty();
    if (!a->json && (c->progress.tty || c->plan.njobs >= PLAIN_PROGRESS_MIN)) {
        o.progress = eval_report_progress;
        o.progress_ud = &c->progress;
    }
    c->progress.start = time(NULL);
    rc = up_eval_execute(&c->plan, &o, &st, &c->err);
    if (up_cache_locked(c->cache))
        out_warn("'%s': the cache was locked by another process; the rest of "
                 "the run went without it",
                 c->cfg.cache_path.value);
    return rc;
}

/*
 * Settle llm-rubric assertions: the judge is --judge-model, else the
 * config's test_gen_model or skill_generation_model; with --base-url and
 * no --judge-model, the first model under test judges.
 */
static int judge(struct ctx *c, const struct eval_args *a)
{
    const char *spec = a->judge_model ? a->judge_model
                       : c->cfg.test_gen_model.value
                           ? c->cfg.test_gen_model.value
                           : c->cfg.skill_generation_model.value;
    up_model m;
    up_endpoint ep;
    up_sched_opts o;
    char **headers = NULL;
    int rc;

    if (!up_eval_pending_judgements(&c->plan))
        return 0;
    up_model_init(&m);
    rc = up_model_resolve(
        &m, spec && (a->judge_model || !a->base_url) ? spec : c->models[0].spec,
        a->judge_model ? NULL : a->base_url,
        a->judge_model ? NULL : a->api_key_env, &c->cfg, &c->err);
    if (!rc)
        rc = up_eval_endpoint(&ep, &headers, &m, &c->cfg, &c->err);
    if (!rc) {
        up_sched_opts_init(&o);
        o.jobs = a->jobs > 0 ? (int)a->jobs : 4;
        o.stop = &stop;
        rc = up_eval_judge(&c->plan, &ep, &o, &c->err);
    }
    up_strv_free(headers);
    up_model_release(&m);
    return rc;
}

static void fill_run(up_run_record *r, struct ctx *c, size_t m, int repeat,
                     enum up_arm arm)
{
    up_run_record_init(r);
    up_eval_run_totals(
        r, &c->plan, m, repeat, arm,
        up_config_price(&c->cfg, c->models[m].resolved, c->models[m].model_id));
    up_eval_run_error(r, &c->plan, m, repeat, arm);
    r->batch_id = up_xstrdup(c->batch_id.data);
    r->task = up_xstrdup(c->skill.description ? c->skill.description : "");
}

static int write_runs(struct ctx *c)
{
    size_t n = 0, cap = c->nmodels * (size_t)c->plan.runs * 2;
    up_run_record *runs = up_xcalloc(cap, sizeof(*runs));
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    int rc = 0;

    gmtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
    for (size_t m = 0; m < c->nmodels; m++)
        for (int r = 1; r <= c->plan.runs; r++)
            for (int arm = c->plan.baseline ? 0 : 1; arm <= 1; arm++) {
                fill_run(&runs[n], c, m, r, (enum up_arm)arm);
                runs[n].timestamp = up_xstrdup(stamp);
                runs[n].run_number = (int)n + 1;
                if (!rc)
                    rc = up_store_run_write(c->batch_dir.data, &runs[n],
                                            &c->err);
                n++;
            }
    if (!rc)
        rc = up_store_summary_write(c->batch_dir.data, c->batch_id.data,
                                    c->plan.models[0], runs[0].task, runs, n,
                                    NULL, &c->err);
    up_store_free(runs, n);
    return rc;
}

static int gates(const struct eval_args *a, const up_eval_summary *s, size_t n)
{
    int rc = EXIT_OK;

    for (size_t m = 0; m < n; m++) {
        if (a->fail_under >= 0 &&
            s[m].arm[UP_ARM_SKILL].rate.rate < a->fail_under) {
            out_error("'%s': with-skill pass rate %.2f is under %.2f",
                      s[m].model, s[m].arm[UP_ARM_SKILL].rate.rate,
                      a->fail_under);
            rc = EXIT_GATE;
        }
        if (a->require_lift &&
            (!s[m].has_baseline || s[m].cmp.verdict != UP_VERDICT_BENEFICIAL)) {
            out_error("'%s': the skill is not shown to be beneficial",
                      s[m].model);
            rc = EXIT_GATE;
        }
    }
    return rc;
}

static const char *job_error(const up_eval_job *j)
{
    return j->error_msg ? j->error_msg : up_strerror(j->error);
}

/*
 * Conversations that failed after every retry make the results
 * incomplete: say so with the first message, and exit 4 (the results are
 * still printed and saved).  A model that answered nothing (dead[m]) also
 * gets its own line naming the model, the endpoint and the cause.
 */
static int failures(const struct ctx *c, const char *dead)
{
    const up_eval_job *first = NULL, *last = NULL;
    size_t n = 0;
    up_error e;

    for (size_t m = 0; m < c->nmodels; m++)
        if (dead[m] && up_eval_unanswered(&c->plan, m, &e))
            out_error("%s", e.msg);
    for (size_t i = 0; i < c->plan.njobs; i++)
        if (c->plan.jobs[i].error) {
            first = first ? first : &c->plan.jobs[i];
            last = &c->plan.jobs[i];
            n++;
        }
    if (!n)
        return EXIT_OK;
    /* the last names a breaker that gave up on the rest, if one did */
    out_error("%zu of %zu conversation(s) failed after retries; the first: "
              "%s%s%s",
              n, c->plan.njobs, job_error(first),
              strcmp(job_error(first), job_error(last)) ? "; the last: " : "",
              strcmp(job_error(first), job_error(last)) ? job_error(last) : "");
    return EXIT_PROVIDER;
}

/* The comparison table, without the models that answered nothing. */
static void table(const up_eval_summary *s, const char *dead, size_t n)
{
    up_eval_summary *live = up_xcalloc(n, sizeof(*live));
    size_t k = 0;

    for (size_t m = 0; m < n; m++)
        if (!dead[m])
            live[k++] = s[m]; /* a view: nothing is released twice */
    if (k)
        eval_report_table(live, k);
    free(live);
}

/* Answers that stopped at the output cap: say how many, and how to raise. */
static void cut_note(const struct ctx *c)
{
    size_t n = 0;
    int cap = 0;

    for (size_t i = 0; i < c->plan.njobs; i++)
        if (c->plan.jobs[i].cut_at) {
            cap = c->plan.jobs[i].cut_at;
            n++;
        }
    if (n)
        out_warn("%zu answer(s) were cut at max_tokens %d; raise it with "
                 "--max-tokens or the max_tokens config key",
                 n, cap);
}

static int report(struct ctx *c, const struct eval_args *a)
{
    up_eval_summary *s = up_xcalloc(c->nmodels, sizeof(*s));
    char *dead = up_xcalloc(c->nmodels, 1);
    int rc = 0;

    for (size_t m = 0; m < c->nmodels && !rc; m++) {
        dead[m] = up_eval_unanswered(&c->plan, m, NULL) != 0;
        rc = up_eval_summarize(&c->plan, m,
                               up_config_price(&c->cfg, c->models[m].resolved,
                                               c->models[m].model_id),
                               (uint64_t)a->seed, &s[m], &c->err);
    }
    if (!rc && a->json)
        eval_report_json(&c->plan, s, c->batch_id.data);
    else if (!rc)
        for (size_t m = 0; m < c->nmodels; m++)
            if (!dead[m]) /* no bars from errors */
                eval_report_text(&c->plan, &s[m], a->verbose);
    if (!rc && !a->json && c->nmodels > 1)
        table(s, dead, c->nmodels);
    cut_note(c);
    if (!rc)
        rc = gates(a, s, c->nmodels);
    if (rc >= 0 && failures(c, dead))
        rc = EXIT_PROVIDER;
    free(dead);
    free(s);
    return rc;
}

static int check_args(const struct eval_args *a, struct ctx *c)
{
    if (a->runs < 1 || a->runs > 1000)
        return up_error_set(&c->err, UP_EUSAGE, "--runs must be 1 to 1000");
    if (a->inject && strcmp(a->inject, "upskill") &&
        strcmp(a->inject, "agentskills"))
        return up_error_set(&c->err, UP_EUSAGE,
                            "--inject must be 'upskill' or 'agentskills'");
    if (a->fail_under > 1)
        return up_error_set(&c->err, UP_EUSAGE,
                            "--fail-under is a rate between 0 and 1");
    if (a->margin > 50 || (a->margin < 0 && a->margin != -1))
        return up_error_set(&c->err, UP_EUSAGE,
                            "--margin is in points, 0 to 50");
    if (a->plan && (a->plan_p0 < 0 || a->plan_p0 > 1 || a->plan_lift <= 0 ||
                    a->plan_lift > 100))
        return up_error_set(&c->err, UP_EUSAGE,
                            "--baseline-rate is 0 to 1 and --target-lift "
                            "is 0 to 100 points");
    if (a->resume && a->no_log)
        return up_error_set(&c->err, UP_EUSAGE,
                            "--resume needs the run log (drop --no-log-runs)");
    return 0;
}

static int close_journal(struct ctx *c)
{
    up_error jerr;

    if (!up_journal_close(&c->journal, &jerr))
        return 0;
    return up_error_set(&c->err, jerr.code, "%s", jerr.msg);
}

/*
 * The journal could not be written (a full disk): no more was sent.
 * Print what was answered, then the cause; run files wait for the resume
 * that completes the batch.
 */
static int unsaved(struct ctx *c, const struct eval_args *a)
{
    up_error cause = c->err;
    int rc;

    close_journal(c);
    up_eval_grade(&c->plan);
    rc = report(c, a);
    if (rc < 0)
        out_fail(&c->err);
    out_error("%s; no more requests were sent and what was answered is "
              "shown above: free some space, then resume with --resume %s",
              cause.msg, c->batch_id.data);
    return EXIT_IO;
}

static int pipeline(struct ctx *c, struct eval_args *a)
{
    const char **ids;
    int rc = check_args(a, c);

    if (!rc)
        rc = up_config_load(&c->cfg, &c->err);
    if (!rc)
        rc = up_config_set_max_tokens(&c->cfg, a->max_tokens, "--max-tokens",
                                      &c->err);
    for (size_t i = 0; !rc && i < c->cfg.nwarnings; i++)
        out_warn("%s", c->cfg.warnings[i]);
    if (!rc)
        rc = up_skill_load(&c->skill, a->skill_path, &c->err);
    for (size_t i = 0; !rc && i < c->skill.nwarnings; i++)
        out_warn("%s", c->skill.warnings[i]);
    if (!rc)
        rc = load_tests(c, a);
    if (!rc && a->plan)
        return eval_report_plan(&c->suite, a);
    if (!rc)
        rc = resolve_models(c, a);
    if (rc)
        return rc;
    ids = up_xcalloc(c->nmodels, sizeof(*ids));
    for (size_t i = 0; i < c->nmodels; i++)
        ids[i] = c->models[i].resolved;
    up_eval_plan_init(&c->plan, &c->skill, &c->suite, ids, c->nmodels,
                      (int)a->runs, !a->no_baseline,
                      a->inject && !strcmp(a->inject, "agentskills")
                          ? UP_INJECT_AGENTSKILLS
                          : UP_INJECT_UPSKILL);
    c->plan.margin =
        (a->margin >= 0 ? a->margin : (double)c->cfg.margin_points.value) / 100;
    free(ids);
    c->plan.max_answer = (size_t)c->cfg.max_answer_bytes.value;
    rc = up_eval_prepare(&c->plan, a->tests, &c->err);
    if (rc)
        return rc;
    if (!a->json)
        fprintf(stderr,
                "Evaluating %s on %zu model(s): %zu case(s) x %d "
                "run(s), baseline %s\n",
                out_safe(c->skill.name), c->nmodels, c->suite.ncases,
                c->plan.runs, c->plan.baseline ? "on" : "off");
    rc = open_batch(c, a);
    if (!rc) {
        open_cache(c, a);
        rc = execute(c, a);
        if (rc == UP_EIO) /* only the journal fails so */
            return unsaved(c, a);
    }
    if (close_journal(c) && !rc)
        rc = c->err.code;
    if (rc == UP_EINTR && c->batch_id.len)
        up_error_set(&c->err, UP_EINTR,
                     "interrupted; finished work is saved: resume with "
                     "--resume %s",
                     c->batch_id.data);
    if (!rc) {
        up_eval_grade(&c->plan);
        rc = judge(c, a);
    }
    if (!rc && c->batch_dir.len)
        rc = write_runs(c);
    return rc ? rc : report(c, a);
}

int eval_cli_run(struct eval_args *a)
{
    struct ctx c;
    int rc;

    memset(&c, 0, sizeof(c));
    up_config_init(&c.cfg);
    up_skill_init(&c.skill);
    up_suite_init(&c.suite);
    up_buf_init(&c.batch_dir);
    up_buf_init(&c.batch_id);
    up_journal_init(&c.journal);
    rc = pipeline(&c, a);
    if (rc < 0)
        rc = out_fail(&c.err);
    if (c.plan.jobs)
        up_eval_plan_release(&c.plan);
    for (size_t i = 0; i < c.nmodels; i++) {
        up_strv_free(c.headers[i]);
        up_model_release(&c.models[i]);
    }
    free(c.models);
    free(c.eps);
    free(c.headers);
    close_journal(&c);
    up_cache_close(c.cache);
    up_buf_release(&c.batch_dir);
    up_buf_release(&c.batch_id);
    up_suite_release(&c.suite);
    up_skill_release(&c.skill);
    up_config_release(&c.cfg);
    return rc;
}
