/*
 * Running an eval plan through the scheduler: one conversation per job
 * that is not done yet, each finished job journalled as it lands.
 */
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "upskill/agent_cli_run.h"
#include "upskill/alloc.h"
#include "upskill/eval.h"
#include "upskill/fs.h"

int up_eval_endpoint(up_endpoint *ep, char ***headers, const up_model *m,
                     const up_config *cfg, up_error *err)
{
    const char *key =
        m->api_key_env && cfg ? up_config_getenv(cfg, m->api_key_env) : NULL;
    char **h = up_xcalloc(m->nheaders + 1, sizeof(*h));

    up_endpoint_init_for(ep, (int)m->provider);
    for (size_t i = 0; i < m->nheaders; i++) {
        up_buf b = UP_BUF_INIT;

        up_buf_addf(&b, "%s: %s", m->headers[i].name, m->headers[i].value);
        h[i] = up_buf_detach(&b);
    }
    ep->base_url = m->base_url;
    ep->api_key = key && *key ? key : NULL;
    ep->headers = (const char *const *)h;
    ep->model = m->model_id;
    ep->effort = m->effort_value;
    ep->connect_timeout_ms = m->connect_timeout_ms;
    ep->total_timeout_ms = m->timeout_ms;
    ep->idle_timeout_ms = m->idle_timeout_ms;
    ep->first_byte_ms = m->first_byte_ms;
    ep->max_tokens = m->max_tokens;
    ep->stream = 1;
    *headers = h;
    if (!up_header_value_ok(key))
        return up_error_set(err, UP_EPARSE,
                            "'%s': the key in this variable contains a "
                            "control character (a line break?); nothing was "
                            "sent",
                            m->api_key_env);
    if (!ep->api_key && m->key_required)
        return up_error_set(err, UP_EAUTH, "no API key for '%s': set %s",
                            m->resolved, m->api_key_env);
    return 0;
}

struct run {
    up_eval_plan *plan;
    const up_eval_run_opts *o;
    size_t *index;    /* sched job i -> plan job index[i] */
    char (*keys)[65]; /* sched job i's cache key (with a cache) */
    up_request *rq;   /* one request per job not done */
    up_message *msg;  /* its one user message */
    size_t done;
    int journal_rc;
    up_error journal_err;
    volatile sig_atomic_t *stop; /* raised when the journal fails */
    /* agent mode: per sched job its conversation, its start error */
    up_agent **agents;
    up_error **start_err; /* NULL, or set (owned) when a start failed: an
                             up_error is 1 KiB, too much for each job of a
                             large run */
    char *agent_sys[2];   /* agent-mode system prompt per arm */
    char **agent_user;    /* agent-mode user message per case, lazily */
    up_agent **held;      /* per sched job: kept for its checks, or NULL */
};

/* Record res (the provider's answer or the cache's) in plan job j; 0
 * when the stop flag kept it from running (it stays to do). */
static int record(up_eval_job *j, const up_eval_run_opts *o,
                  const up_response *res, int cached, up_eval_plan *p)
{
    if (res->code == UP_EINTR)
        return 0;
    j->done = 1;
    j->from_cache = cached;
    j->usage = res->usage;
    j->latency_ms = (double)res->latency_ms;
    j->attempts = res->attempts;
    j->error = res->code;
    j->cut_at = up_response_cut_at(res, &o->endpoints[j->model]);
    if (res->code && res->usage.estimated)
        memset(&j->usage, 0, sizeof(j->usage)); /* nothing was answered */
    if (res->code)
        j->error_msg = up_xstrdup(res->err.msg);
    else
        up_eval_keep_answer(p, j, res->text ? res->text : "",
                            res->text ? strlen(res->text) : 0);
    if (j->usage.estimated && !j->usage.output)
        j->usage.output = up_eval_estimate_tokens(res->text);
    return 1;
}

/* A recorded job lands: graded, counted, journalled. */
static void land(struct run *r, up_eval_job *j)
{
    if (r->plan->asserts)
        up_eval_grade_job(r->plan, j);
    r->done++;
    if (r->o->journal && !r->journal_rc) {
        r->journal_rc =
            up_journal_append(r->o->journal, r->plan, j, &r->journal_err);
        /* Nothing more could be saved: send no more (what is running
         * still lands in memory and in the summary). */
        if (r->journal_rc && !*r->stop)
            *r->stop = 1;
    }
}

/* Record and land res as plan job j; 0 when it stays to do. */
static int finish(struct run *r, up_eval_job *j, const up_response *res,
                  int cached)
{
    if (!record(j, r->o, res, cached, r->plan))
        return 0;
    land(r, j);
    return 1;
}

/* The case artifact's parts of an agent job: its tool table, a snapshot
 * of its workspace and its transcript, taken before the workspace goes. */
static void take_artifact(up_eval_agent_job *x, up_agent *a)
{
    const up_workspace *ws = up_agent_workspace(a);
    up_buf b = UP_BUF_INIT;

    up_workspace_stats_json(ws, &b);
    x->tools_json = json_loadb(b.data, b.len, 0, NULL);
    up_buf_reset(&b);
    up_workspace_snapshot(ws, UP_EVAL_SNAPSHOT_FILE, UP_EVAL_SNAPSHOT_TOTAL,
                          &b);
    x->workspace_json = json_loadb(b.data, b.len, 0, NULL);
    up_buf_release(&b);
    x->transcript = up_agent_transcript(a, UP_EVAL_TRANSCRIPT_TEXT);
}

/* An agent job's outcome into j and res (the answer, the summed usage),
 * with the artifact's parts when artifacts; the workspace stays on j
 * until the grading is done. */
static void take_agent(up_eval_job *j, up_agent *a, up_response *res,
                       int artifacts)
{
    const up_workspace *ws = up_agent_workspace(a);
    up_eval_agent_job *x = up_eval_job_agent(j);
    up_agent_outcome oc;

    if (res->code)
        up_agent_failed(a, res);
    up_agent_outcome_get(a, &oc);
    free(res->text);
    res->text = up_xstrdup(oc.answer);
    res->usage = oc.usage;
    res->truncated = oc.truncated;
    j->agent = 1;
    x->limit = oc.limit && !res->code ? up_xstrdup(oc.limit) : NULL;
    x->turns = oc.turns;
    x->tool_calls = oc.tool_calls;
    x->tool_errors = oc.tool_errors;
    x->llm_ms = oc.llm_ms;
    x->tool_ms = oc.tool_ms;
    x->skill_read = ws->skill_dir ? ws->skill_read : -1;
    x->refs_read = (int)ws->nrefs_read;
    memcpy(x->tool_stat, ws->stat, sizeof(x->tool_stat));
    if (artifacts)
        take_artifact(x, a);
    j->workspace = ws;
}

/* An agent job landed: grade it with its workspace, then free both. */
static void agent_done(struct run *r, size_t i, up_response *res)
{
    up_eval_job *j = &r->plan->jobs[r->index[i]];
    up_agent *a = r->agents[i];

    r->agents[i] = NULL;
    if (!a && !res->code) {
        const up_error *e = r->start_err[i];

        res->code = e && e->code ? e->code : UP_EIO;
        if (e)
            res->err = *e;
    } else if (a && res->code != UP_EINTR)
        take_agent(j, a, res, r->o->artifacts);
    if (a && !res->code && up_eval_job_has_checks(r->plan, j) &&
        record(j, r->o, res, 0, r->plan)) {
        r->held[i] = a; /* its checks run after the pass (land_held) */
        return;
    }
    if (finish(r, j, res, 0) && r->o->progress)
        r->o->progress(r->o->progress_ud, r->plan, r->done, j);
    j->workspace = NULL;
    up_agent_free(a);
}

static void requeue(up_eval_plan *p, up_eval_job *j);

/* Run the checks of the conversations held for them, off the event loop,
 * then land each and free its workspace.  Interrupted (or the journal
 * failed), no check runs: the conversations stay to do (--resume). */
static void land_held(struct run *r, size_t n)
{
    up_eval_job **jobs = up_xcalloc(n + 1, sizeof(*jobs));
    size_t k = 0;

    for (size_t i = 0; *r->stop && i < n; i++) {
        if (!r->held[i])
            continue;
        r->plan->jobs[r->index[i]].workspace = NULL;
        requeue(r->plan, &r->plan->jobs[r->index[i]]);
        up_agent_free(r->held[i]);
        r->held[i] = NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (r->held[i])
            jobs[k++] = &r->plan->jobs[r->index[i]];
    up_eval_run_checks(r->plan, jobs, k);
    for (size_t i = 0, h = 0; i < n; i++) {
        if (!r->held[i])
            continue;
        land(r, jobs[h]);
        if (r->o->progress)
            r->o->progress(r->o->progress_ud, r->plan, r->done, jobs[h]);
        jobs[h++]->workspace = NULL;
        up_agent_free(r->held[i]);
        r->held[i] = NULL;
    }
    free(jobs);
}

/* The scheduler's multi-turn hook: start the conversation (res NULL), take
 * a turn and hand back the next request, or (res NULL, the conversation
 * parked in a `run` call) pick it up again. */
static const up_request *agent_next(void *ud, size_t i, up_response *res)
{
    struct run *r = ud;
    up_eval_plan *p = r->plan;
    up_eval_job *j = &p->jobs[r->index[i]];
    const up_case *c = &p->suite->cases[j->kase];
    up_error e = {0};

    if (res)
        return up_agent_next(r->agents[i], res);
    if (r->agents[i])
        return up_agent_resume(r->agents[i]);
    if (!r->agent_user[j->kase])
        r->agent_user[j->kase] = up_agent_user(c);
    if (up_agent_new(&r->agents[i], &p->agent_opts, c,
                     up_eval_arm_skill(p, j->arm), r->agent_sys[j->arm],
                     r->agent_user[j->kase], &e)) {
        free(r->start_err[i]);
        r->start_err[i] = up_xmalloc(sizeof(e));
        *r->start_err[i] = e;
        return NULL;
    }
    return up_agent_first(r->agents[i]);
}

/* A coding-agent CLI job landed (agent_cli_run.c): record it like any. */
static void cli_landed(void *ud, up_eval_job *j, up_response *res)
{
    struct run *r = ud;

    if (finish(r, j, res, 0) && r->o->progress)
        r->o->progress(r->o->progress_ud, r->plan, r->done, j);
}

/* An arm's agent-mode system prompt; it mentions run when offered. */
static char *agent_system(const up_eval_plan *p, const up_skill *skill)
{
    char *sys = up_agent_system(skill, p->agent_inject);
    up_buf b = UP_BUF_INIT;

    if (!p->agent_opts.run_tool)
        return sys;
    up_buf_adds(&b, sys);
    up_buf_adds(&b, UP_AGENT_RUN_PROMPT);
    free(sys);
    return up_buf_detach(&b);
}

/* The scheduler's wait hook: a parked conversation's fds. */
static int agent_wait(void *ud, size_t i, int *fds, int max, int *timeout_ms)
{
    struct run *r = ud;

    *timeout_ms = 0;
    return r->agents[i] ? up_agent_wait(r->agents[i], fds, max, timeout_ms) : 0;
}

static void on_done(void *ud, size_t i, up_response *res)
{
    struct run *r = ud;

    if (up_eval_job_is_agent(r->plan, &r->plan->jobs[r->index[i]])) {
        agent_done(r, i, res); /* never cached: see docs/cache.md */
        return;
    }

    /* A failed put costs a later re-run, never this one's result. */
    if (r->o->cache && !res->code)
        up_cache_put(r->o->cache, r->keys[i], res);
    if (finish(r, &r->plan->jobs[r->index[i]], res, 0) && r->o->progress)
        r->o->progress(r->o->progress_ud, r->plan, r->done,
                       &r->plan->jobs[r->index[i]]);
}

/* Build plan job i's request in slot n; 1 when the cache answered it. */
static int prepare(struct run *r, size_t i, size_t n)
{
    up_eval_plan *p = r->plan;
    up_eval_job *j = &p->jobs[i];
    up_response res;
    int hit;

    r->msg[n].role = "user";
    r->msg[n].content = p->user[j->kase];
    up_request_init(&r->rq[n]);
    r->rq[n].system = up_eval_system(p, j);
    r->rq[n].messages = &r->msg[n];
    r->rq[n].n_messages = 1;
    if (!r->o->cache || up_eval_job_is_agent(p, j))
        return 0;
    up_cache_key(r->keys[n], &r->o->endpoints[j->model], &r->rq[n], j->repeat);
    hit = up_cache_get(r->o->cache, r->keys[n], &res);
    if (hit)
        hit = finish(r, j, &res, 1);
    up_response_release(&res);
    return hit;
}

static int transient(int code)
{
    return code == UP_ERATELIMIT || code == UP_ESERVER || code == UP_ENETWORK ||
           code == UP_ETIMEOUT;
}

/* A transient failure worth another pass: not on a tripped endpoint. */
static int retry_worthy(const up_eval_run_opts *o, const up_eval_job *j)
{
    return j->done && transient(j->error) &&
           !up_breaker_tripped(o->sched.breaker, &o->endpoints[j->model]);
}

/* Forget a transient failure so the job runs again. */
static void requeue(up_eval_plan *p, up_eval_job *j)
{
    up_eval_job_agent_free(j);
    if (j->results)
        up_assert_results_free(j->results, p->asserts[j->kase].n);
    j->results = NULL;
    free(j->error_msg);
    j->error_msg = NULL;
    j->error = 0;
    j->done = 0;
}

/* A job restored by --resume (done, never run as a loop here) whose case
 * grades a workspace: the journal kept its answer, not its files. */
static int restored_workspace_job(const up_eval_plan *p, const up_eval_job *j)
{
    return j->done && !j->agent && !j->error &&
           up_case_needs_workspace(&p->suite->cases[j->kase]);
}

/* One pass over the jobs that are not done.  The journal's failure
 * raises the stop flag (the caller's, else one of this pass) and wins
 * over the UP_EINTR that follows. */
static int run_pass(up_eval_plan *p, const up_eval_run_opts *o,
                    up_sched_stats *stats, up_error *err)
{
    volatile sig_atomic_t own_stop = 0;
    up_sched_opts so = o->sched;
    struct run r = {p,
                    o,
                    up_xcalloc(p->njobs, sizeof(size_t)),
                    o->cache ? up_xcalloc(p->njobs, sizeof(*r.keys)) : NULL,
                    up_xcalloc(p->njobs, sizeof(up_request)),
                    up_xcalloc(p->njobs, sizeof(up_message)),
                    0,
                    0,
                    {0},
                    so.stop ? so.stop : &own_stop,
                    up_xcalloc(p->njobs, sizeof(up_agent *)),
                    up_xcalloc(p->njobs, sizeof(up_error *)),
                    {agent_system(p, p->skill_base), agent_system(p, p->skill)},
                    up_xcalloc(p->suite->ncases + 1, sizeof(char *)),
                    up_xcalloc(p->njobs + 1, sizeof(up_agent *))};
    up_job *jobs = up_xcalloc(p->njobs, sizeof(*jobs));
    size_t *cli = up_xcalloc(p->njobs + 1, sizeof(*cli)); /* CLI jobs */
    size_t n = 0, ncli = 0;
    int rc;

    so.stop = r.stop;
    for (size_t i = 0; i < p->njobs; i++) {
        if (restored_workspace_job(p, &p->jobs[i]))
            requeue(p, &p->jobs[i]); /* its workspace is gone: run again */
        if (p->jobs[i].done) {
            r.done++; /* restored or cached: counts in the totals */
            if (p->asserts)
                up_eval_grade_job(p, &p->jobs[i]);
        } else if (up_cli_spec_of(p->models[p->jobs[i].model])) {
            cli[ncli++] = i; /* run below, by the CLI runner */
        } else if (!r.journal_rc && !prepare(&r, i, n)) {
            int agent = up_eval_job_is_agent(p, &p->jobs[i]);

            jobs[n] = (up_job){&o->endpoints[p->jobs[i].model],
                               agent ? NULL : &r.rq[n],
                               on_done,
                               &r,
                               agent ? agent_next : NULL,
                               agent ? agent_wait : NULL};
            r.index[n++] = i;
        }
    }
    if (r.done && o->progress)
        o->progress(o->progress_ud, p, r.done, NULL);
    rc = n && !r.journal_rc ? up_sched_run(jobs, n, &so, stats, err) : 0;
    land_held(&r, n);
    if (!rc && ncli && !r.journal_rc)
        rc = up_cli_eval_run(p, o->endpoints, cli, ncli, so.jobs, r.stop,
                             cli_landed, &r, err);
    free(cli);
    if (r.journal_rc) {
        *err = r.journal_err;
        rc = r.journal_rc;
    }
    free(r.index);
    free(r.keys);
    free(r.rq);
    free(r.msg);
    free(jobs);
    free(r.agents);
    for (size_t i = 0; i < n; i++)
        free(r.start_err[i]);
    free(r.start_err);
    free(r.agent_sys[0]);
    free(r.agent_sys[1]);
    for (size_t k = 0; k < p->suite->ncases; k++)
        free(r.agent_user[k]);
    free(r.agent_user);
    free(r.held);
    return rc;
}

/* The passes, with one breaker for all of them (o->sched.breaker set). */
static int execute(up_eval_plan *p, const up_eval_run_opts *o,
                   up_sched_stats *stats, up_error *err)
{
    int rc = run_pass(p, o, stats, err);

    /* A conversation that still failed transiently after the provider's
     * own retries goes round again, after the rest of the batch. */
    for (int round = 0; !rc && round < UP_EVAL_REQUEUE_ROUNDS; round++) {
        size_t again = 0;
        size_t ok = 0;

        if (o->sched.stop && *o->sched.stop)
            break;
        for (size_t i = 0; i < p->njobs; i++)
            ok += p->jobs[i].done && !p->jobs[i].error;
        if (!ok)
            break; /* nothing got through: the endpoint is down, not flaky */
        for (size_t i = 0; i < p->njobs; i++)
            if (retry_worthy(o, &p->jobs[i])) {
                requeue(p, &p->jobs[i]);
                again++;
            }
        if (!again)
            break;
        rc = run_pass(p, o, stats, err);
    }
    if (!rc && o->sched.stop && *o->sched.stop)
        rc = up_error_set(err, UP_EINTR, "interrupted");
    return rc;
}

/* 1 when some job of p runs as a tool loop. */
static int has_agent_jobs(const up_eval_plan *p)
{
    for (size_t i = 0; i < p->njobs; i++)
        if (up_eval_job_is_agent(p, &p->jobs[i]))
            return 1;
    return 0;
}

/*
 * Where the workspaces go: $TMPDIR when set, else /dev/shm when it is a
 * folder we may write (a tmpfs: on ext4, making and removing thousands
 * of small folders spent half an agent run's CPU in the inode allocator,
 * see bench/README.md), else /tmp.
 */
static const char *workspace_root(void)
{
    const char *tmp = getenv("TMPDIR");

    if (tmp && *tmp)
        return tmp;
    return up_fs_is_dir("/dev/shm") && access("/dev/shm", W_OK | X_OK) == 0
               ? "/dev/shm"
               : "/tmp";
}

/* The run's private folder of workspaces ("upskill-run-XXXXXX", 0700,
 * under workspace_root) into dir; 0 when it could not be made (each
 * workspace then goes under $TMPDIR itself, as private). */
static int private_parent(up_buf *dir)
{
    up_fs_join(dir, workspace_root(), "upskill-run-XXXXXX");
    return mkdtemp(dir->data) != NULL;
}

int up_eval_execute(up_eval_plan *p, const up_eval_run_opts *o,
                    up_sched_stats *stats, up_error *err)
{
    up_eval_run_opts o2 = *o;
    up_breaker br;
    up_buf dir = UP_BUF_INIT;
    int made = 0, rc;

    rc = up_eval_checks_sandbox(p, err);
    if (rc)
        return rc;

    up_breaker_init(&br, up_breaker_threshold(o->sched.jobs));
    if (!o2.sched.breaker)
        o2.sched.breaker = &br;
    if (!p->agent_opts.parent && has_agent_jobs(p) && private_parent(&dir)) {
        made = 1;
        p->agent_opts.parent = dir.data;
    }
    rc = execute(p, &o2, stats, err);
    if (made) { /* every workspace in it was removed as its job landed */
        rmdir(dir.data);
        p->agent_opts.parent = NULL;
    }
    up_buf_release(&dir);
    up_breaker_release(&br);
    return rc;
}

size_t up_eval_answered(const up_eval_plan *p, size_t m,
                        const up_eval_job **first_error)
{
    size_t n = 0;

    if (first_error)
        *first_error = NULL;
    for (size_t i = 0; i < p->njobs; i++) {
        const up_eval_job *j = &p->jobs[i];

        if (j->model != m || !j->done)
            continue;
        n += !j->error;
        if (j->error && first_error && !*first_error)
            *first_error = j;
    }
    return n;
}

int up_eval_unanswered(const up_eval_plan *p, size_t m, up_error *err)
{
    const up_eval_job *first;
    size_t failed = 0;
    int code;

    if (up_eval_answered(p, m, &first) || !first)
        return 0;
    for (size_t i = 0; i < p->njobs; i++)
        failed += p->jobs[i].model == m && p->jobs[i].error;
    code = up_exit_code(first->error) == 4 ? first->error : UP_EHTTP;
    return up_error_set(err, code,
                        "'%s': no conversation was answered (%zu failed): "
                        "%.800s",
                        p->models[m], failed,
                        first->error_msg ? first->error_msg
                                         : up_strerror(first->error));
}

void up_eval_run_error(up_run_record *r, const up_eval_plan *p, size_t m,
                       int repeat, enum up_arm arm)
{
    const up_eval_job *first = NULL;
    size_t failed = 0, total = 0;
    up_buf b = UP_BUF_INIT;

    for (size_t i = 0; i < p->njobs; i++) {
        const up_eval_job *j = &p->jobs[i];

        if (j->model != m || j->repeat != repeat || j->arm != arm)
            continue;
        total++;
        failed += j->error != 0;
        if (j->error && !first)
            first = j;
    }
    if (!first)
        return;
    up_buf_addf(
        &b, "%zu of %zu conversation(s) failed; the first: %s", failed, total,
        first->error_msg ? first->error_msg : up_strerror(first->error));
    free(r->error_message);
    r->error_message = up_buf_detach(&b);
}

struct judging {
    up_eval_plan *plan;
    up_assert_result **slot; /* sched job i -> the result it settles */
};

static void on_judged(void *ud, size_t i, up_response *res)
{
    struct judging *jg = ud;
    up_assert_result *r = jg->slot[i];
    up_usage *u = &jg->plan->judge_usage;

    jg->plan->judge_calls++;
    u->input += res->usage.input;
    u->output += res->usage.output;
    u->cached += res->usage.cached;
    u->reasoning += res->usage.reasoning;
    if (res->code) {
        r->status = UP_ASSERT_FAIL;
        up_buf_reset(&r->message);
        up_buf_addf(&r->message, "judge error: %s", res->err.msg);
        return;
    }
    up_assert_result_judge(r, res->text ? res->text : "", NULL);
}

int up_eval_judge(up_eval_plan *p, const up_endpoint *judge,
                  const up_sched_opts *o, up_error *err)
{
    size_t n = up_eval_pending_judgements(p), k = 0;
    struct judging jg = {p, up_xcalloc(n + 1, sizeof(*jg.slot))};
    up_job *jobs = up_xcalloc(n + 1, sizeof(*jobs));
    up_request *rq = up_xcalloc(n + 1, sizeof(*rq));
    up_message *msg = up_xcalloc(n + 1, sizeof(*msg));
    up_sched_stats st;
    int rc = 0;

    for (size_t i = 0; i < p->njobs; i++) {
        up_eval_job *j = &p->jobs[i];

        for (size_t a = 0; j->results && !j->error && a < p->asserts[j->kase].n;
             a++) {
            if (j->results[a].status != UP_ASSERT_PENDING)
                continue;
            msg[k] = (up_message){"user", j->results[a].judge_prompt.data};
            up_request_init(&rq[k]);
            rq[k].messages = &msg[k];
            rq[k].n_messages = 1;
            jobs[k] = (up_job){judge, &rq[k], on_judged, &jg, NULL, NULL};
            jg.slot[k++] = &j->results[a];
        }
    }
    if (k)
        rc = up_sched_run(jobs, k, o, &st, err);
    up_eval_grade(p);
    free(jg.slot);
    free(jobs);
    free(rq);
    free(msg);
    return rc;
}
