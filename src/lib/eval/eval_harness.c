/*
 * A coding-agent CLI conversation as an eval job (eval_int.h): the eval
 * side of the harness.  It makes the conversation's private folder,
 * fills the workspace from the case and the arm's skill, hands the
 * harness (harness_run.c) a prompt, a workspace and an endpoint, and
 * turns its outcome into the job.  The harness knows argv, files and
 * event streams; only this file knows plans.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/harness.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "lib/agent/workspace.h"
#include "lib/eval/eval_int.h"
#include "lib/harness/harness_events.h"
#include "util/utf8.h"

struct eval_harness {
    const up_harness_spec *spec;
    const up_endpoint *ep; /* borrowed: the plan's */
    char *dir;             /* the private folder (home + workspace) */
    up_workspace *ws;
    up_harness_run *run;
    up_error why; /* a setup failure */
};

/* Move skill name from .agents/skills to the CLI's folder skills. */
static int move_one(up_workspace *ws, const char *skills, const char *name,
                    up_error *err)
{
    up_buf from = UP_BUF_INIT, to = UP_BUF_INIT;
    int rc;

    up_buf_addf(&from, "%s/.agents/skills/%s", ws->path, name);
    up_buf_addf(&to, "%s/%s", ws->path, skills);
    rc = up_fs_mkdir_p(to.data, 0700, err);
    up_buf_addf(&to, "/%s", name);
    if (!rc && rename(from.data, to.data) != 0)
        rc = up_error_set(err, UP_EIO, "'%s': cannot move the skill: %s",
                          to.data, strerror(errno));
    up_buf_release(&from);
    up_buf_release(&to);
    return rc;
}

/* Move the installed skills (the arm's, or a Harbor task's n) from
 * .agents/skills to the CLI's folder. */
static int move_skills(up_workspace *ws, const up_harness_spec *spec,
                       const up_skill *v, size_t n, up_error *err)
{
    const char *skills = up_harness_skills_folder(spec);
    const char *name = strrchr(ws->skill_dir, '/') + 1;
    up_buf to = UP_BUF_INIT, dot = UP_BUF_INIT;
    int rc = 0;

    up_buf_addf(&to, "%s/%s", skills, name);
    if (strcmp(to.data, ws->skill_dir) != 0) {
        for (size_t i = 0; !rc && i < n; i++)
            rc = move_one(ws, skills, v[i].name, err);
        if (!rc) {
            up_buf_addf(&dot, "%s/.agents", ws->path);
            if (strncmp(skills, ".agents/", 8) != 0)
                up_fs_rm_tree(dot.data);
            free(ws->skill_dir);
            ws->skill_dir = up_buf_detach(&to);
        }
    }
    up_buf_release(&to);
    up_buf_release(&dot);
    return rc;
}

/* What the CLI may add starts from here: the case's files within the
 * workspace's quota (as agent mode's, agent.c). */
static int fits(up_workspace *ws, up_error *err)
{
    up_buf why = UP_BUF_INIT;
    int rc = 0;

    if (up_workspace_usage(ws, &why))
        rc = up_error_set(err, UP_ETOOBIG, "the case's files: %s", why.data);
    up_buf_release(&why);
    return rc;
}

/* The case's files (a Harbor task's seed, binary-safe, too) and the
 * arm's skill into the workspace; in the skill arm of a case with its
 * own skills, each of them, the first (the measured one) last so that
 * it is the workspace's skill_dir. */
static int fill(eval_harness *c, const up_eval_plan *p, const up_eval_job *j,
                up_error *err)
{
    const up_case *k = &p->suite->cases[j->kase];
    const up_skill *sk = up_eval_arm_skill(p, j->arm);
    size_t n = 1;
    int rc = up_workspace_seed(c->ws, up_case_task_of(k)->seed,
                               up_case_task_of(k)->nseed, err);

    for (size_t i = 0; !rc && i < k->nfiles; i++) {
        const char *text = k->files[i].content ? k->files[i].content : "";

        rc = up_workspace_add_file(c->ws, k->files[i].name, text, strlen(text),
                                   0, err);
    }
    if (sk && j->arm == UP_ARM_SKILL && up_case_task_of(k)->nskills) {
        sk = up_case_task_of(k)->skills;
        n = up_case_task_of(k)->nskills;
    }
    for (size_t i = 1; !rc && sk && i < n; i++)
        rc = up_workspace_install_skill(c->ws, &sk[i], err);
    if (!rc && sk)
        rc = up_workspace_install_skill(c->ws, sk, err);
    if (!rc && c->ws->skill_dir)
        rc = move_skills(c->ws, c->spec, sk, n, err);
    return rc ? rc : fits(c->ws, err);
}

/* The private folder under the run's parent into c->dir, and the
 * workspace in it. */
static int make_dirs(eval_harness *c, const up_eval_plan *p, up_error *err)
{
    const char *tmp = getenv("TMPDIR");
    up_buf d = UP_BUF_INIT;

    up_fs_join(&d,
               p->agent_opts.parent ? p->agent_opts.parent
               : tmp && *tmp        ? tmp
                                    : "/tmp",
               "upskill-cli-XXXXXX");
    if (!mkdtemp(d.data)) {
        int rc = up_error_set(err, UP_EIO, "'%s': cannot make a folder: %s",
                              d.data, strerror(errno));
        up_buf_release(&d);
        return rc;
    }
    c->dir = up_buf_detach(&d);
    return up_workspace_new(&c->ws, c->dir, p->agent_opts.limits, err);
}

/* The sandbox's limits for a CLI: run's (NULL: the defaults) with the
 * workspace's quota kept while it runs (issue 36 item 2). */
static void quota_limits(up_sandbox_limits *l, const up_sandbox_limits *run,
                         const up_workspace *ws)
{
    if (run)
        *l = *run;
    else
        up_sandbox_limits_default(l);
    l->ws_bytes = ws->lim.quota_bytes;
    l->ws_files = ws->lim.quota_files;
}

/* The CLI's wall clock: the case's own (a Harbor task's agent
 * timeout_sec), else the eval's; --time-limit holds either. */
static long wall_ms(const up_eval_plan *p, const up_case *k)
{
    long ms = (long)up_case_task_of(k)->run_wall_s * 1000;

    if (!ms || (p->agent_opts.wall_ms > 0 && p->agent_opts.wall_ms < ms))
        ms = p->agent_opts.wall_ms;
    return ms;
}

int eval_harness_start(eval_harness **out, const up_eval_plan *p,
                       const up_eval_job *j, const up_endpoint *ep,
                       up_error *err)
{
    eval_harness *c = up_xcalloc(1, sizeof(*c));
    const up_case *k = &p->suite->cases[j->kase];
    char *prompt = up_agent_user(k);
    up_buf skill = UP_BUF_INIT;
    up_sandbox_limits lim;
    int rc;

    *out = c;
    c->spec = up_harness_spec_of(p->models[j->model]);
    c->ep = ep;
    rc = make_dirs(c, p, err);
    if (!rc)
        rc = fill(c, p, j, err);
    if (!rc && c->ws->skill_dir)
        up_fs_join(&skill, c->ws->path, c->ws->skill_dir);
    if (!rc) /* the run tool's limits and the workspace's quota */
        quota_limits(&lim, p->agent_opts.run_limits, c->ws);
    if (!rc)
        rc = up_harness_run_start(
            &c->run,
            &(up_harness_run_args){
                c->spec, c->dir, c->ws->path, prompt, ep, wall_ms(p, k),
                skill.len ? skill.data : NULL, &lim,
                up_case_task_of(k)->workdir,
                (const char *const *)up_case_task_of(k)->places,
                (const char *const *)up_case_task_of(k)->env},
            err);
    up_buf_release(&skill);
    if (rc && err)
        c->why = *err;
    free(prompt);
    return rc;
}

up_harness_run *eval_harness_run(const eval_harness *c)
{
    return c->why.code ? NULL : c->run;
}

/* The skill-read counters and the artifact's parts of oc into x. */
static void take_agent_part(up_eval_agent_job *x, up_harness_outcome *oc,
                            int skill)
{
    const up_harness_result *r = &oc->r;

    x->turns = up_eval_count32(r->turns);
    x->tool_calls = up_eval_count32(r->tool_calls);
    x->tool_errors = up_eval_count32(r->tool_errors);
    x->llm_ms = r->duration_ms >= 0 ? (double)r->duration_ms : 0;
    /* from the wire: what reached the model (the events: tools_json) */
    x->skill_read = skill ? oc->skill_read > 0 : -1;
    x->refs_read = up_eval_count16((long)oc->refs_read);
    x->events_disagree = oc->disagree != 0;
    x->tools_json = oc->tools_json;
    x->transcript = oc->transcript;
    oc->tools_json = oc->transcript = NULL;
}

/* A snapshot of the workspace, the key redacted (a tool may have
 * printed its environment into a file). */
static json_t *snapshot(const eval_harness *c)
{
    up_buf b = UP_BUF_INIT;
    json_t *o;

    up_workspace_snapshot(c->ws, UP_EVAL_SNAPSHOT_FILE, UP_EVAL_SNAPSHOT_TOTAL,
                          &b);
    up_harness_redact(&b, c->ep->api_key);
    o = json_loadb(b.data, b.len, 0, NULL);
    up_buf_release(&b);
    return o;
}

/* A CLI's answer (its raw output, or a text of its events; NULL: "") as
 * valid UTF-8, the bytes that were not counted in *bad. */
static char *clean_answer(const char *answer, size_t *bad)
{
    up_buf b = UP_BUF_INIT;

    *bad = up_utf8_add(&b, answer ? answer : "", answer ? strlen(answer) : 0);
    return up_buf_detach(&b);
}

void eval_harness_take(eval_harness *c, const up_eval_plan *p, up_eval_job *j,
                       up_response *res)
{
    /* a Harbor task's: its first; compare: the arm's skill; else the
     * skill under test */
    const up_case *k = &p->suite->cases[j->kase];
    const up_skill *sk = up_case_task_of(k)->nskills
                             ? up_case_task_of(k)->skills
                         : p->skill_base ? up_eval_arm_skill(p, j->arm)
                                         : p->skill;
    int skill = c->ws && c->ws->skill_dir;
    up_harness_outcome oc;

    j->agent = 1;
    free(res->text);
    res->text = NULL;
    res->attempts = 1;
    if (c->why.code || !c->run) {
        res->code = c->why.code ? c->why.code : UP_EIO;
        res->err = c->why;
        return;
    }
    res->code = up_harness_run_outcome(c->run, p->models[j->model],
                                       sk ? sk->name : NULL, skill, &oc);
    res->err = oc.err;
    res->text = clean_answer(oc.r.answer, &res->not_utf8);
    res->not_utf8 += oc.r.not_utf8; /* its events' */
    res->usage = oc.usage;          /* from the wire: every request it sent */
    take_agent_part(up_eval_job_agent(j), &oc, skill);
    up_eval_job_agent(j)->limit = oc.limit; /* the case fails, graded */
    oc.limit = NULL;
    if (c->ws)
        up_eval_job_agent(j)->workspace_json = snapshot(c);
    up_eval_job_set_workspace(j, c->ws);
    up_harness_outcome_release(&oc);
}

const char *eval_harness_workspace(const eval_harness *c)
{
    return c->ws ? c->ws->path : NULL;
}

void eval_harness_free(eval_harness *c)
{
    if (!c)
        return;
    up_harness_run_free(c->run);
    up_workspace_free(c->ws);
    if (c->dir)
        up_fs_rm_tree(c->dir);
    free(c->dir);
    free(c);
}
