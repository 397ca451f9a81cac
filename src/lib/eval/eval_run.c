/*
 * Running an eval plan through the scheduler: one conversation per job
 * that is not done yet, each finished job journalled as it lands.
 */
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "upskill/harness.h"
#include "upskill/alloc.h"
#include "upskill/model.h"
#include "upskill/eval.h"
#include "upskill/fs.h"
#include "lib/agent/workspace.h"
#include "lib/eval/eval_int.h"

/*
 * What one job in flight borrows to the scheduler (its up_job's ud): a
 * pass keeps as many as it has jobs out at once, about -j, reused as
 * jobs land, so its memory does not grow with the plan.  A job runs in
 * phases: its conversation (one request, an agent loop, or a
 * coding-agent CLI, parked on the process), then, when its case has
 * command checks, the checks one at a time, parked on each; then it
 * lands and its workspace goes.  So at most -j workspaces live at once.
 */
struct slot {
    struct run *r;
    size_t job;         /* the plan job it runs */
    up_request rq;      /* its request (chat mode) */
    up_message msg;     /* its one user message */
    up_agent *agent;    /* agent mode: its conversation, or NULL */
    eval_harness *cli;  /* a coding-agent CLI job: its conversation */
    int start_failed;   /* up_agent_new or the CLI's start failed, why in: */
    up_error start_err; /* set when start_failed */
    up_response *res;   /* the scheduler's response of this job */
    long t0;            /* when the job started (ms) */
    int taken;          /* the conversation's outcome is in the job */
    int recorded;       /* the conversation is over and recorded: */
    size_t check_at;    /* the next assertion to look at for a check */
    up_check_item item; /* the check under way */
    up_check_run *check;
    up_response own; /* a CLI job's response (it sends no request) */
    char *case_sys;  /* the system prompt of a case with its own skill */
    up_assert_result oracle; /* a reference job's solve.sh, run as a check */
    up_assert oracle_a;      /* its command (a copy of the run's, whose */
    up_buf oracle_cmd;       /* value is oracle_cmd) */
    struct slot *next;       /* in the free list */
};

struct run {
    up_eval_plan *plan;
    const up_eval_run_opts *o;
    size_t next;     /* the plan job the source looks at next (API) */
    size_t next_cli; /* and the next coding-agent CLI job */
    size_t clis;     /* CLI jobs in flight */
    size_t cli_cap;  /* the most CLI jobs in flight */
    size_t done;
    int journal_rc;
    up_error journal_err;
    volatile sig_atomic_t *stop; /* raised when the journal fails */
    struct slot *free;           /* slots not lent out */
    char *agent_sys[2];          /* agent-mode system prompt per arm */
    char **agent_user; /* agent-mode user message per case with files, lazily */
    up_assert_list oracle; /* the oracle's command (ORACLE_CMD) */
};

/* What the oracle runs, with the task's solution/ bound read-only at
 * ORACLE_DIR (docs/harbor.md). */
#define ORACLE_DIR "/solution"
#define ORACLE_CMD "bash " ORACLE_DIR "/solve.sh"

/* Record res (the provider's answer or the cache's) in plan job j; 0
 * when the stop flag kept it from running (it stays to do). */
static int record(up_eval_job *j, const up_eval_run_opts *o,
                  const up_response *res, int cached, up_eval_plan *p)
{
    up_usage u = res->usage;

    if (res->code == UP_EINTR)
        return 0;
    if (res->code && u.estimated)
        memset(&u, 0, sizeof(u)); /* nothing was answered */
    if (u.estimated && !u.output)
        u.output = up_eval_estimate_tokens(res->text);
    j->done = 1;
    j->from_cache = cached != 0;
    up_eval_job_set_usage(j, &u);
    j->latency_ms = up_eval_latency((double)res->latency_ms);
    j->attempts = up_eval_attempts(res->attempts);
    j->error = up_eval_error_code(res->code);
    j->cut_at = up_response_cut_at(res, &o->endpoints[j->model]);
    if (res->code)
        j->error_msg = up_xstrdup(res->err.msg);
    else
        up_eval_keep_answer(p, j, res->text ? res->text : "",
                            res->text ? strlen(res->text) : 0);
    if (res->not_utf8)
        up_eval_job_live_of(j)->not_utf8 = res->not_utf8;
    return 1;
}

/* A recorded job lands: graded, counted, journalled. */
static void land(struct run *r, up_eval_job *j)
{
    if (r->plan->prepared)
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
    res->not_utf8 = oc.not_utf8;
    j->agent = 1;
    x->limit = oc.limit && !res->code ? up_xstrdup(oc.limit) : NULL;
    x->turns = up_eval_count32(oc.turns);
    x->tool_calls = up_eval_count32(oc.tool_calls);
    x->tool_errors = up_eval_count32(oc.tool_errors);
    x->llm_ms = oc.llm_ms;
    x->skill_read = ws->skill_dir ? ws->skill_read > 0 : -1;
    x->refs_read = up_eval_count16(ws->nrefs_read);
    for (size_t i = 0; i < UP_TOOL_ROWS; i++)
        x->tool_count[i] =
            (up_eval_tool_count){up_eval_count32(ws->stat[i].calls),
                                 up_eval_count32(ws->stat[i].errors)};
    if (artifacts)
        take_artifact(x, a);
    up_eval_job_set_workspace(j, ws);
}

static void requeue(up_eval_job *j);

/* 1 when plan job i is a coding-agent CLI's conversation. */
static int is_cli(const up_eval_plan *p, size_t i)
{
    return up_harness_spec_of(p->models[p->jobs[i].model]) != NULL;
}

/* Plan job i's reference student (oracle, null), or UP_REF_NONE. */
static enum up_ref_student ref_of(const up_eval_plan *p, size_t i)
{
    return up_model_reference(p->models[p->jobs[i].model]);
}

/* The folder the job's checks run in. */
static const char *job_ws(const struct slot *sl)
{
    if (sl->cli)
        return eval_harness_workspace(sl->cli);
    return sl->agent ? up_agent_workspace(sl->agent)->path : NULL;
}

/* Start the job's next check: 1 when one runs (the job parks on it), 0
 * when none is left. */
static int check_next(struct slot *sl)
{
    up_eval_plan *p = sl->r->plan;
    up_eval_job *j = &p->jobs[sl->job];

    while (up_eval_job_next_check(p, j, &sl->check_at, job_ws(sl), &sl->item)) {
        sl->check = up_check_start(&sl->item, (up_sandbox_mode)p->check_mode);
        if (sl->check)
            return 1;
    }
    return 0;
}

/* The check phase, resumed: parked while a check runs, NULL (the job is
 * over) once all ran.  The stop flag gives the rest up: the job stays
 * to do (--resume), as the answer alone cannot be graded. */
static const up_request *checks_resume(struct slot *sl)
{
    if (*sl->r->stop) {
        up_check_end(sl->check, 1);
        sl->check = NULL;
        requeue(&sl->r->plan->jobs[sl->job]);
        return NULL;
    }
    if (sl->check && !up_check_step(sl->check))
        return UP_JOB_PARKED;
    up_check_end(sl->check, 0);
    sl->check = NULL;
    return check_next(sl) ? UP_JOB_PARKED : NULL;
}

/* An agent job's outcome into j and res, once. */
static void take_conversation(struct slot *sl, up_response *res)
{
    up_eval_job *j = &sl->r->plan->jobs[sl->job];

    if (sl->taken)
        return;
    sl->taken = 1;
    if (sl->cli)
        eval_harness_take(sl->cli, sl->r->plan, j, res);
    else if (sl->agent)
        take_agent(j, sl->agent, res, sl->r->o->artifacts);
}

/* The conversation ended with res: when it answered and its case has
 * checks, record it and go on to them.  Returns what the job's next
 * hook gives: UP_JOB_PARKED on a check, or NULL (the job is over). */
static const up_request *over(struct slot *sl, up_response *res)
{
    struct run *r = sl->r;
    up_eval_job *j = &r->plan->jobs[sl->job];

    if (res->code || !up_eval_job_has_checks(r->plan, j) || *r->stop)
        return NULL;
    take_conversation(sl, res);
    res->latency_ms = up_http_now_ms() - sl->t0;
    if (res->code || !record(j, r->o, res, 0, r->plan))
        return NULL;
    sl->recorded = 1;
    return check_next(sl) ? UP_JOB_PARKED : NULL;
}

/* A job is over (done from the scheduler): record and land it, then let
 * go of its conversation and workspace. */
static void job_done(struct run *r, struct slot *sl, up_response *res)
{
    up_eval_job *j = &r->plan->jobs[sl->job];

    up_buf_release(&sl->oracle.message);
    up_buf_release(&sl->oracle.output);
    up_buf_release(&sl->oracle_cmd);
    if (sl->recorded) { /* recorded before its checks */
        if (res->code == UP_EINTR && j->done)
            requeue(j); /* cancelled during a check */
        if (j->done)
            land(r, j);
    } else {
        /* a start that failed: its message, not the bare code the
         * scheduler gives a job whose first request never came */
        if (!sl->agent && !sl->cli && (sl->start_failed || !res->code)) {
            const up_error *e = sl->start_failed ? &sl->start_err : NULL;

            res->code = e && e->code ? e->code : UP_EIO;
            if (e)
                res->err = *e;
        } else if (res->code != UP_EINTR) {
            take_conversation(sl, res);
        }
        if (!finish(r, j, res, 0))
            j = NULL;
    }
    if (j && j->done && r->o->progress)
        r->o->progress(r->o->progress_ud, r->plan, r->done, j);
    up_check_end(sl->check, 1);
    up_eval_job_set_workspace(&r->plan->jobs[sl->job], NULL);
    up_agent_free(sl->agent);
    free(sl->case_sys);
    sl->case_sys = NULL;
    eval_harness_free(sl->cli);
}

/* Case k's agent-mode user message: its input itself when it has no
 * files (the suite outlives the pass, so no copy a case), else the one
 * built for it on first use. */
static const char *agent_user(struct run *r, const up_case *c, size_t k)
{
    if (!c->nfiles)
        return c->input ? c->input : "";
    if (!r->agent_user[k])
        r->agent_user[k] = up_agent_user(c);
    return r->agent_user[k];
}

static char *agent_system(const up_eval_plan *p, const up_skill *skills,
                          size_t n);

/* The skill job sl installs: a case's own (a Harbor task's) in the skill
 * arm, with its system prompt made into sl->case_sys; else its arm's. */
static const up_skill *arm_skill(struct slot *sl, const up_case *c)
{
    const up_eval_plan *p = sl->r->plan;
    const up_eval_job *j = &p->jobs[sl->job];

    if (j->arm != UP_ARM_SKILL || !up_case_task_of(c)->nskills ||
        !up_eval_arm_skill(p, j->arm))
        return up_eval_arm_skill(p, j->arm);
    sl->case_sys = agent_system(p, up_case_task_of(c)->skills,
                                up_case_task_of(c)->nskills);
    return up_case_task_of(c)->skills;
}

/* The agent conversation's next request, or over() when it ended. */
static const up_request *agent_go(struct slot *sl, const up_request *rq)
{
    return rq ? rq : over(sl, sl->res);
}

/* The scheduler's multi-turn hook: start the conversation (res NULL), take
 * a turn and hand back the next request, or (res NULL, the conversation
 * parked in a `run` call or a check) pick it up again. */
/* A tool-loop job's start: its clock, then its agent (workspace, skill,
 * system prompt) for the job's arm; 0, or -1 (start_failed set) when
 * the agent cannot start. */
static int agent_start(struct slot *sl)
{
    struct run *r = sl->r;
    up_eval_plan *p = r->plan;
    up_eval_job *j = &p->jobs[sl->job];
    const up_case *c = &p->suite->cases[j->kase];
    const up_skill *skill;

    sl->t0 = up_http_now_ms();
    skill = arm_skill(sl, c); /* sets case_sys first */
    if (up_agent_new(&sl->agent, &p->agent_opts, c, skill,
                     sl->case_sys ? sl->case_sys : r->agent_sys[j->arm],
                     agent_user(r, c, j->kase), &sl->start_err)) {
        sl->start_failed = 1;
        return -1;
    }
    return 0;
}

static const up_request *agent_next(void *ud, size_t i, up_response *res)
{
    struct slot *sl = ud;

    (void)i;
    if (sl->recorded)
        return checks_resume(sl);
    if (res) {
        sl->res = res; /* the job's one response, kept by the scheduler */
        return agent_go(sl, up_agent_next(sl->agent, res));
    }
    if (sl->agent)
        return agent_go(sl, up_agent_resume(sl->agent));
    return agent_start(sl) ? NULL : up_agent_first(sl->agent);
}

/* A coding-agent CLI job's hook: start the CLI (first call), then, parked
 * on its pipes and its model proxy, step it until it ends, handing the
 * scheduler each request the CLI sends its model (res: the reply to the
 * last one); then its checks.  A CLI that
 * cannot start ends at once with the reason. */
static const up_request *cli_next(void *ud, size_t i, up_response *res)
{
    struct slot *sl = ud;
    struct run *r = sl->r;
    up_eval_plan *p = r->plan;
    up_eval_job *j = &p->jobs[sl->job];
    up_harness_run *run;
    up_error e;

    (void)i;
    if (sl->recorded)
        return checks_resume(sl);
    if (!sl->cli) {
        sl->t0 = up_http_now_ms();
        eval_harness_start(&sl->cli, p, j, &r->o->endpoints[j->model], &e);
        return UP_JOB_PARKED;
    }
    run = eval_harness_run(sl->cli);
    if (run && res) /* the reply to the request its proxy relayed */
        up_harness_run_reply(run, res);
    if (run && *r->stop) /* the first Ctrl-C ends the CLIs: they cost most */
        up_harness_run_kill(run);
    if (run && !up_harness_run_step(run)) {
        const up_request *rq = up_harness_run_request(run);

        return rq ? rq : UP_JOB_PARKED;
    }
    sl->res = &sl->own;
    return over(sl, &sl->own);
}

/* The oracle's solve.sh started as a parked check, in the workspace
 * with the case's solution at ORACLE_DIR and the agent's wall clock; 1
 * when it runs, 0 when it could not start (sl->oracle says why). */
static int oracle_start(struct slot *sl, const up_case *c)
{
    up_eval_plan *p = sl->r->plan;

    up_eval_job *j = &p->jobs[sl->job];

    /* in the skill arm, the skills also where the Dockerfile put them */
    if (j->arm == UP_ARM_SKILL && up_case_task_of(c)->skill_links)
        up_buf_adds(&sl->oracle_cmd, up_case_task_of(c)->skill_links);
    up_buf_adds(&sl->oracle_cmd, ORACLE_CMD);
    sl->oracle_a = sl->r->oracle.items[0];
    sl->oracle_a.value = sl->oracle_cmd.data;
    sl->item = (up_check_item){
        .a = &sl->oracle_a,
        .ws = job_ws(sl),
        .res = &sl->oracle,
        .files = up_case_task_of(c)->solution,
        .nfiles = j->arm == UP_ARM_SKILL ? up_case_task_of(c)->nsolution_all
                                         : up_case_task_of(c)->nsolution,
        .ws_at = up_case_task_of(c)->workdir,
        .wall_s = up_case_task_of(c)->run_wall_s,
        .files_at = ORACLE_DIR,
        .places = (const char *const *)up_case_task_of(c)->places,
        .env = (const char *const *)up_case_task_of(c)->env,
        .student_env = 1};
    up_eval_check_quota(p, &sl->item);
    if (!up_case_task_of(c)->nsolution) {
        sl->oracle.status = UP_ASSERT_FAIL;
        up_buf_adds(&sl->oracle.message, "the task has no solution/");
        return 0;
    }
    sl->check = up_check_start(&sl->item, (up_sandbox_mode)p->check_mode);
    return sl->check != NULL;
}

/* A reference job's conversation is over: its answer says what the
 * oracle's solve.sh did ("" for null); no token, no cost; then the
 * case's checks, as for any conversation. */
static const up_request *ref_over(struct slot *sl)
{
    up_response *res = &sl->own;

    up_check_end(sl->check, 0); /* settles sl->oracle */
    sl->check = NULL;
    take_conversation(sl, res);
    free(res->text);
    res->text = NULL;
    if (ref_of(sl->r->plan, sl->job) == UP_REF_ORACLE) {
        up_buf b = UP_BUF_INIT;

        up_buf_addf(&b, "%s: %s\n", ORACLE_CMD,
                    sl->oracle.message.len ? sl->oracle.message.data : "");
        up_buf_add(&b, sl->oracle.output.data, sl->oracle.output.len);
        res->text = up_buf_detach(&b);
    }
    memset(&res->usage, 0, sizeof(res->usage));
    return over(sl, res);
}

/* A reference student's job (oracle, null; docs/harbor.md): it sends no
 * request.  Its workspace is made as an agent's (the skills installed
 * in the skill arm); the oracle then runs the task's solve.sh there,
 * parked like a check; then the case's checks run. */
static const up_request *ref_next(void *ud, size_t i, up_response *res)
{
    struct slot *sl = ud;
    struct run *r = sl->r;
    up_eval_plan *p = r->plan;

    (void)i;
    (void)res;
    if (sl->recorded)
        return checks_resume(sl);
    if (sl->agent)
        return sl->check && !*r->stop && !up_check_step(sl->check)
                   ? UP_JOB_PARKED
                   : ref_over(sl);
    sl->res = &sl->own;
    if (agent_start(sl))
        return NULL;
    if (ref_of(p, sl->job) == UP_REF_ORACLE &&
        oracle_start(sl, &p->suite->cases[p->jobs[sl->job].kase]))
        return UP_JOB_PARKED;
    return ref_over(sl);
}

/* An arm's (or a case's) agent-mode system prompt for its n skills; it
 * mentions run when offered. */
static char *agent_system(const up_eval_plan *p, const up_skill *skills,
                          size_t n)
{
    char *sys = up_agent_system_n(skills, n, p->agent_inject);
    up_buf b = UP_BUF_INIT;

    if (!p->agent_opts.run_tool)
        return sys;
    up_buf_adds(&b, sys);
    up_buf_adds(&b, p->agent_opts.sandbox == UP_SANDBOX_NONE
                        ? UP_AGENT_RUN_PROMPT_NONE
                        : UP_AGENT_RUN_PROMPT);
    free(sys);
    return up_buf_detach(&b);
}

/* The scheduler's wait hook: a parked job's fds (its check's, its CLI's
 * or its `run` call's). */
static int job_wait(void *ud, size_t i, int *fds, int max, int *timeout_ms)
{
    struct slot *sl = ud;

    (void)i;
    *timeout_ms = 0;
    if (sl->check)
        return max >= 3 ? up_check_wait(sl->check, fds, timeout_ms) : 0;
    if (sl->cli)
        return eval_harness_run(sl->cli)
                   ? up_harness_run_wait(eval_harness_run(sl->cli), fds, max,
                                         timeout_ms)
                   : 0;
    return sl->agent ? up_agent_wait(sl->agent, fds, max, timeout_ms) : 0;
}

/* A slot to lend, zeroed, from the free list or new. */
static struct slot *slot_get(struct run *r)
{
    struct slot *sl = r->free;

    if (sl)
        r->free = sl->next;
    else
        sl = up_xmalloc(sizeof(*sl));
    memset(sl, 0, sizeof(*sl));
    sl->r = r;
    up_response_init(&sl->own);
    return sl;
}

static void slot_put(struct run *r, struct slot *sl)
{
    up_response_release(&sl->own);
    sl->next = r->free;
    r->free = sl;
}

static void free_slots(struct run *r)
{
    while (r->free) {
        struct slot *sl = r->free;

        r->free = sl->next;
        free(sl);
    }
}

/* Plan job j's one-turn request into rq, its user message in msg. */
static void build_request(const up_eval_plan *p, const up_eval_job *j,
                          up_request *rq, up_message *msg)
{
    msg->role = "user";
    msg->content = p->user[j->kase];
    up_request_init(rq);
    rq->system = up_eval_system(p, j);
    rq->messages = msg;
    rq->n_messages = 1;
}

/* Job j's cache key: its endpoint and request (built by build_request). */
static void job_key(char key[65], const struct run *r, const up_eval_job *j,
                    const up_request *rq)
{
    up_cache_key(key, &r->o->endpoints[j->model], rq, j->repeat);
}

static void on_done(void *ud, size_t i, up_response *res)
{
    struct slot *sl = ud;
    struct run *r = sl->r;
    up_eval_job *j = &r->plan->jobs[sl->job];
    char key[65];

    (void)i;
    if (is_cli(r->plan, sl->job)) {
        r->clis--;
        job_done(r, sl, res->code == UP_EINTR || !sl->cli ? res : &sl->own);
    } else if (ref_of(r->plan, sl->job)) { /* sent nothing: its own */
        job_done(r, sl, res->code == UP_EINTR || !sl->agent ? res : &sl->own);
    } else if (up_eval_job_is_agent(r->plan, j)) {
        job_done(r, sl, res); /* never cached: see docs/cache.md */
    } else {
        /* A failed put costs a later re-run, never this one's result. */
        if (r->o->cache && !res->code) {
            job_key(key, r, j, &sl->rq);
            up_cache_put(r->o->cache, key, res);
        }
        if (finish(r, j, res, 0) && r->o->progress)
            r->o->progress(r->o->progress_ud, r->plan, r->done, j);
    }
    slot_put(r, sl);
}

/* 1 when the cache answered plan job i (it has landed). */
static int cached(struct run *r, size_t i)
{
    up_eval_job *j = &r->plan->jobs[i];
    up_request rq;
    up_message msg;
    up_response res;
    char key[65];
    int hit;

    if (!r->o->cache || is_cli(r->plan, i) || up_eval_job_is_agent(r->plan, j))
        return 0;
    build_request(r->plan, j, &rq, &msg);
    job_key(key, r, j, &rq);
    hit = up_cache_get(r->o->cache, key, &res);
    if (hit)
        hit = finish(r, j, &res, 1);
    up_response_release(&res);
    return hit;
}

/* The first plan job from i on that is not done and is (cli 1) or is
 * not (cli 0) a coding-agent CLI's. */
static size_t skip_to(const up_eval_plan *p, size_t i, int cli)
{
    while (i < p->njobs && (p->jobs[i].done || is_cli(p, i) != cli))
        i++;
    return i;
}

/* The plan job the source gives next: a coding-agent CLI's first while
 * fewer than the CLI cap run (they are the slow ones: started first,
 * they overlap the API conversations, which take the rest of -j), else
 * the first API job not done, in plan order.  *at the job, or
 * UP_SCHED_LATER / 0. */
static int pick(struct run *r, size_t *at)
{
    const up_eval_plan *p = r->plan;
    int cli_ok;

    r->next = skip_to(p, r->next, 0);
    r->next_cli = skip_to(p, r->next_cli, 1);
    cli_ok = r->next_cli < p->njobs && (r->clis < r->cli_cap || *r->stop);
    if (cli_ok) {
        *at = r->next_cli++;
        r->clis++;
    } else if (r->next < p->njobs) {
        *at = r->next++;
    } else {
        return r->next_cli < p->njobs ? UP_SCHED_LATER : 0;
    }
    return 1;
}

/* The scheduler's source: the plan's next job to run, in a slot of its
 * own. */
static int next_job(void *ud, up_job *spec)
{
    struct run *r = ud;
    up_eval_plan *p = r->plan;
    up_eval_job *j;
    struct slot *sl;
    size_t at;
    int got = pick(r, &at), agent, cli, ref;

    if (got != 1)
        return got;
    j = &p->jobs[at];
    sl = slot_get(r);
    sl->job = at;
    cli = is_cli(p, at);
    ref = ref_of(p, at) != UP_REF_NONE;
    agent = cli || ref || up_eval_job_is_agent(p, j);
    if (!agent)
        build_request(p, j, &sl->rq, &sl->msg);
    *spec = (up_job){
        .ep = &r->o->endpoints[j->model],
        .rq = agent ? NULL : &sl->rq,
        .done = on_done,
        .ud = sl,
        .next = cli     ? cli_next
                : ref   ? ref_next
                : agent ? agent_next
                        : NULL,
        .wait = agent ? job_wait : NULL,
    };
    return 1;
}

/* An error code worth another pass: a provider's that may pass (never
 * a coding-agent CLI's own failure, UP_EAGENT). */
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
static void requeue(up_eval_job *j)
{
    up_eval_job_agent_free(j);
    up_eval_job_results_free(j);
    free(j->error_msg);
    j->error_msg = NULL;
    j->error = 0;
    j->done = 0;
}

/* A job restored by --resume whose case grades a workspace, from a
 * journal entry without the tool loop's verdicts (an older journal, or
 * one that does not fit the case): its files are gone, so it runs
 * again.  An entry with them is restored as an agent job (eval_journal.c)
 * and graded from them. */
static int restored_workspace_job(const up_eval_plan *p, const up_eval_job *j)
{
    return j->done && !j->agent && !j->error &&
           up_eval_case_needs_workspace(p, j->kase);
}

size_t up_eval_plan_pending(const up_eval_plan *p)
{
    size_t n = 0;

    for (size_t i = 0; i < p->njobs; i++)
        n += !p->jobs[i].done || restored_workspace_job(p, &p->jobs[i]);
    return n;
}

/* The most coding-agent CLI conversations at once for -j jobs. */
static size_t cli_cap(int jobs)
{
    return jobs > 0 && jobs < UP_HARNESS_JOBS_DEFAULT ? (size_t)jobs
                                                      : UP_HARNESS_JOBS_DEFAULT;
}

/* One pass over the jobs that are not done.  Cache hits land first, in
 * plan order; then the scheduler takes the rest from next_job: API and
 * CLI conversations side by side, each job with its checks.  The
 * journal's failure raises the stop flag (the caller's, else one of
 * this pass) and wins over the UP_EINTR that follows. */
static int run_pass(up_eval_plan *p, const up_eval_run_opts *o,
                    up_sched_stats *stats, up_error *err)
{
    volatile sig_atomic_t own_stop = 0;
    up_sched_opts so = o->sched;
    struct run r = {
        .plan = p,
        .o = o,
        .cli_cap = cli_cap(so.jobs),
        .stop = so.stop ? so.stop : &own_stop,
        .agent_sys = {agent_system(p, p->skill_base, p->skill_base != NULL),
                      agent_system(p, p->skill, p->skill != NULL)},
        .agent_user = up_xcalloc(p->suite->ncases + 1, sizeof(char *)),
    };
    size_t n = 0;
    int rc;
    up_error e;

    up_assert_list_init(&r.oracle);
    (void)up_assert_list_parse(
        &r.oracle, "[{\"type\": \"command\", \"value\": \"" ORACLE_CMD "\"}]",
        NULL, NULL, &e); /* a constant: parses */
    so.stop = r.stop;
    for (size_t i = 0; i < p->njobs; i++) {
        if (restored_workspace_job(p, &p->jobs[i]))
            requeue(&p->jobs[i]); /* its workspace is gone: run again */
        if (p->jobs[i].done) {
            r.done++; /* restored or cached: counts in the totals */
            if (p->prepared)
                up_eval_grade_job(p, &p->jobs[i]);
        } else if (!r.journal_rc && !cached(&r, i)) {
            n++;
        }
    }
    if (r.done && o->progress)
        o->progress(o->progress_ud, p, r.done, NULL);
    rc = n && !r.journal_rc ? up_sched_run_src(next_job, &r, &so, stats, err)
                            : 0;
    if (r.journal_rc) {
        *err = r.journal_err;
        rc = r.journal_rc;
    }
    free_slots(&r);
    up_assert_list_release(&r.oracle);
    free(r.agent_sys[0]);
    free(r.agent_sys[1]);
    for (size_t k = 0; k < p->suite->ncases; k++)
        free(r.agent_user[k]);
    free(r.agent_user);
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
                requeue(&p->jobs[i]);
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
 * Where the workspaces go: the config's workspace_dir (made when
 * missing), else $TMPDIR when set (as it is), else /tmp.  Never /dev/shm unless
 * named: a tmpfs is RAM, and a workspace's quota is checked after a
 * command, so one command may pass it (docs/sandbox.md).
 */
static const char *workspace_root(const up_eval_plan *p)
{
    const char *tmp = getenv("TMPDIR");

    if (p->agent_opts.work_dir &&
        !up_fs_mkdir_p(p->agent_opts.work_dir, 0700, NULL))
        return p->agent_opts.work_dir;
    return tmp && *tmp ? tmp : "/tmp";
}

/* The run's private folder of workspaces ("upskill-run-PID-XXXXXX",
 * 0700, locked by *lockfd, under workspace_root: up_ws_run_dir_new) into
 * dir; 0 when it could not be made (each workspace then goes under
 * $TMPDIR itself, as private). */
static int private_parent(const up_eval_plan *p, up_buf *dir, int *lockfd)
{
    return up_ws_run_dir_new(dir, lockfd, workspace_root(p)) == 0;
}

int up_eval_execute(up_eval_plan *p, const up_eval_run_opts *o,
                    up_sched_stats *stats, up_error *err)
{
    up_eval_run_opts o2 = *o;
    up_breaker br;
    up_buf dir = UP_BUF_INIT;
    int made = 0, lockfd = -1, rc;

    rc = up_eval_checks_sandbox(p, err);
    if (rc)
        return rc;

    up_ws_sweep(workspace_root(p)); /* what a killed run left there */
    up_breaker_init(&br, up_breaker_threshold(o->sched.jobs));
    if (!o2.sched.breaker)
        o2.sched.breaker = &br;
    if (!p->agent_opts.parent && has_agent_jobs(p) &&
        private_parent(p, &dir, &lockfd)) {
        made = 1;
        p->agent_opts.parent = dir.data;
    }
    rc = execute(p, &o2, stats, err);
    if (made) { /* each workspace went as its job landed; what stays */
        up_ws_run_dir_free(dir.data, lockfd);
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
        n += !up_eval_job_errored(j); /* outgrown: answered, failed */
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
    /* a provider's error, or a coding-agent CLI's own (never exit 4) */
    code = up_exit_code(first->error) == 4 || first->error == UP_EAGENT
               ? first->error
               : UP_EHTTP;
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
        const up_eval_job_live *lv = up_eval_job_live_view(j);
        up_assert_result *r = lv->results;

        for (size_t a = 0; r && !j->error && a < lv->asserts.n; a++) {
            if (r[a].status != UP_ASSERT_PENDING)
                continue;
            msg[k] = (up_message){"user", r[a].judge_prompt.data};
            up_request_init(&rq[k]);
            rq[k].messages = &msg[k];
            rq[k].n_messages = 1;
            jobs[k] = (up_job){judge, &rq[k], on_judged, &jg, NULL, NULL};
            jg.slot[k++] = &r[a];
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
