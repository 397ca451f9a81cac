/*
 * Agent mode: one conversation as a tool loop (docs/agent-mode.md).
 *
 * An up_agent owns one conversation: its workspace (the case's
 * context.files as files; in the skill arm the skill installed at
 * .agents/skills/<name>/), the growing history (assistant turns with
 * their tool calls, the tools' results), the tokens and time of every
 * turn, and why it ended.  The scheduler drives it through a multi-turn
 * job (up_job.next): up_agent_first gives the first request, and after
 * each answered turn up_agent_next runs the turn's tool calls on the
 * workspace and gives the next request, or NULL when the model gave its
 * final answer or a limit ended it.  The file tools run inline; a `run`
 * call (offered only with run_tool) is started in the sandbox and the
 * turn parks (UP_JOB_PARKED): the scheduler polls up_agent_wait's fds
 * and calls up_agent_resume until the request (or NULL) comes back.
 *
 * A limit (turns, tokens, wall clock, tool calls, history) ends an answered
 * conversation that failed: `limit` says which, the answer graded is the
 * last assistant text so far, and the case fails with that reason; it
 * is not a provider error.
 */
#ifndef UPSKILL_AGENT_H
#define UPSKILL_AGENT_H

#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/error.h"
#include "upskill/provider.h"
#include "upskill/sandbox.h"
#include "upskill/sched.h"
#include "upskill/skill.h"
#include "upskill/suite.h"

struct json_t;

/* A conversation's folder (opaque here: src/lib/agent/workspace.h). */
typedef struct up_workspace up_workspace;

/* Caps on what the tools may do in one workspace. */
typedef struct up_ws_limits {
    size_t max_write; /* bytes one write_file / edit_file may leave */
    size_t max_total; /* bytes the tools may write in all */
    size_t max_files; /* files the tools may create */
    size_t max_read;  /* bytes read_file hands back (then cut, marked) */
    size_t max_list;  /* entries list_files hands back (then cut) */
    size_t max_args;  /* bytes of one call's JSON arguments */
    size_t max_path;  /* bytes of one path */
    size_t max_depth; /* folders in one path */
    /* the quota: what the folder may hold, whoever wrote it (setup, the
     * tools, the run tool's commands); config workspace_max_bytes and
     * workspace_max_files */
    size_t quota_bytes; /* bytes of its files (not folders) */
    size_t quota_files; /* its entries: files, folders, symlinks */
} up_ws_limits;

/* The defaults: 1 MiB per write, 16 MiB in all, 256 files, 64 KiB per
 * read, 1,000 entries, 2 MiB of arguments, 1,024-byte paths, 32 deep;
 * a quota of UP_WS_QUOTA_BYTES in UP_WS_QUOTA_FILES entries. */
void up_ws_limits_default(up_ws_limits *l);

#define UP_WS_QUOTA_BYTES ((size_t)256 << 20)
#define UP_WS_QUOTA_FILES ((size_t)10000)

/* Model turns per conversation when none is given (--max-turns). */
#define UP_AGENT_MAX_TURNS 20
/* Tool calls per conversation, all turns together. */
#define UP_AGENT_MAX_TOOL_CALLS 200
/* Bytes of tool-call arguments and tool results one conversation may
 * hold (config max_history_bytes): every turn sends them all again. */
#define UP_AGENT_MAX_HISTORY (64L << 20)

typedef struct up_agent_opts {
    int max_turns;       /* model turns; <= 0: UP_AGENT_MAX_TURNS */
    long token_budget;   /* input + output tokens over all turns; 0: none */
    long wall_ms;        /* from the first request; 0: none */
    long max_tool_calls; /* <= 0: UP_AGENT_MAX_TOOL_CALLS */
    long max_history;    /* tool arguments + results, bytes; <= 0: the
                            default UP_AGENT_MAX_HISTORY */
    const char *parent;  /* folder of the workspaces; NULL: $TMPDIR, /tmp */
    /* where an eval makes its private folder of workspaces (made when
     * missing, 0700); NULL: $TMPDIR, else /tmp (config workspace_dir) */
    const char *work_dir;
    const up_ws_limits *limits; /* NULL: the defaults */
    int run_tool;               /* 1: offer `run` (the sandbox checked) */
    up_sandbox_mode sandbox;    /* how `run` runs: bwrap, or none */
    const up_sandbox_limits *run_limits; /* per call; NULL: defaults */
} up_agent_opts;

typedef struct up_agent up_agent;

/* What a finished conversation did (read after up_agent_next gave NULL,
 * or after a provider error). */
typedef struct up_agent_outcome {
    const char *answer; /* the last assistant text ("" when none) */
    const char *limit;  /* why a limit ended it, or NULL */
    up_usage usage;     /* summed over every turn */
    int turns;          /* model turns answered */
    long tool_calls;
    long tool_errors;
    double llm_ms;   /* the turns' durations, summed */
    double tool_ms;  /* time in tool handlers */
    int truncated;   /* the last turn stopped at the output cap */
    size_t not_utf8; /* bytes of replies and tool results that were not
                        UTF-8, kept as U+FFFD */
} up_agent_outcome;

/*
 * The system prompt of an agent-mode arm: the neutral prompt and the
 * tools' purpose; with skill (NULL: the baseline) its catalogue entry
 * (name, description, location of SKILL.md: UP_INJECT_CATALOG) or its
 * body (the other two).  A new string.
 */
char *up_agent_system(const up_skill *skill, enum up_inject inject);

/* up_agent_system for the n skills of v (a Harbor task's): one catalogue
 * with an entry each, or each body in turn. */
char *up_agent_system_n(const up_skill *v, size_t n, enum up_inject inject);

/* What the system prompt adds when the run tool is offered. */
#define UP_AGENT_RUN_PROMPT                                                    \
    "\n\nThe run tool runs a shell command line in the folder (no network); "  \
    "use it to build, test or check your work."

/* The same without the sandbox (--sandbox none): it claims no isolation. */
#define UP_AGENT_RUN_PROMPT_NONE                                               \
    "\n\nThe run tool runs a shell command line in the folder; use it to "     \
    "build, test or check your work."

/* The run tool's description without the sandbox (the table's own one
 * describes the sandbox): never tell the model it is sandboxed then. */
#define UP_AGENT_RUN_TOOL_NONE                                                 \
    "Run a shell command line (/bin/sh -c) in the workspace folder. It is "    \
    "not sandboxed: it runs with the user's rights and network, so keep to "   \
    "the folder. Limits on time, memory, file size, processes and output. "    \
    "Returns the exit code, stdout and stderr (long output is cut and says "   \
    "so)."

/* The user message of case c in agent mode: its input, and the names of
 * its context files (which are files in the workspace).  A new string. */
char *up_agent_user(const up_case *c);

/*
 * A conversation over case c with system and user (borrowed, must live
 * as long as a), its workspace made with c's files and, when skill is
 * not NULL, the skill installed.  Errors: those of the workspace (UP_EIO,
 * UP_EUNSAFE for a context file name that would leave it).
 */
int up_agent_new(up_agent **out, const up_agent_opts *o, const up_case *c,
                 const up_skill *skill, const char *system, const char *user,
                 up_error *err);

/* Remove the workspace and free a.  NULL is fine. */
void up_agent_free(up_agent *a);

/* The first request (the system prompt, the user message, the tools). */
const up_request *up_agent_first(up_agent *a);

/*
 * Take one answered turn (its text, tool calls and carry are moved out of
 * res), run its tool calls, and give the next request, or NULL when the
 * conversation is over (a final answer, or a limit: see the outcome).
 */
const up_request *up_agent_next(up_agent *a, up_response *res);

/*
 * While a `run` call is under way (up_agent_next or up_agent_resume gave
 * UP_JOB_PARKED): its fds (at most max into fds, count returned) and in
 * *timeout_ms the most to wait before calling up_agent_resume.
 */
int up_agent_wait(const up_agent *a, int *fds, int max, int *timeout_ms);

/*
 * Drive the `run` call under way without blocking: UP_JOB_PARKED while it
 * runs, then (its result added, the turn's remaining calls made) the
 * next request, or NULL when a limit ended the conversation.
 */
const up_request *up_agent_resume(up_agent *a);

/* Count a failed turn's tokens (a provider error ended the conversation). */
void up_agent_failed(up_agent *a, const up_response *res);

/* The conversation so far. */
void up_agent_outcome_get(const up_agent *a, up_agent_outcome *out);

/*
 * The conversation after the system prompt as a new JSON array of
 * artifact messages (docs/runs-format.md, "Case artifacts"): {"role":
 * "user"|"assistant"|"tool", "content": ...}, an assistant turn with
 * "tool_calls": [{"id", "name", "arguments"}], a tool turn with
 * "tool_call_id" and "is_error".  Each text (and each call's arguments)
 * keeps at most cap bytes, cut at a character boundary and marked
 * "content_cut" (or "arguments_cut"): true; text that is not UTF-8
 * becomes null with "binary": true.  Reasoning is not part of it (it is
 * never sent back).  The caller owns the array.
 */
struct json_t *up_agent_transcript(const up_agent *a, size_t cap);

/* The conversation's workspace (for grading), or NULL. */
const up_workspace *up_agent_workspace(const up_agent *a);

/* The neutral system prompt every conversation starts from: an eval's
 * both arms, a tool loop's (defined in src/lib/agent/agent.c, so agent/
 * needs nothing of eval's). */
extern const char up_eval_neutral_prompt[];

#endif
