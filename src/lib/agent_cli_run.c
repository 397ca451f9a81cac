/*
 * The coding-agent CLI runner: one CLI process per eval job, at most
 * `jobs` at once, driven by poll(2) on their output pipes, each in its
 * own folder (workspace + home) under bubblewrap with a wall clock
 * (include/upskill/agent_cli_run.h, docs/agent-clis.md).
 */
#define _GNU_SOURCE /* pipe2, memmem */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "upskill/agent.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/sandbox.h"
#include "upskill/workspace.h"
#include "lib/agent_cli_run_int.h"

/* Bytes of stderr kept (for the error message and the artifact). */
#define ERR_KEEP ((size_t)16 << 10)

typedef struct slot {
    size_t job; /* plan job index */
    const up_cli_spec *spec;
    up_cli_format fmt; /* the stream's format */
    pid_t pid;         /* 0: not running */
    int out, err;      /* pipes, -1 when closed */
    up_buf so, se;     /* stdout (capped at UP_CLI_MAX_STREAM), stderr */
    long long start, deadline; /* ms, monotonic */
    int status, timed_out;
    int interrupted; /* the stop flag ended it */
    char *dir;       /* the private folder (home + workspace) */
    up_workspace *ws;
    const char *key; /* borrowed: redacted from everything kept */
    up_error why;    /* a setup failure */
} slot;

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Move the installed skill from .agents/skills to the CLI's folder. */
static int move_skill(up_workspace *ws, const up_cli_spec *s, up_error *err)
{
    up_buf from = UP_BUF_INIT, to = UP_BUF_INIT, dir = UP_BUF_INIT;
    const char *name = strrchr(ws->skill_dir, '/') + 1;
    int rc = 0;

    up_buf_addf(&to, "%s/%s", s->skills, name);
    if (strcmp(to.data, ws->skill_dir) != 0) {
        up_fs_join(&from, ws->path, ws->skill_dir);
        up_buf_reset(&dir);
        up_buf_addf(&dir, "%s/%s", ws->path, s->skills);
        rc = up_fs_mkdir_p(dir.data, 0700, err);
        up_buf_reset(&dir);
        up_fs_join(&dir, ws->path, to.data);
        if (!rc && rename(from.data, dir.data) != 0)
            rc = up_error_set(err, UP_EIO, "'%s': cannot move the skill: %s",
                              dir.data, strerror(errno));
        if (!rc) {
            up_buf_reset(&from);
            up_buf_addf(&from, "%s/.agents", ws->path);
            if (strncmp(s->skills, ".agents/", 8) != 0)
                up_fs_rm_tree(from.data);
            free(ws->skill_dir);
            ws->skill_dir = up_buf_detach(&to);
        }
    }
    up_buf_release(&from);
    up_buf_release(&to);
    up_buf_release(&dir);
    return rc;
}

static int fill(slot *s, const up_eval_plan *p, const up_eval_job *j,
                up_error *err)
{
    const up_case *c = &p->suite->cases[j->kase];
    int rc = 0;

    for (size_t i = 0; !rc && i < c->nfiles; i++) {
        const char *text = c->files[i].content ? c->files[i].content : "";

        rc = up_workspace_add_file(s->ws, c->files[i].name, text, strlen(text),
                                   0, err);
    }
    if (!rc && up_eval_arm_skill(p, j->arm))
        rc = up_workspace_install_skill(s->ws, up_eval_arm_skill(p, j->arm),
                                        err);
    if (!rc && s->ws->skill_dir)
        rc = move_skill(s->ws, s->spec, err);
    return rc;
}

/* The private folder: home/ and the workspace. */
static int make_dirs(slot *s, const up_eval_plan *p, up_buf *home,
                     up_error *err)
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
    s->dir = up_buf_detach(&d);
    up_fs_join(home, s->dir, "home");
    if (mkdir(home->data, 0700) != 0)
        return up_error_set(err, UP_EIO, "'%s': cannot make a folder: %s",
                            home->data, strerror(errno));
    return up_workspace_new(&s->ws, s->dir, NULL, err);
}

static void child(char **argv, char **envp, int out, int errfd)
{
    int null = open("/dev/null", O_RDONLY);

    if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(errfd, 2) < 0)
        _exit(127);
    execve(argv[0], argv, envp);
    _exit(127);
}

static int spawn(slot *s, cli_strv *argv, cli_strv *envp, up_error *err)
{
    int po[2], pe[2];

    if (pipe2(po, O_CLOEXEC) != 0)
        return up_error_set(err, UP_EIO, "cannot make a pipe: %s",
                            strerror(errno));
    if (pipe2(pe, O_CLOEXEC) != 0) {
        close(po[0]);
        close(po[1]);
        return up_error_set(err, UP_EIO, "cannot make a pipe: %s",
                            strerror(errno));
    }
    s->pid = fork();
    if (s->pid == 0)
        child(argv->v, envp->v, po[1], pe[1]);
    close(po[1]);
    close(pe[1]);
    s->out = po[0];
    s->err = pe[0];
    fcntl(s->out, F_SETFL, O_NONBLOCK);
    fcntl(s->err, F_SETFL, O_NONBLOCK);
    if (s->pid < 0) {
        s->pid = 0;
        return up_error_set(err, UP_EIO, "cannot fork: %s", strerror(errno));
    }
    return 0;
}

/* Set up and start plan job s->job; a failure lands in s->why. */
static void start(slot *s, const up_eval_plan *p, const up_endpoint *eps,
                  long wall_ms)
{
    const up_eval_job *j = &p->jobs[s->job];
    const up_endpoint *ep = &eps[j->model];
    up_buf bin = UP_BUF_INIT, prefix = UP_BUF_INIT, home = UP_BUF_INIT;
    cli_strv argv = {0}, envp = {0};
    char *prompt = up_agent_user(&p->suite->cases[j->kase]);
    cli_run_args a = {0};
    int rc;

    s->spec = up_cli_spec_of(p->models[j->model]);
    s->key = ep->api_key;
    s->out = s->err = -1;
    s->start = now_ms();
    s->deadline = s->start + wall_ms;
    s->fmt = s->spec->format;
    rc = up_sandbox_check(&s->why);
    if (!rc && !s->spec->bin && getenv("UPSKILL_CLI_FORMAT"))
        rc =
            up_cli_format_parse(getenv("UPSKILL_CLI_FORMAT"), &s->fmt, &s->why);
    if (!rc)
        rc = cli_find(s->spec, &bin, &prefix, &s->why);
    if (!rc)
        rc = make_dirs(s, p, &home, &s->why);
    if (!rc)
        rc = fill(s, p, j, &s->why);
    a = (cli_run_args){s->spec,
                       bin.data,
                       prefix.data,
                       s->ws ? s->ws->path : NULL,
                       home.data,
                       CLI_HOME_INSIDE,
                       prompt,
                       ep->model,
                       ep->base_url,
                       ep->api_key,
                       s->spec->bin ? NULL : getenv("UPSKILL_CLI_COMMAND")};
    if (!rc)
        rc = cli_write_config(&a, &s->why);
    if (!rc) {
        cli_bwrap(&a, &argv);
        cli_command(&a, &argv);
        cli_envp(&a, &envp);
        rc = spawn(s, &argv, &envp, &s->why);
    }
    cli_strv_free(&argv);
    cli_strv_free(&envp);
    free(prompt);
    up_buf_release(&bin);
    up_buf_release(&prefix);
    up_buf_release(&home);
}

static void drain(int *fd, up_buf *b, size_t cap)
{
    char chunk[65536];
    ssize_t n;

    while ((n = read(*fd, chunk, sizeof(chunk))) > 0)
        if (b->len < cap)
            up_buf_add(b, chunk,
                       (size_t)n < cap - b->len ? (size_t)n : cap - b->len);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        close(*fd);
        *fd = -1;
    }
}

/* 1 when s's process has ended and its output is read. */
static int step(slot *s)
{
    if (s->out >= 0)
        drain(&s->out, &s->so, UP_CLI_MAX_STREAM);
    if (s->err >= 0)
        drain(&s->err, &s->se, ERR_KEEP);
    if (!s->timed_out && now_ms() >= s->deadline) {
        s->timed_out = 1;
        kill(s->pid, SIGKILL); /* bwrap: its pid namespace dies with it */
    }
    if (s->pid > 0 && waitpid(s->pid, &s->status, WNOHANG) == s->pid)
        s->pid = -1;
    if (s->pid < 0 && (s->out >= 0 || s->err >= 0) && s->timed_out) {
        if (s->out >= 0)
            close(s->out);
        if (s->err >= 0)
            close(s->err);
        s->out = s->err = -1;
    }
    return s->pid < 0 && s->out < 0 && s->err < 0;
}

/* Replace every copy of key in b by "<redacted>". */
static void redact(up_buf *b, const char *key)
{
    size_t klen = key ? strlen(key) : 0;
    up_buf o = UP_BUF_INIT;
    const char *at, *from;

    if (klen < 4 || !b->len || !memmem(b->data, b->len, key, klen))
        return;
    for (from = b->data;
         (at = memmem(from, b->len - (size_t)(from - b->data), key, klen));
         from = at + klen) {
        up_buf_add(&o, from, (size_t)(at - from));
        up_buf_adds(&o, "<redacted>");
    }
    up_buf_add(&o, from, b->len - (size_t)(from - b->data));
    up_buf_release(b);
    *b = o;
}

static json_t *tool_map(const up_cli_result *r, int errors)
{
    json_t *m = json_object();

    for (size_t i = 0; i < r->ntools; i++)
        if (errors ? r->tools[i].errors : r->tools[i].calls)
            json_object_set_new(
                m, r->tools[i].name,
                json_integer(errors ? r->tools[i].errors : r->tools[i].calls));
    return m;
}

static json_t *refs_json(const up_cli_result *r)
{
    json_t *a = json_array();

    for (size_t i = 0; i < r->nskill_files; i++)
        if (strcmp(r->skill_files[i], "SKILL.md") != 0)
            json_array_append_new(a, json_string(r->skill_files[i]));
    return a;
}

static json_t *tools_json(const slot *s, const up_cli_result *r, int skill)
{
    json_t *o = json_object();

    json_object_set_new(o, "cli", json_string(s->spec->name));
    json_object_set_new(o, "tool_calls", json_integer(r->tool_calls));
    json_object_set_new(o, "tool_errors", json_integer(r->tool_errors));
    json_object_set_new(o, "tool_call_map", tool_map(r, 0));
    json_object_set_new(o, "tool_error_map", tool_map(r, 1));
    json_object_set_new(o, "skill_read",
                        skill ? json_boolean(r->skill_loaded) : json_null());
    json_object_set_new(o, "references_read", refs_json(r));
    json_object_set_new(o, "cli_turns", json_integer(r->turns));
    json_object_set_new(o, "cli_cost_usd",
                        r->has_cost ? json_real(r->cost_usd) : json_null());
    json_object_set_new(o, "cli_duration_ms", json_integer(r->duration_ms));
    json_object_set_new(o, "cli_model",
                        r->model ? json_string(r->model) : json_null());
    json_object_set_new(o, "skipped_lines", json_integer(r->skipped));
    json_object_set_new(o, "stderr",
                        json_stringn_nocheck(s->se.data, s->se.len));
    return o;
}

/* The raw event stream, capped, as the transcript's one message. */
static json_t *raw_transcript(const slot *s)
{
    size_t len =
        s->so.len < UP_CLI_KEEP_STREAM ? s->so.len : UP_CLI_KEEP_STREAM;
    json_t *m = json_object(), *a = json_array();

    json_object_set_new(m, "role", json_string("cli-events"));
    json_object_set_new(m, "content",
                        json_stringn(s->so.data ? s->so.data : "", len));
    json_object_set_new(m, "truncated", json_boolean(len < s->so.len));
    json_array_append_new(a, m);
    return a;
}

/* Why a finished run failed into res, or nothing when it did not. */
static void judge_exit(const slot *s, const up_cli_result *r, const char *model,
                       up_response *res)
{
    int code = WIFEXITED(s->status) ? WEXITSTATUS(s->status) : -1;
    size_t line = s->se.len ? strcspn(s->se.data, "\n") : 0;

    if (s->timed_out)
        res->code = up_error_set(&res->err, UP_ETIMEOUT,
                                 "'%s': the CLI ran over its wall clock "
                                 "(%lld s) and was stopped",
                                 model, (s->deadline - s->start) / 1000);
    else if (code != 0 || r->is_error || !r->complete)
        res->code = up_error_set(
            &res->err, UP_EHTTP, "'%s': the CLI %s (exit %d)%s%.*s%s%.300s",
            model, code != 0 ? "failed" : "reported an error", code,
            line ? ": " : "", (int)(line < 300 ? line : 300),
            s->se.data ? s->se.data : "", r->answer && *r->answer ? ": " : "",
            r->answer ? r->answer : "");
}

static void account(slot *s, up_eval_plan *p, up_eval_job *j, up_response *res)
{
    up_cli_result r;
    up_buf b = UP_BUF_INIT;
    int skill = s->ws && s->ws->skill_dir;
    const up_skill *sk = p->skill_base ? up_eval_arm_skill(p, j->arm)
                                       : p->skill; /* compare: the arm's */
    const char *name = sk ? sk->name : NULL;
    up_eval_agent_job *x = up_eval_job_agent(j);
    size_t refs = 0;

    redact(&s->so, s->key);
    redact(&s->se, s->key);
    up_cli_parse(&r, s->fmt, name, s->so.data ? s->so.data : "", s->so.len,
                 &res->err);
    res->code = 0;
    judge_exit(s, &r, p->models[j->model], res);
    res->text = up_xstrdup(r.answer ? r.answer : "");
    res->usage = (up_usage){r.input_tokens,     r.output_tokens,
                            r.cached_tokens,    0,
                            r.reasoning_tokens, 0};
    x->turns = up_eval_count32(r.turns);
    x->tool_calls = up_eval_count32(r.tool_calls);
    x->tool_errors = up_eval_count32(r.tool_errors);
    x->llm_ms = r.duration_ms >= 0 ? (double)r.duration_ms : 0;
    x->skill_read = skill ? r.skill_loaded > 0 : -1;
    for (size_t i = 0; i < r.nskill_files; i++)
        refs += strcmp(r.skill_files[i], "SKILL.md") != 0;
    x->refs_read = up_eval_count16(refs);
    x->tools_json = tools_json(s, &r, skill);
    x->transcript = raw_transcript(s);
    if (s->ws) {
        up_workspace_snapshot(s->ws, UP_EVAL_SNAPSHOT_FILE,
                              UP_EVAL_SNAPSHOT_TOTAL, &b);
        redact(&b, s->key); /* a tool may have printed its environment */
        x->workspace_json = json_loadb(b.data, b.len, 0, NULL);
    }
    up_buf_release(&b);
    up_cli_result_release(&r);
}

/* s's job is over: fill it, hand it to land, free the slot. */
static void land_slot(slot *s, up_eval_plan *p, up_cli_land_fn land, void *ud)
{
    up_eval_job *j = &p->jobs[s->job];
    up_response res;

    up_response_init(&res);
    j->agent = 1;
    if (s->why.code) {
        res.code = s->why.code;
        res.err = s->why;
    } else {
        account(s, p, j, &res);
    }
    if (s->interrupted)
        res.code = up_error_set(&res.err, UP_EINTR, "interrupted");
    res.latency_ms = (long)(now_ms() - s->start);
    res.attempts = 1;
    up_eval_job_set_workspace(j, s->ws);
    land(ud, j, &res);
    up_eval_job_set_workspace(j, NULL);
    up_response_release(&res);
    up_workspace_free(s->ws);
    if (s->dir)
        up_fs_rm_tree(s->dir);
    free(s->dir);
    up_buf_release(&s->so);
    up_buf_release(&s->se);
    memset(s, 0, sizeof(*s));
}

/* Poll the running slots until one is readable or a deadline is near. */
static void wait_some(slot *sl, size_t n)
{
    struct pollfd fds[2 * 64];
    nfds_t k = 0;
    long long soonest = now_ms() + 1000;
    int exited = 0;

    for (size_t i = 0; i < n; i++) {
        if (!sl[i].spec || sl[i].why.code)
            continue;
        if (sl[i].out >= 0)
            fds[k++] = (struct pollfd){sl[i].out, POLLIN, 0};
        if (sl[i].err >= 0)
            fds[k++] = (struct pollfd){sl[i].err, POLLIN, 0};
        if (sl[i].deadline < soonest)
            soonest = sl[i].deadline;
        exited |= sl[i].out < 0 && sl[i].err < 0;
    }
    /* pipes closed but not reaped yet: a short wait for the exit */
    long long t = soonest - now_ms();
    poll(fds, k, exited ? 10 : t < 0 ? 0 : (int)t);
}

int up_cli_eval_run(up_eval_plan *p, const up_endpoint *eps, const size_t *idx,
                    size_t n, int jobs, volatile sig_atomic_t *stop,
                    up_cli_land_fn land, void *ud, up_error *err)
{
    size_t width = jobs > 0 && jobs < UP_CLI_JOBS_DEFAULT ? (size_t)jobs
                                                          : UP_CLI_JOBS_DEFAULT;
    slot *sl = up_xcalloc(width, sizeof(*sl));
    long wall = p->agent_opts.wall_ms > 0 ? p->agent_opts.wall_ms
                                          : UP_CLI_WALL_MS_DEFAULT;
    size_t next = 0, busy = 0;

    for (;;) {
        for (size_t i = 0; i < width && next < n && !(stop && *stop); i++)
            if (!sl[i].spec) {
                sl[i].job = idx[next++];
                start(&sl[i], p, eps, wall);
                busy++;
            }
        if (!busy)
            break;
        wait_some(sl, width);
        for (size_t i = 0; i < width; i++) {
            if (!sl[i].spec)
                continue;
            if (stop && *stop && !sl[i].timed_out && sl[i].pid > 0)
                sl[i].deadline = 0, sl[i].interrupted = 1; /* stop it now */
            if (sl[i].why.code || step(&sl[i])) {
                land_slot(&sl[i], p, land, ud);
                busy--;
            }
        }
    }
    free(sl);
    if (stop && *stop && next < n)
        return up_error_set(err, UP_EINTR, "interrupted");
    return 0;
}
