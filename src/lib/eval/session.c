/*
 * The evaluation session (upskill/session.h): targets, defaults, the run
 * log's batch with its journal, the cache and the executor.  The judge
 * and the run log's records are in session_log.c.
 *
 * Invariant: a target's endpoint points into its own model and header
 * lines, so the targets array never moves once the session executes;
 * up_session_add_target is for set-up only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config/config_lib.h"
#include "lib/store/store_lib.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/session.h"

#include "lib/eval/session_int.h"

void up_session_opts_init(up_session_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->max_turns = UP_AGENT_MAX_TURNS;
    o->agent_inject = UP_INJECT_CATALOG;
}

/* --inject's values and what each stands for in chat and in agent mode
 * (-1: refused there, docs/agent-mode.md). */
static const struct inject_row {
    const char *name;
    int chat, agent; /* enum up_inject, or -1 */
} injects[] = {
    {"upskill", UP_INJECT_UPSKILL, UP_INJECT_UPSKILL},
    {"agentskills", UP_INJECT_AGENTSKILLS, UP_INJECT_AGENTSKILLS},
    {"catalog", -1, UP_INJECT_CATALOG},
    {"preload", -1, UP_INJECT_UPSKILL},
};

static const struct inject_row *inject_find(const char *inject)
{
    for (size_t i = 0; inject && i < sizeof(injects) / sizeof(injects[0]); i++)
        if (!strcmp(inject, injects[i].name))
            return &injects[i];
    return NULL;
}

int up_session_inject_ok(const char *inject, int agent)
{
    const struct inject_row *r = inject_find(inject);

    return r && (agent ? r->agent : r->chat) >= 0;
}

enum up_inject up_session_chat_inject(const char *inject)
{
    const struct inject_row *r = inject_find(inject);

    return r && r->chat >= 0 ? (enum up_inject)r->chat : UP_INJECT_UPSKILL;
}

void up_session_agent_opts(up_session_opts *o, int agent, const char *inject,
                           long max_turns, long token_budget, long wall_ms)
{
    const struct inject_row *r = inject_find(inject);

    o->agent = agent;
    o->agent_inject = r ? (enum up_inject)r->agent : UP_INJECT_CATALOG;
    o->max_turns = max_turns > 0 ? (int)max_turns : UP_AGENT_MAX_TURNS;
    o->token_budget = token_budget > 0 ? token_budget : 0;
    o->wall_ms = wall_ms > 0 ? wall_ms : 0;
}

int up_session_run_opts(up_session_opts *o, int run_tool, const char *sandbox,
                        up_error *err)
{
    if (sandbox && strcmp(sandbox, "bwrap") && strcmp(sandbox, "none"))
        return up_error_set(err, UP_EUSAGE,
                            "--sandbox must be 'bwrap' or 'none', not '%s'",
                            sandbox);
    o->run_tool = run_tool;
    o->agent |= run_tool;
    o->sandbox = sandbox && !strcmp(sandbox, "none") ? UP_SANDBOX_NONE
                                                     : UP_SANDBOX_BWRAP;
    return 0;
}

int up_session_check_sandbox(up_session *s, up_error *err)
{
    if (!s->o.run_tool)
        return 0;
    if (s->o.sandbox == UP_SANDBOX_NONE) {
        session_note(s, UP_SESSION_WARN,
                     "--sandbox none: the run tool runs the students' "
                     "commands without a sandbox, with your rights and "
                     "network, in each conversation's folder");
        s->unsandboxed = 1;
        return 0;
    }
    return up_sandbox_check(err);
}

/* The run tool's limits from the config's sandbox.* keys. */
static void run_limits(const up_config *cfg, up_sandbox_limits *l)
{
    up_sandbox_limits_default(l);
    l->cpu_s = (unsigned)cfg->sandbox_cpu_s.value;
    l->wall_ms = (unsigned)cfg->sandbox_wall_s.value * 1000u;
    l->mem_bytes = (size_t)cfg->sandbox_memory_mb.value << 20;
    l->mem_total = (size_t)cfg->sandbox_call_memory_mb.value << 20;
    l->fsize_bytes = (size_t)cfg->sandbox_file_size_mb.value << 20;
    l->nproc = (unsigned)cfg->sandbox_processes.value;
    l->out_cap = (size_t)cfg->sandbox_output_kb.value << 10;
}

/* 1 when a case of p's suite has an executable check (after prepare). */
static int plan_has_checks(const up_eval_plan *p)
{
    for (size_t c = 0; c < p->suite->ncases; c++)
        if (p->case_bits[c] & UP_EVAL_CASE_CHECKS)
            return 1;
    return 0;
}

/* The session's agent options into plan p. */
static void agent_plan(up_session *s, up_eval_plan *p)
{
    p->agent = s->o.agent;
    p->agent_inject = s->o.agent_inject;
    p->agent_opts.max_turns = s->o.max_turns;
    p->agent_opts.token_budget = s->o.token_budget;
    p->agent_opts.wall_ms = s->o.wall_ms;
    p->agent_opts.max_history = s->cfg->max_history_bytes.value;
    /* a suite with executable checks gets the run tool too (issue 12):
     * the students can build and test what the checks will */
    p->agent_opts.run_tool = s->o.run_tool || plan_has_checks(p);
    p->agent_opts.sandbox = s->o.sandbox;
    if (s->o.sandbox == UP_SANDBOX_NONE && p->agent_opts.run_tool &&
        !s->unsandboxed) { /* checks, without --run-tool: still say so */
        session_note(s, UP_SESSION_WARN,
                     "--sandbox none: the suite's command checks (and in "
                     "agent mode the students' run tool) run without a "
                     "sandbox, with your rights and network");
        s->unsandboxed = 1;
    }
    p->check_mode = (int)s->o.sandbox; /* the command checks' sandbox too */
    run_limits(s->cfg, &s->run_lim);
    p->agent_opts.run_limits = &s->run_lim;
    up_ws_limits_default(&s->ws_lim);
    s->ws_lim.quota_bytes = (size_t)s->cfg->workspace_max_bytes.value;
    s->ws_lim.quota_files = (size_t)s->cfg->workspace_max_files.value;
    p->agent_opts.limits = &s->ws_lim;
    p->agent_opts.work_dir = s->cfg->workspace_dir.value;
}

int up_session_jobs(long jobs, const up_config *cfg)
{
    if (jobs > 0)
        return (int)jobs;
    return cfg->concurrency.value > 0 ? (int)cfg->concurrency.value
                                      : UP_SESSION_JOBS;
}

const char *up_session_runs_dir(const char *dir, const up_config *cfg)
{
    if (dir)
        return dir;
    return cfg->runs_dir.value ? cfg->runs_dir.value : "runs";
}

void up_session_init(up_session *s, const up_session_opts *o,
                     const up_config *cfg)
{
    memset(s, 0, sizeof(*s));
    s->o = *o;
    s->cfg = cfg;
    session_settle(s);
    up_buf_init(&s->batch_dir);
    up_buf_init(&s->batch_id);
    up_journal_init(&s->journal);
}

void up_session_release(up_session *s)
{
    up_error err;

    if (!s->cfg) /* zeroed, never initialised */
        return;
    for (size_t i = 0; i < s->ntargets; i++) {
        up_strv_free(s->targets[i].headers);
        up_model_release(&s->targets[i].model);
        free(s->targets[i].no_key);
    }
    free(s->targets);
    session_stream_close(s);
    up_journal_close(&s->journal, &err);
    up_cache_close(s->cache);
    up_store_free(s->runs, s->nruns);
    up_buf_release(&s->batch_dir);
    up_buf_release(&s->batch_id);
    memset(s, 0, sizeof(*s));
}

int up_session_add_target(up_session *s, const char *spec, const char *base_url,
                          const char *api_key_env, size_t *index, up_error *err)
{
    up_target *t;
    int rc;

    s->targets =
        up_xrealloc(s->targets, (s->ntargets + 1) * sizeof(*s->targets));
    t = &s->targets[s->ntargets++];
    memset(t, 0, sizeof(*t));
    up_model_init(&t->model);
    if (index)
        *index = s->ntargets - 1;
    rc = up_model_resolve(&t->model, spec, base_url, api_key_env, s->cfg, err);
    if (!rc)
        rc = up_model_endpoint(&t->ep, &t->headers, &t->model, s->cfg, err);
    if (rc == UP_EAUTH && s->o.resume && !t->ep.api_key && err) {
        t->no_key = up_xstrdup(err->msg); /* up_session_open_batch */
        rc = 0;
    }
    return rc;
}

void up_session_plan_init(const up_session *s, up_eval_plan *p,
                          const up_skill *skill, const up_suite *suite,
                          const up_session_plan *sp)
{
    size_t n = sp->nmodels;
    const char **ids = up_xcalloc(n ? n : 1, sizeof(*ids));
    double margin =
        sp->margin >= 0 ? sp->margin : (double)s->cfg->margin_points.value;

    for (size_t i = 0; i < n && i < s->ntargets; i++)
        ids[i] = s->targets[i].model.resolved;
    up_eval_plan_init(p, skill, suite, ids, n, sp->runs, sp->baseline,
                      sp->inject);
    free(ids);
    p->margin = margin / 100;
    p->family = sp->family;
    p->seed = sp->seed;
    p->max_answer = (size_t)s->cfg->max_answer_bytes.value;
}

const up_price *up_session_price(const up_session *s, size_t m)
{
    return up_config_price(s->cfg, s->targets[m].model.resolved,
                           s->targets[m].model.model_id);
}

/* --resume: the lock first, as the checks and repairs are the holder's. */
static int resume_batch(up_session *s, up_eval_plan *p, up_error *err)
{
    int rc;

    up_buf_adds(&s->batch_id, s->o.resume);
    up_fs_join(&s->batch_dir, s->runs_dir, s->o.resume);
    if (!up_fs_is_dir(s->batch_dir.data))
        return up_error_set(err, UP_ENOTFOUND, "'%s': no such batch to resume",
                            s->batch_dir.data);
    rc = up_journal_open(&s->journal, s->batch_dir.data, err);
    if (!rc)
        rc = up_eval_batch_match(p, s->batch_dir.data, err);
    if (!rc)
        up_store_batch_clean(s->batch_dir.data);
    if (!rc)
        rc = up_journal_replay(p, s->batch_dir.data, &s->restored, err);
    for (size_t i = 0; !rc && i < s->ntargets; i++)
        if (s->targets[i].no_key && up_eval_plan_pending(p))
            rc = up_error_set(err, UP_EAUTH, "%s", s->targets[i].no_key);
    return rc;
}

static int new_batch(up_session *s, const up_eval_plan *p, up_error *err)
{
    int had = up_fs_is_dir(s->runs_dir);
    int rc = up_store_batch_new(&s->batch_dir, &s->batch_id, s->runs_dir, err);

    s->created_runs_dir = !rc && !had;
    if (!rc && s->o.journal)
        rc = up_journal_open(&s->journal, s->batch_dir.data, err);
    if (!rc && s->o.journal)
        rc = up_eval_batch_mark(p, s->batch_dir.data, err);
    return rc;
}

int up_session_open_batch(up_session *s, up_eval_plan *p, up_error *err)
{
    up_buf line = UP_BUF_INIT;
    int rc;

    if (p) /* the batch records (and a resume checks) the agent options */
        agent_plan(s, p);
    if (!s->o.resume && s->o.no_log)
        return 0;
    rc = s->o.resume ? resume_batch(s, p, err) : new_batch(s, p, err);
    if (!rc && s->o.resume)
        up_buf_addf(&line, "resuming %s: %zu of %zu jobs already done",
                    s->batch_id.data, s->restored, p->njobs);
    else if (!rc && s->created_runs_dir)
        up_buf_addf(&line, "created the runs folder '%s'", s->runs_dir);
    if (line.len)
        session_note(s, s->o.resume ? UP_SESSION_RESUMED : UP_SESSION_CREATED,
                     line.data);
    if (!rc)
        session_note(s, UP_SESSION_LOGGING, s->batch_dir.data);
    up_buf_release(&line);
    return rc;
}

int up_session_close_journal(up_session *s, up_error *err)
{
    return up_journal_close(&s->journal, err);
}

void up_session_open_cache(up_session *s)
{
    const up_config *c = s->cfg;
    up_error err;
    char msg[UP_ERROR_MAX + 64];

    if (s->cache || s->o.no_cache || !c->cache_enabled.value ||
        !c->cache_path.value)
        return;
    if (!up_cache_open(&s->cache, c->cache_path.value, c->cache_ttl_days.value,
                       (long)(c->cache_lock_timeout.value * 1000), &err))
        return;
    snprintf(msg, sizeof(msg), "%s; running without the response cache",
             err.msg);
    session_note(s, UP_SESSION_WARN, msg);
}

static void sched_warn(void *ud, const char *msg)
{
    session_note(ud, UP_SESSION_WARN, msg);
}

/* The scheduler options every run of the session shares. */
static void sched_opts(const up_session *s, up_sched_opts *o)
{
    up_sched_opts_init(o);
    o->jobs = s->jobs;
    o->stop = s->o.stop;
    o->cancel_at = s->o.cancel_at;
    o->log = s->o.log;
    o->log_ud = s->o.log_ud;
    o->waiting = s->o.waiting;
    o->waiting_ud = s->o.waiting_ud;
    o->warn = sched_warn;
    o->warn_ud = (void *)s;
}

static void cache_note(const up_session *s)
{
    char msg[1200];

    if (!up_cache_locked(s->cache))
        return;
    snprintf(msg, sizeof(msg),
             "'%s': the cache was locked by another process; the rest of "
             "the run went without it",
             s->cfg->cache_path.value);
    session_note(s, UP_SESSION_WARN, msg);
}

/* 0 when case c's own skills (a Harbor task's) fit in a workspace's
 * quota beside the case's seed files. */
static int case_skills_fit(const up_session *s, const up_case *c, up_error *err)
{
    size_t bytes = 0;
    int rc = 0;

    for (size_t k = 0; k < up_case_task_of(c)->nseed; k++)
        bytes += up_case_task_of(c)->seed[k].len;
    for (size_t k = 0; !rc && k < up_case_task_of(c)->nskills; k++)
        rc = up_workspace_skill_fits(&up_case_task_of(c)->skills[k], &s->ws_lim,
                                     bytes, up_case_task_of(c)->nseed, err);
    return rc;
}

/* 0 when the skill each job of the skill arm installs (p's, or its
 * case's own: a Harbor task's, beside the task's files) fits in a
 * workspace's quota: a skill too large fails before any request, not
 * once per conversation.  Each case is checked once, not once per
 * model and repeat (a check renders the skill). */
static int skill_fits(const up_session *s, const up_eval_plan *p, up_error *err)
{
    char *seen = up_xcalloc(p->suite->ncases + 1, 1);
    int rc = 0;

    for (size_t i = 0; !rc && p->skill && i < p->njobs; i++) {
        const up_eval_job *j = &p->jobs[i];
        const up_case *c = &p->suite->cases[j->kase];

        if (j->arm != UP_ARM_SKILL || !up_eval_job_is_agent(p, j) ||
            seen[j->kase])
            continue;
        seen[j->kase] = 1;
        if (!up_case_task_of(c)
                 ->nskills) { /* the arm's skill: the same for every case */
            rc = up_workspace_skill_fits(p->skill, &s->ws_lim, 0, 0, err);
            break;
        }
        rc = case_skills_fit(s, c, err);
    }
    free(seen);
    return rc;
}

int up_session_execute(up_session *s, up_eval_plan *p, up_sched_stats *st,
                       up_error *err)
{
    up_endpoint *eps = up_xcalloc(p->nmodels ? p->nmodels : 1, sizeof(*eps));
    up_eval_run_opts o;
    int rc;

    /* the executor takes an array of endpoints: views of the targets' */
    for (size_t i = 0; i < p->nmodels && i < s->ntargets; i++)
        eps[i] = s->targets[i].ep;
    memset(&o, 0, sizeof(o));
    o.endpoints = eps;
    sched_opts(s, &o.sched);
    o.journal = s->journal.path ? &s->journal : NULL;
    o.cache = s->cache;
    o.progress = s->o.progress;
    o.progress_ud = s->o.progress_ud;
    o.artifacts = s->batch_dir.len > 0;
    session_stream_hook(s, &o);
    agent_plan(s, p);
    rc = skill_fits(s, p, err);
    if (!rc)
        rc = up_eval_execute(p, &o, st, err);
    cache_note(s);
    free(eps);
    return rc;
}

void session_note(const up_session *s, enum up_session_note kind,
                  const char *text)
{
    if (s->o.note)
        s->o.note(s->o.note_ud, kind, text);
}

void session_settle(up_session *s)
{
    s->jobs = up_session_jobs(s->o.jobs, s->cfg);
    s->runs_dir = up_session_runs_dir(s->o.runs_dir, s->cfg);
}

void session_sched_opts(const up_session *s, up_sched_opts *o)
{
    sched_opts(s, o);
}
