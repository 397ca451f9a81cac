/*
 * One coding-agent CLI conversation (include/upskill/harness.h,
 * docs/agent-clis.md): its private home and config files, its command
 * line and environment, started through the sandbox's process runner
 * under bubblewrap with a wall clock and a network of its own; then its
 * event stream read into an outcome.  The eval's scheduler drives it:
 * the conversation is a parked job whose descriptors are the process's
 * pipes and its model proxy's sockets (harness_proxy.c), and whose
 * requests are the ones the CLI sends its model, relayed.
 */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/http.h"
#include "upskill/sandbox.h"
#include "lib/harness/harness_run_int.h"
#include "lib/harness/harness_wire.h"
#include "util/json.h"

/* Bytes of stderr kept (for the error message and the artifact). */
#define ERR_KEEP ((size_t)16 << 10)

struct up_harness_run {
    const up_harness_spec *spec;
    up_harness_format fmt; /* the stream's format */
    up_sandbox_run *proc;  /* the CLI under way, NULL once finished */
    up_sandbox_result res; /* what it printed, once finished */
    long wall_ms;          /* its wall clock */
    int interrupted;       /* up_harness_run_kill ended it */
    const char *key;       /* borrowed: redacted from everything kept */
    cli_proxy *proxy;      /* its model proxy (harness_proxy.c) */
    up_harness_obs *obs;   /* what the proxy relayed, read (harness_wire.c) */
};

/* The proxy's exchanges, to the wire reading. */
static void observe(void *ud, const char *path, const char *req, size_t req_len,
                    long status, const char *ctype, const char *resp,
                    size_t resp_len)
{
    up_harness_obs_add(ud, path, req, req_len, status, ctype, resp, resp_len);
}

/* The sandbox's limits for a CLI: its wall clock and output caps, and
 * the run tool's process count and file size (run: the config's
 * sandbox.* keys; NULL: their defaults).  No RLIMIT_AS (node's V8
 * reserves far more address space than it uses) and no CPU seconds (the
 * wall clock bounds a conversation). */
static void limits(up_sandbox_limits *l, long wall_ms,
                   const up_sandbox_limits *run)
{
    up_sandbox_limits d;

    up_sandbox_limits_default(&d);
    if (!run)
        run = &d;
    memset(l, 0, sizeof(*l));
    l->wall_ms = (unsigned)wall_ms;
    l->out_cap = UP_HARNESS_MAX_STREAM;
    l->err_cap = ERR_KEEP;
    l->nproc = run->nproc;
    l->fsize_bytes = run->fsize_bytes;
    l->mem_total = run->mem_total; /* a memory cgroup where one can be made */
    l->ws_bytes = run->ws_bytes;   /* the workspace's quota, in the call */
    l->ws_files = run->ws_files;
}

/* url's origin ("scheme://host[:port]") and its path after it (no
 * trailing '/'), both into bufs. */
static void split_url(const char *url, up_buf *origin, up_buf *path)
{
    const char *host = strstr(url, "://");
    size_t olen = host ? (size_t)(host + 3 - url) : 0, len;

    olen += strcspn(url + olen, "/?#");
    up_buf_add(origin, url, olen);
    len = strlen(url + olen);
    while (len && url[olen + len - 1] == '/')
        len--;
    up_buf_add(path, url + olen, len);
}

/* upskill's own binary, the forwarder inside the sandbox. */
static int own_exe(up_buf *exe, up_error *err)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

    if (n <= 0)
        return up_error_set(err, UP_EIO,
                            "/proc/self/exe: cannot find upskill's own "
                            "binary (the CLI's network forwarder): %s",
                            strerror(errno));
    up_buf_add(exe, buf, (size_t)n);
    return 0;
}

/* The argv, environment and config of run a; spawned into *proc.  With
 * a workspace quota the workspace and the home (which holds as much at
 * most) are each a file system of their own while the CLI runs: every
 * place it can write outlives it only within the quota. */
static int launch(up_sandbox_run **proc, const cli_run_args *a,
                  const up_sandbox_limits *lim, up_error *err)
{
    cli_strv argv = {0}, envp = {0};
    const up_sandbox_bound b[] = {{a->ws, lim->ws_bytes, lim->ws_files},
                                  {a->home, lim->ws_bytes, lim->ws_files}};
    int rc = cli_write_config(a, err);

    if (!rc) {
        cli_bwrap(a, &argv);
        cli_command(a, &argv);
        cli_envp(a, &envp);
        rc = up_sandbox_spawn(proc,
                              &(up_sandbox_proc){argv.v, envp.v, NULL, 1, b,
                                                 lim->ws_bytes ? 2 : 0},
                              lim, err);
    }
    cli_strv_free(&argv);
    cli_strv_free(&envp);
    return rc;
}

/* Where the workspace appears (NULL: /workspace) into *at: a folder the
 * sandbox does not mount itself, apart from the CLI's own binds (its
 * home, upskill's /run/upskill, its install folder). */
static int ws_inside(const char **at, const char *want, const char *prefix,
                     up_error *err)
{
    const char *mine[] = {CLI_HOME_INSIDE, "/run", prefix};
    int ok = up_sandbox_workdir_ok(want ? want : CLI_WS_INSIDE);

    for (size_t i = 0; ok && want && i < sizeof(mine) / sizeof(*mine); i++)
        ok = !(up_fs_holds(want, mine[i]) || up_fs_holds(mine[i], want));
    *at = want ? want : CLI_WS_INSIDE;
    if (!ok)
        return up_error_set(err, UP_EUNSAFE,
                            "'%s' cannot hold a coding-agent CLI's workspace "
                            "(an absolute folder apart from the system's, %s, "
                            "/run and the CLI's install folder '%s')",
                            *at, CLI_HOME_INSIDE, prefix);
    return 0;
}

/* The case's places (up_sandbox_places_ok), none holding or inside the
 * CLI's install folder prefix. */
static int places_ok(const char *ws, const char *at, const char *const *places,
                     const char *prefix, up_error *err)
{
    for (size_t i = 0; places[i]; i++)
        if (up_fs_holds(places[i], prefix) || up_fs_holds(prefix, places[i]))
            return up_error_set(err, UP_EUNSAFE,
                                "place '%s' cannot be bound beside a "
                                "coding-agent CLI installed in '%s'",
                                places[i], prefix);
    return up_sandbox_places_ok(ws, at, places, err);
}

const char *up_harness_skills_folder(const up_harness_spec *spec)
{
    return spec->skills;
}

/* The model proxy of run c in dir: its socket, the endpoint's origin;
 * the URL the CLI is given (the proxy's port and the endpoint's path)
 * into inside. */
static int open_proxy(up_harness_run *c, const up_harness_run_args *ra,
                      up_buf *sock, up_buf *inside, up_error *err)
{
    const char *url =
        ra->ep->base_url && *ra->ep->base_url ? ra->ep->base_url : c->spec->url;
    up_buf origin = UP_BUF_INIT, path = UP_BUF_INIT;
    int rc;

    split_url(url, &origin, &path);
    up_buf_addf(inside, CLI_URL_INSIDE "%s", path.data);
    up_fs_join(sock, ra->dir, "model.sock");
    rc = cli_proxy_open(&c->proxy, sock->data, origin.data, c->spec->key_header,
                        err);
    if (!rc) { /* its model's endpoints only, and never the key back */
        cli_proxy_relay_only(c->proxy, c->spec->wire, path.data);
        cli_proxy_redact(c->proxy, ra->ep->api_key);
    }
    if (!rc &&
        !(c->obs = up_harness_obs_new(ra->skill_dir, c->spec->wire, err)))
        rc = err ? err->code : UP_EIO;
    if (!rc)
        cli_proxy_on_exchange(c->proxy, observe, c->obs);
    up_buf_release(&origin);
    up_buf_release(&path);
    return rc;
}

/* The CLI's install folder prefix (bound into every conversation's
 * sandbox) holding none of the conversation's own folders on the host:
 * they sit beside the other conversations' (in TMPDIR), which the CLI
 * could then read, the baseline its skill arm's. */
static int prefix_apart(const char *prefix, const up_harness_run_args *ra,
                        up_error *err)
{
    const char *mine[] = {ra->dir, ra->ws};
    char *real = realpath(prefix, NULL);
    int rc = 0;

    for (size_t i = 0; !rc && i < sizeof(mine) / sizeof(*mine); i++) {
        char *m = mine[i] ? realpath(mine[i], NULL) : NULL;

        if (m && up_fs_holds(real ? real : prefix, m))
            rc = up_error_set(err, UP_EUNSAFE,
                              "the CLI's install folder '%s' holds '%s', "
                              "where upskill keeps this conversation beside "
                              "the others (TMPDIR): every conversation could "
                              "read the others'; set TMPDIR outside it or "
                              "install the CLI elsewhere",
                              prefix, mine[i]);
        free(m);
    }
    free(real);
    return rc;
}

int up_harness_run_start(up_harness_run **out, const up_harness_run_args *ra,
                         up_error *err)
{
    up_harness_run *c = up_xcalloc(1, sizeof(*c));
    up_buf bin = UP_BUF_INIT, prefix = UP_BUF_INIT, home = UP_BUF_INIT;
    up_buf exe = UP_BUF_INIT, sock = UP_BUF_INIT, url = UP_BUF_INIT;
    const char *fmt = getenv("UPSKILL_CLI_FORMAT");
    up_sandbox_limits lim;
    const char *at = NULL;
    int rc;

    *out = c;
    c->spec = ra->spec;
    c->fmt = ra->spec->format;
    c->key = ra->ep->api_key;
    c->wall_ms = ra->wall_ms > 0 ? ra->wall_ms : UP_HARNESS_WALL_MS_DEFAULT;
    limits(&lim, c->wall_ms, ra->limits);
    rc = up_sandbox_check(err);
    if (!rc && !c->spec->bin && fmt)
        rc = up_harness_format_parse(fmt, &c->fmt, err);
    if (!rc)
        rc = cli_find(c->spec, &bin, &prefix, err);
    if (!rc)
        rc = prefix_apart(prefix.data, ra, err);
    if (!rc)
        rc = ws_inside(&at, ra->ws_inside, prefix.data, err);
    if (!rc && ra->places)
        rc = places_ok(ra->ws, at, ra->places, prefix.data, err);
    up_fs_join(&home, ra->dir, "home");
    if (!rc && mkdir(home.data, 0700) != 0)
        rc = up_error_set(err, UP_EIO, "'%s': cannot make a folder: %s",
                          home.data, strerror(errno));
    if (!rc)
        rc = own_exe(&exe, err);
    if (!rc)
        rc = open_proxy(c, ra, &sock, &url, err);
    if (!rc)
        rc = launch(&c->proc,
                    &(cli_run_args){
                        c->spec, bin.data, prefix.data, ra->ws, at, home.data,
                        CLI_HOME_INSIDE, ra->prompt, ra->ep->model, url.data,
                        CLI_DUMMY_KEY,
                        c->spec->bin ? NULL : getenv("UPSKILL_CLI_COMMAND"),
                        exe.data, sock.data, lim.nproc, ra->places, ra->env},
                    &lim, err);
    up_buf_release(&bin);
    up_buf_release(&prefix);
    up_buf_release(&home);
    up_buf_release(&exe);
    up_buf_release(&sock);
    up_buf_release(&url);
    return rc;
}

int up_harness_run_wait(const up_harness_run *c, int *fds, int max,
                        int *timeout_ms)
{
    int mine[3], n;

    if (!c->proc) {
        *timeout_ms = 0;
        return 0;
    }
    n = up_sandbox_pollfds(c->proc, mine);
    if (n > max)
        n = max;
    memcpy(fds, mine, (size_t)n * sizeof(int));
    n += cli_proxy_fds(c->proxy, fds + n, max - n);
    *timeout_ms = up_sandbox_timeout_ms(c->proc);
    return n;
}

const up_request *up_harness_run_request(up_harness_run *c)
{
    /* an answer that would come after the wall clock is no use */
    return c->proc
               ? cli_proxy_next(c->proxy, up_http_now_ms() +
                                              up_sandbox_timeout_ms(c->proc))
               : NULL;
}

void up_harness_run_reply(up_harness_run *c, const up_response *res)
{
    cli_proxy_reply(c->proxy, res);
}

int up_harness_run_step(up_harness_run *c)
{
    up_error e;

    if (!c->proc)
        return 1;
    cli_proxy_step(c->proxy);
    if (!up_sandbox_step(c->proc))
        return 0;
    up_sandbox_finish(c->proc, &c->res, &e); /* over: reaps at once */
    c->proc = NULL;
    return 1;
}

void up_harness_run_kill(up_harness_run *c)
{
    if (!c->proc)
        return;
    c->interrupted = 1;
    up_sandbox_kill(c->proc);
}

void up_harness_run_free(up_harness_run *c)
{
    up_error e;

    if (!c)
        return;
    if (c->proc) /* never left running: finish kills and reaps it */
        up_sandbox_finish(c->proc, &c->res, &e);
    cli_proxy_free(c->proxy);
    up_harness_obs_free(c->obs);
    up_sandbox_result_release(&c->res);
    free(c);
}

/* Replace every copy of the klen bytes at key in b by "<redacted>". */
static void redact_bytes(up_buf *b, const char *key, size_t klen)
{
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

/* Standard base64 of n bytes of s into out. */
static void base64(up_buf *out, const unsigned char *s, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
                              "wxyz0123456789+/";

    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)s[i] << 16;

        v |= i + 1 < n ? (unsigned)s[i + 1] << 8 : 0;
        v |= i + 2 < n ? s[i + 2] : 0;
        up_buf_addc(out, abc[(v >> 18) & 63]);
        up_buf_addc(out, abc[(v >> 12) & 63]);
        up_buf_addc(out, i + 1 < n ? abc[(v >> 6) & 63] : '=');
        up_buf_addc(out, i + 2 < n ? abc[v & 63] : '=');
    }
}

/*
 * The key's base64 form where it starts at byte off (0..2) of a 3-byte
 * group of a longer text: the characters that depend on the key's bytes
 * only, so a copy is found whatever came before or after it.
 */
static void base64_core(up_buf *out, const char *key, size_t klen, size_t off)
{
    up_buf in = UP_BUF_INIT, enc = UP_BUF_INIT;
    size_t from = (off * 8 + 5) / 6, to = (off + klen) * 8 / 6;

    for (size_t i = 0; i < off; i++)
        up_buf_addc(&in, '\0');
    up_buf_add(&in, key, klen);
    base64(&enc, (const unsigned char *)in.data, in.len);
    up_buf_add(out, enc.data + from, to - from);
    up_buf_release(&in);
    up_buf_release(&enc);
}

/* Replace every copy of key in b, and of its base64 forms, by
 * "<redacted>". */
static void redact(up_buf *b, const char *key)
{
    size_t klen = key ? strlen(key) : 0;

    if (klen < 4 || !b->len)
        return;
    redact_bytes(b, key, klen);
    for (size_t off = 0; off < 3; off++) {
        up_buf core = UP_BUF_INIT;

        base64_core(&core, key, klen, off);
        if (core.len >= 12) /* shorter ones would hit other text */
            redact_bytes(b, core.data, core.len);
        up_buf_release(&core);
    }
}

static json_t *tool_map(const up_harness_result *r, int errors)
{
    json_t *m = json_object();

    for (size_t i = 0; i < r->ntools; i++)
        if (errors ? r->tools[i].errors : r->tools[i].calls)
            json_object_set_new(
                m, r->tools[i].name,
                json_integer(errors ? r->tools[i].errors : r->tools[i].calls));
    return m;
}

static json_t *refs_json(const up_harness_result *r)
{
    json_t *a = json_array();

    for (size_t i = 0; i < r->nskill_files; i++)
        if (strcmp(r->skill_files[i], "SKILL.md") != 0)
            json_array_append_new(a, json_string(r->skill_files[i]));
    return a;
}

static json_t *usage_json(const up_usage *u)
{
    return json_pack("{s:I,s:I,s:I,s:I}", "input", (json_int_t)u->input,
                     "output", (json_int_t)u->output, "cached",
                     (json_int_t)u->cached, "reasoning",
                     (json_int_t)u->reasoning);
}

static json_t *wire_refs_json(const up_harness_obs *o)
{
    const char *const *names = NULL;
    size_t n = o ? up_harness_obs_refs(o, &names) : 0;
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(names[i]));
    return a;
}

/* The activation and tokens of the artifact: the wire's, and the
 * events' as a second opinion, with whether they disagree. */
static void add_activation(json_t *o, const up_harness_run *c,
                           const up_harness_outcome *oc, int skill)
{
    const up_harness_result *r = &oc->r;
    up_usage ev = {r->input_tokens,     r->output_tokens,
                   r->cached_tokens,    0,
                   r->reasoning_tokens, 0};

    json_object_set_new(o, "skill_read",
                        skill ? json_boolean(oc->skill_read) : json_null());
    json_object_set_new(o, "references_read", wire_refs_json(c->obs));
    json_object_set_new(o, "events_skill_read",
                        skill ? json_boolean(r->skill_loaded) : json_null());
    json_object_set_new(o, "events_references_read", refs_json(r));
    json_object_set_new(o, "activation_disagrees",
                        skill ? json_boolean(oc->disagree) : json_null());
    json_object_set_new(o, "events_usage", usage_json(&ev));
    json_object_set_new(o, "wire",
                        c->obs ? up_harness_obs_json(c->obs) : json_null());
    json_object_set_new(o, "proxy_refused",
                        json_integer((json_int_t)cli_proxy_refused(c->proxy)));
}

static json_t *tools_json(const up_harness_run *c, const up_harness_outcome *oc,
                          int skill)
{
    const up_harness_result *r = &oc->r;
    json_t *o = json_object();
    const up_buf *se = &c->res.err;

    json_object_set_new(o, "cli", json_string(c->spec->name));
    json_object_set_new(o, "tool_calls", json_integer(r->tool_calls));
    json_object_set_new(o, "tool_errors", json_integer(r->tool_errors));
    json_object_set_new(o, "tool_call_map", tool_map(r, 0));
    json_object_set_new(o, "tool_error_map", tool_map(r, 1));
    add_activation(o, c, oc, skill);
    json_object_set_new(o, "cli_turns", json_integer(r->turns));
    json_object_set_new(o, "cli_cost_usd",
                        r->has_cost ? json_real(r->cost_usd) : json_null());
    json_object_set_new(o, "cli_duration_ms", json_integer(r->duration_ms));
    json_object_set_new(o, "cli_model",
                        r->model ? json_string(r->model) : json_null());
    json_object_set_new(o, "skipped_lines", json_integer(r->skipped));
    json_object_set_new(o, "stderr", up_json_textn(se->data, se->len));
    json_object_set_new(o, "sandbox_limit",
                        c->res.limit ? json_string(c->res.limit_text)
                                     : json_null());
    return o;
}

/* The raw event stream, capped, as the transcript's one message. */
static json_t *raw_transcript(const up_buf *so)
{
    size_t len =
        so->len < UP_HARNESS_KEEP_STREAM ? so->len : UP_HARNESS_KEEP_STREAM;
    json_t *m = json_object(), *a = json_array();

    json_object_set_new(m, "role", json_string("cli-events"));
    json_object_set_new(m, "content",
                        up_json_textn(so->data ? so->data : "", len));
    json_object_set_new(m, "truncated", json_boolean(len < so->len));
    json_array_append_new(a, m);
    return a;
}

/* Why a finished run failed into e, or nothing when it did not: the
 * CLI's own failure (UP_EAGENT: its exit, a limit, its wall clock;
 * counted as failed in the rates, never retried), or the provider's
 * when the proxy relayed it a 429 or 5xx (UP_ESERVER: left out). */
static void judge_exit(const up_harness_run *c, const up_harness_result *r,
                       const char *model, up_error *e)
{
    const up_buf *se = &c->res.err;
    int code = c->res.exit_code;
    size_t line = se->len ? strcspn(se->data, "\n") : 0;
    const char *lt = c->res.limit_text;

    if (c->interrupted)
        up_error_set(e, UP_EINTR, "interrupted");
    else if (c->res.limit == UP_SANDBOX_WALL)
        up_error_set(e, UP_EAGENT,
                     "'%s': the CLI ran over its wall clock (%ld s) and was "
                     "stopped",
                     model, c->wall_ms / 1000);
    else if ((code != 0 || r->is_error || !r->complete) &&
             cli_proxy_provider_failed(c->proxy))
        /* outside the student's reach: a provider's error, left out of
         * the rates (a transient one, so retried) */
        up_error_set(e, UP_ESERVER,
                     "'%s': the provider answered HTTP %ld, and the CLI then "
                     "%s (exit %d)",
                     model, cli_proxy_provider_failed(c->proxy),
                     code != 0 ? "failed" : "reported an error", code);
    else if (code != 0 || r->is_error || !r->complete)
        up_error_set(
            e, UP_EAGENT, "'%s': the CLI %s (exit %d%s%s)%s%.*s%s%.300s", model,
            code != 0 ? "failed" : "reported an error", code,
            *lt ? ", over the sandbox's limit on " : "", lt, line ? ": " : "",
            (int)(line < 300 ? line : 300), se->data ? se->data : "",
            r->answer && *r->answer ? ": " : "", r->answer ? r->answer : "");
}

int up_harness_run_outcome(up_harness_run *c, const char *model,
                           const char *skill, int has_skill,
                           up_harness_outcome *oc)
{
    up_buf *so = &c->res.out;

    memset(oc, 0, sizeof(*oc));
    redact(so, c->key);
    redact(&c->res.err, c->key);
    up_harness_parse(&oc->r, c->fmt, skill, so->data ? so->data : "", so->len,
                     &oc->err);
    oc->err.code = 0;
    if (c->res.limit == UP_SANDBOX_QUOTA && !c->interrupted) {
        /* the student's own doing: a failed case, not an error */
        up_buf lim = UP_BUF_INIT;

        up_buf_addf(&lim,
                    "'%s': the CLI broke the sandbox's limit on %s: it was "
                    "stopped, and what it wrote was discarded",
                    model, c->res.limit_text);
        oc->limit = up_buf_detach(&lim);
    } else
        judge_exit(c, &oc->r, model, &oc->err);
    if (c->obs) {
        const char *const *names;

        up_harness_obs_usage(c->obs, &oc->usage);
        oc->skill_read = has_skill && up_harness_obs_skill_read(c->obs);
        oc->refs_read = up_harness_obs_refs(c->obs, &names);
    }
    oc->disagree = has_skill && oc->skill_read != (oc->r.skill_loaded > 0);
    oc->tools_json = tools_json(c, oc, has_skill);
    oc->transcript = raw_transcript(so);
    return oc->err.code;
}

void up_harness_outcome_release(up_harness_outcome *oc)
{
    up_harness_result_release(&oc->r);
    json_decref(oc->tools_json);
    json_decref(oc->transcript);
    free(oc->limit);
    memset(oc, 0, sizeof(*oc));
}

void up_harness_redact(up_buf *b, const char *key)
{
    redact(b, key);
}
