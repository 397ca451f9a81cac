/*
 * `eval` and `benchmark`: check the arguments, hand them to the
 * evaluation session (upskill/session.h), render, gate.  The session
 * loads, resolves, plans, runs, grades, judges and logs; it prints
 * nothing, so its notes come back here (eval_note).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "eval_cli.h"

/* Without a TTY, runs of fewer conversations print no progress lines. */
#define PLAIN_PROGRESS_MIN 200

static volatile sig_atomic_t stop;

/* Ctrl-C: the first lets running jobs end, the second cancels them;
 * SIGTERM (a service manager, a timeout) cancels them at once.  Either
 * way the run ends as interrupted, its workspaces removed. */
static void on_sigint(int sig)
{
    stop += sig == SIGTERM ? 2 : 1;
}

/* --max-turns and --token-budget hold upskill's own tool loop; a
 * coding-agent CLI runs its own, so they are refused beside one, never
 * silently ignored. */
static int cli_limits(const struct eval_args *a, up_error *err)
{
    for (size_t m = 0; (a->max_turns || a->token_budget) && m < a->models.n;
         m++)
        if (up_harness_spec_of(a->models.v[m]))
            return up_error_set(err, UP_EUSAGE,
                                "'%s': %s limits upskill's own agent loop; a "
                                "coding-agent CLI runs its own and cannot be "
                                "held to it (use --time-limit, or leave the "
                                "option out)",
                                a->models.v[m],
                                a->max_turns ? "--max-turns"
                                             : "--token-budget");
    return 0;
}

/* --tasks: each task brings its tests. */
static int tasks_ok(const struct eval_args *a, up_error *err)
{
    if (a->tasks && a->tests)
        return up_error_set(err, UP_EUSAGE,
                            "--tasks brings each task's own tests: leave -t "
                            "out");
    return 0;
}

/* What the option table's ranges (opt.c) cannot say. */
static int check_args(const struct eval_args *a, up_error *err)
{
    up_session_opts o;

    if (cli_limits(a, err) || tasks_ok(a, err))
        return UP_EUSAGE;
    up_session_opts_init(&o);
    if (up_session_run_opts(&o, a->run_tool, a->sandbox, err))
        return UP_EUSAGE;
    if (a->inject && !up_session_inject_ok(a->inject, o.agent || a->agent))
        return up_error_set(err, UP_EUSAGE,
                            "--inject must be 'upskill' or 'agentskills', "
                            "or with --agent 'catalog' or 'preload'");
    if (a->resume && a->no_log)
        return up_error_set(err, UP_EUSAGE,
                            "--resume needs the run log (drop --no-log-runs)");
    if (a->aa && (a->agent || a->run_tool || a->tasks || a->nsweep > 1 ||
                  a->no_baseline || a->trigger || a->plan))
        return up_error_set(err, UP_EUSAGE,
                            "--aa runs chat mode with its baseline: not with "
                            "--agent, --run-tool, --tasks, --trigger, --plan, "
                            "--no-baseline or several skills");
    return 0;
}

void eval_cli_session_opts(up_session_opts *o, const struct eval_args *a)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    up_session_opts_init(o);
    o->jobs = a->jobs;
    o->runs_dir = a->runs_dir;
    o->resume = a->resume;
    o->no_log = a->no_log;
    o->journal = 1;
    o->no_cache = a->no_cache || a->aa; /* A/A: fresh repeats, never the
                                           baseline's cached answers */
    o->judge_model = a->judge_model;
    o->judge_base_url = a->base_url;
    o->judge_api_key_env = a->api_key_env;
    o->stop = &stop;
    o->note = eval_note;
    o->note_ud = (void *)a;
    o->waiting = eval_cli_wait_note;
    o->log = a->verbose ? eval_report_attempt : NULL;
    up_session_agent_opts(o, a->agent, a->inject, a->max_turns, a->token_budget,
                          a->time_limit * 1000);
    (void)up_session_run_opts(o, a->run_tool, a->sandbox, NULL); /* checked */
}

void eval_cli_request(up_eval_request *rq, const struct eval_args *a)
{
    memset(rq, 0, sizeof(*rq));
    rq->skill_path = a->skill_path;
    rq->tests = a->tests;
    rq->models = (const char *const *)a->models.v;
    rq->nmodels = a->models.n;
    rq->base_url = a->base_url;
    rq->api_key_env = a->api_key_env;
    rq->max_tokens = a->max_tokens;
    rq->runs = (int)a->runs;
    rq->baseline = !a->no_baseline;
    rq->inject = up_session_chat_inject(a->inject);
    rq->margin = a->margin;
    rq->family = a->family;
    rq->aa = a->aa;
    rq->gen_tests = !a->plan;
    rq->test_gen_model = a->test_gen_model;
    rq->no_save_tests = a->no_save_tests;
    rq->seed = a->seed;
    rq->tasks = a->tasks;
    rq->sound = a->tasks_check ? NULL : a->sound;
    rq->online_instructions = a->online;
    rq->sweep_paths = a->sweep;
    rq->nsweep = a->nsweep;
}

/* Progress: live on a TTY; plain lines for runs long enough to log. */
static void progress(up_eval_session *e, const struct eval_args *a,
                     struct eval_progress *pr)
{
    pr->tty = out_err_is_tty();
    pr->start = up_http_now_ms();
    if (!a->json && (pr->tty || e->plan.njobs >= PLAIN_PROGRESS_MIN)) {
        e->s.o.progress = eval_report_progress;
        e->s.o.progress_ud = pr;
    }
}

/* Warn when skill k quotes suite s (include/upskill/quote.h). */
static void quote_warn(const up_skill *k, const up_suite *s)
{
    up_quote *q;
    size_t n;
    up_buf b = UP_BUF_INIT;

    if (!k->name)
        return;
    up_quote_find(&q, &n, k, s);
    if (n) {
        up_quote_text(&b, q, n);
        out_warn("'%s' gives away %zu of its tests, which then measure "
                 "recall, not the skill: %s",
                 out_safe(k->name), n, out_safe(b.data));
    }
    up_buf_release(&b);
    up_quote_free(q, n);
}

static void quote_warn_all(const up_eval_session *e)
{
    if (!e->nsweep)
        quote_warn(&e->skill, &e->suite);
    for (size_t i = 0; i < e->nsweep; i++)
        quote_warn(&e->sweep[i].skill, &e->sweep[i].suite);
}

int eval_cli_session_run(up_eval_session *e, const struct eval_args *a,
                         up_error *err)
{
    struct eval_progress pr;
    up_eval_request rq;
    size_t npos = 0; /* --trigger: prompts that should trigger */
    int rc = check_args(a, err);

    eval_cli_request(&rq, a);
    memset(&pr, 0, sizeof(pr));
    if (!rc)
        rc = up_eval_shard_parse(a->shard, &rq.shard_index, &rq.shard_count,
                                 err);
    if (!rc)
        rc = up_eval_session_load(e, &rq, err);
    if (!rc)
        eval_loaded_line(a, &e->suite);
    if (!rc)
        quote_warn_all(e);
    if (!rc && a->plan)
        return eval_report_plan(&e->suite, a);
    if (!rc && a->trigger) { /* the skill arm on trigger prompts */
        rc = up_harness_trigger_suite(&e->suite, &npos, err);
        rq.baseline = 0;
    }
    if (!rc)
        rc = up_eval_session_start(e, &rq, err);
    if (!rc && !a->json && e->nsweep)
        eval_sweep_start(e);
    else if (!rc && !a->json)
        eval_report_start(e);
    if (!rc)
        rc = up_eval_session_open(e, err);
    if (!rc) {
        progress(e, a, &pr);
        rc = up_eval_session_run(e, err);
        if (rc == UP_EIO)
            return eval_outcome_unsaved(e, a, err);
    }
    if (rc)
        return rc;
    rc = eval_outcome(e, a, err);
    for (size_t m = 0; a->trigger && !a->json && m < e->plan.nmodels; m++) {
        up_buf b = UP_BUF_INIT;

        up_harness_trigger_text(&b, &e->plan, m, npos);
        printf("trigger: %s\n", out_safe(b.data));
        up_buf_release(&b);
    }
    return rc;
}

int eval_cli_need_paths(const struct cmd_spec *spec, const struct eval_args *a,
                        const char *skill_path)
{
    if (opt_need_path(spec, "SKILL_PATH", skill_path))
        return -1;
    return opt_need_path(spec, "-t/--tests", a->tests);
}

int eval_cli_family(struct eval_args *a, up_error *err)
{
    up_family_control fc = UP_FAMILY_FDR;

    if (a->family_control &&
        up_stats_family_parse(&fc, a->family_control, err)) {
        err->code = UP_EUSAGE;
        return UP_EUSAGE;
    }
    a->family = (int)fc;
    return 0;
}

int eval_cli_run(struct eval_args *a)
{
    up_eval_session e;
    up_session_opts o;
    up_error err = {0, ""};
    int rc;

    if (eval_cli_family(a, &err))
        return out_fail(&err);
    if (a->tasks && !a->sound)
        out_warn("soundness not checked: every runnable task is in the lift "
                 "figures (run --check --sound FILE, then --sound FILE; "
                 "docs/harbor.md)");
    if (a->inject && !strcmp(a->inject, "both"))
        return eval_inject_both(a);
    eval_cli_session_opts(&o, a);
    up_eval_session_init(&e, &o);
    rc = eval_cli_session_run(&e, a, &err);
    if (rc < 0)
        rc = out_fail(&err);
    up_eval_session_release(&e);
    return rc;
}
