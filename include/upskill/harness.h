/*
 * Coding-agent CLIs as eval students: the model strings cli.claude-code,
 * cli.codex, cli.opencode and cli.gemini (docs/agent-clis.md) and the
 * runner that runs one CLI conversation per eval job.
 *
 * Each conversation gets a private folder holding a workspace (the
 * case's files; in the skill arm the skill in the CLI's discovery
 * folder) and a HOME with the CLI's config written by us.  The CLI runs
 * under bubblewrap with the system read-only, the workspace bound at
 * /workspace (a Harbor task's WORKDIR) and the home at /home/student as
 * the only writable places,
 * and a network namespace of its own with only loopback: it reaches its
 * model through a per-conversation proxy upskill runs, which holds the
 * key (the CLI gets a dummy); its environment is built from nothing.  A
 * wall-clock limit ends a run that hangs.  The process is started by the
 * sandbox's runner; the eval's scheduler drives it as a parked job
 * (src/lib/eval/eval_harness.c).
 */
#ifndef UPSKILL_HARNESS_H
#define UPSKILL_HARNESS_H

#include <signal.h>
#include <jansson.h>
#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/error.h"
#include "upskill/model.h"
#include "upskill/provider.h"
#include "upskill/sandbox.h"
#include "upskill/suite.h"

/* One coding-agent CLI: a row of harness_spec.c's table, its fields
 * in src/lib/harness/harness_int.h. */
typedef struct up_harness_spec up_harness_spec;

/* The wall clock of one CLI run when the eval sets none (--time-limit). */
#define UP_HARNESS_WALL_MS_DEFAULT 600000L
/* Bytes of the raw event stream kept in the case artifact. */
#define UP_HARNESS_KEEP_STREAM ((size_t)256 << 10)
/* The most CLI conversations at once (a lower -j lowers it; API
 * conversations take the rest of -j): each CLI takes 0.5-5 s of a core
 * to start (bench/README.md), so more than this on a small machine only
 * queues for the CPU. */
#define UP_HARNESS_JOBS_DEFAULT 4

/* The CLI a model string or resolved id names ("cli.codex/gpt-5"), or
 * NULL when it names none. */
const up_harness_spec *up_harness_spec_of(const char *model);

/*
 * Resolve spec "cli.NAME[/MODEL]" into out (released first): model_id
 * the inner model (or the CLI's default), resolved "cli.NAME[/MODEL]",
 * base_url the override (NULL: the CLI's own default endpoint), the key
 * variable api_key_env_override or the CLI's own.  Errors: UP_EPARSE
 * naming the CLIs for an unknown NAME or an empty inner model.
 */
int up_harness_model_resolve(up_model *out, const char *spec,
                             const char *base_url_override,
                             const char *api_key_env_override, up_error *err);

/* The folder of the project where spec's CLI discovers skills
 * (".claude/skills"), relative to the workspace. */
const char *up_harness_skills_folder(const up_harness_spec *spec);

/* One CLI conversation under way (opaque). */
typedef struct up_harness_run up_harness_run;

/* What a conversation needs (all borrowed until up_harness_run_start
 * returns, ep until the run is freed). */
typedef struct up_harness_run_args {
    const up_harness_spec *spec;
    const char *dir;       /* its private folder: home/ is made in it */
    const char *ws;        /* the workspace folder, filled by the caller
                              (the skill in spec->skills in the skill arm) */
    const char *prompt;    /* the task */
    const up_endpoint *ep; /* model, base_url, api_key */
    long wall_ms;          /* the wall clock; 0: UP_HARNESS_WALL_MS_DEFAULT */
    const char *skill_dir; /* the skill's folder in ws on the host (the
                              skill arm), read at start to tell when its
                              files reach the model; NULL: none */
    const up_sandbox_limits *limits; /* the run tool's (the config's
                                        sandbox.*): its process count and
                                        file size; NULL: their defaults */
    const char *ws_inside;     /* where ws appears in the sandbox, the CLI's
                                  working folder (a Harbor task's WORKDIR);
                                  NULL: /workspace */
    const char *const *places; /* folders outside it, bound writable
                                  (up_sandbox_extra), or NULL */
    const char *const *env;    /* NAME=value words set for the CLI (a
                                  Harbor task's ENV), or NULL */
} up_harness_run_args;

/*
 * Start one conversation: write the CLI's config into DIR/home, build
 * its bubblewrap command line and environment and start it through the
 * sandbox's runner.  *out is set even on failure (free it with
 * up_harness_run_free).  Errors: those of up_sandbox_check, UP_ENOTFOUND
 * (the CLI is not installed, saying how to get it), UP_EIO.
 */
int up_harness_run_start(up_harness_run **out, const up_harness_run_args *a,
                         up_error *err);

/* Its descriptors to poll (at most max) and in *timeout_ms the most to
 * wait before stepping again; 0 fds once it is over. */
int up_harness_run_wait(const up_harness_run *c, int *fds, int max,
                        int *timeout_ms);

/* Read what it printed, enforce the wall clock, move its model proxy's
 * bytes; 1 once it has ended and all its output is read (then it is
 * reaped). */
int up_harness_run_step(up_harness_run *c);

/* The next request the CLI sent its model, complete, as a relayed
 * request for the scheduler (borrowed until up_harness_run_reply), or
 * NULL: none now (or one is out). */
const up_request *up_harness_run_request(up_harness_run *c);

/* The reply to the request up_harness_run_request gave, to the CLI. */
void up_harness_run_reply(up_harness_run *c, const up_response *res);

/* `upskill __forward PORT SOCKET -- COMMAND...`: the forwarder inside a
 * CLI's sandbox (internal, not in --help; harness_forward.c); argv after
 * "__forward".  Returns the exit code (the CLI's). */
int up_harness_forward_main(int argc, char **argv);

/* End it now (Ctrl-C): its outcome says "interrupted". */
void up_harness_run_kill(up_harness_run *c);

/* Kill (if still running), reap and free c; NULL is fine. */
void up_harness_run_free(up_harness_run *c);

/* Replace every copy of key (4 characters or more) in b, and of its
 * base64 forms (at each of the 3 alignments, where 12 characters or more
 * depend on the key alone), by "<redacted>": a CLI's tool may have
 * printed its environment, an endpoint may echo the key. */
void up_harness_redact(up_buf *b, const char *key);

#endif
