/*
 * Inside the coding-agent CLI runner: what one run needs, and the pieces
 * of harness_spec.c (each CLI's row, harness_int.h) that
 * harness_run.c puts together.
 */
#ifndef UPSKILL_AGENT_CLI_RUN_INT_H
#define UPSKILL_AGENT_CLI_RUN_INT_H

#include "upskill/harness.h"
#include "upskill/buf.h"
#include "lib/harness/harness_int.h"

#define CLI_WS_INSIDE   "/workspace"
#define CLI_HOME_INSIDE "/home/student"
/* The network inside the sandbox (harness_forward.c): upskill itself as
 * the forwarder, the proxy's socket, the port the CLI talks to. */
#define CLI_FORWARD_INSIDE "/run/upskill/forward"
#define CLI_SOCK_INSIDE    "/run/upskill/model.sock"
#define CLI_PORT_INSIDE    "8080"
#define CLI_URL_INSIDE     "http://127.0.0.1:" CLI_PORT_INSIDE
/* The key the CLI is given: the proxy puts the real one on the way out. */
#define CLI_DUMMY_KEY "upskill-proxy"

/* A NULL-ended list of strings, owned. */
typedef struct cli_strv {
    char **v;
    size_t n, cap;
} cli_strv;

void cli_strv_free(cli_strv *v);

/* One run's settings (all borrowed). */
typedef struct cli_run_args {
    const up_harness_spec *spec;
    const char *bin;         /* the CLI's binary, absolute */
    const char *prefix;      /* its install prefix, bound read-only */
    const char *ws;          /* the workspace on the host */
    const char *ws_inside;   /* where it appears, the CLI's cwd */
    const char *home;        /* the private home on the host */
    const char *home_inside; /* the home as the CLI sees it */
    const char *prompt;
    const char *model;    /* inner model, or NULL */
    const char *base_url; /* NULL: the CLI's own default */
    const char *key;      /* the key's value, or NULL */
    const char *command;  /* cli.command: the configured command line */
    const char *exe;      /* upskill's own binary (the forwarder) */
    const char *sock;     /* the proxy's socket on the host */
    unsigned nproc;       /* its processes (sandbox.processes), 0: no cap */
    const char *const *places; /* the case's places outside ws_inside
                                  (up_sandbox_extra), or NULL */
    const char *const *env;    /* the task's NAME=value words, or NULL */
} cli_run_args;

/* Write the CLI's config files into a->home. */
int cli_write_config(const cli_run_args *a, up_error *err);
/* The environment, built from nothing. */
void cli_envp(const cli_run_args *a, cli_strv *v);
/* The CLI's own command line. */
void cli_command(const cli_run_args *a, cli_strv *v);
/* bwrap and its options up to "--". */
void cli_bwrap(const cli_run_args *a, cli_strv *v);
/* The CLI's binary and install prefix; UP_ENOTFOUND saying how to get it. */
int cli_find(const up_harness_spec *s, up_buf *bin, up_buf *prefix,
             up_error *err);

/* ---- the model proxy, host side (harness_proxy.c) ---- */

typedef struct cli_proxy cli_proxy;

/* Sees every relayed exchange: the request's path and body, the reply's
 * status, content type and body (all borrowed for the call). */
typedef void (*cli_exchange_fn)(void *ud, const char *path, const char *req,
                                size_t req_len, long status, const char *ctype,
                                const char *resp, size_t resp_len);

/* Listen on the unix socket path; requests go to origin
 * ("scheme://host[:port]") with the key in key_header (NULL: the wire's).
 * *out is set even on failure (free it).  Errors: UP_EIO. */
int cli_proxy_open(cli_proxy **out, const char *path, const char *origin,
                   const char *key_header, up_error *err);
void cli_proxy_on_exchange(cli_proxy *p, cli_exchange_fn fn, void *ud);
/*
 * Relay only the model endpoints of wire (enum up_wire_kind or
 * UP_WIRE_GEMINI: one table each, harness_proxy.c) below base, the path
 * the CLI's base URL has (borrowed; "" for none); every other request is
 * answered 404 by the proxy, counted and seen by the exchange function.
 * Without this call every path is relayed (the HTTP tests only).
 */
void cli_proxy_relay_only(cli_proxy *p, int wire, const char *base);
/* Replace key (borrowed; NULL or under 4 bytes: nothing), and its base64
 * forms, by "<redacted>" in every reply before the CLI gets it. */
void cli_proxy_redact(cli_proxy *p, const char *key);
/* Its fds for the scheduler's parked-job wait (at most max; writers or'ed
 * with UP_FD_WRITE). */
int cli_proxy_fds(const cli_proxy *p, int *fds, int max);
/* Accept, read, parse and write what is ready; never blocks. */
void cli_proxy_step(cli_proxy *p);
/* The next complete request, relayed (borrowed until cli_proxy_reply),
 * to be answered by deadline_ms (up_http_now_ms(); 0: none), or NULL:
 * none, one is already out, or the CLI has not read 32 MiB of replies. */
const up_request *cli_proxy_next(cli_proxy *p, long deadline_ms);
/* The relayed request's reply, written back to the CLI. */
void cli_proxy_reply(cli_proxy *p, const up_response *res);
/* Requests the proxy refused itself (malformed, over a cap). */
size_t cli_proxy_refused(const cli_proxy *p);
/* The HTTP status of the last provider reply the proxy relayed when it
 * was 429 or 5xx, else 0 (p NULL: 0). */
long cli_proxy_provider_failed(const cli_proxy *p);
/* Close everything and remove the socket; NULL is fine. */
void cli_proxy_free(cli_proxy *p);

#endif
