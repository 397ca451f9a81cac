/*
 * A workspace: the private folder one agent conversation works in, and
 * the tools a model uses on it (docs/agent-mode.md).
 *
 * up_workspace_new makes a fresh 0700 folder under a parent the caller
 * names; the case's context.files are added as files and, in the skill
 * arm only, the skill folder is installed at .agents/skills/<name>/.
 * Every tool works through the folder's descriptor (the root) and never
 * leaves it: "..", absolute paths and symlinks that would lead outside
 * are refused with a tool error the model reads.  The workspace records
 * what the tools did (calls, errors and time per tool; whether the
 * installed SKILL.md was read, which references/ and scripts/ files)
 * and up_workspace_free removes the folder.  A quota (bytes and entries)
 * bounds what the folder holds, whoever writes: the tools refuse a write
 * past it, the run tool measures the folder after each command.
 *
 * Thread safety: one workspace belongs to one conversation; calls on
 * different workspaces may run at once.
 */
#ifndef UPSKILL_WORKSPACE_H
#define UPSKILL_WORKSPACE_H

#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/error.h"
#include "upskill/fs.h"
#include "upskill/agent.h"
#include "upskill/sandbox.h"
#include "upskill/skill.h"

/* Files a snapshot lists at most; the rest are counted in "more". */
#define UP_WS_SNAPSHOT_ENTRIES 2000

/* What one tool did in one workspace (upstream's tool_call_map,
 * tool_error_map and tool_time_ms). */
typedef struct up_tool_stat {
    long calls;
    long errors;
    double time_ms;
} up_tool_stat;

#define UP_TOOL_ROWS 16 /* room in the per-tool counters: table + unknown */

typedef struct up_workspace {
    char *path;        /* the folder, absolute when parent was */
    int dirfd;         /* the folder, the root of every tool path */
    up_ws_limits lim;  /* caps in force */
    char *skill_dir;   /* ".agents/skills/<name>", or NULL (baseline) */
    size_t written;    /* bytes the tools wrote */
    size_t created;    /* files the tools created */
    size_t used_bytes; /* what the folder holds, against the quota: */
    size_t used_files; /* measured by up_workspace_usage, kept by the
                          setup and the tools as they write */
    int usage_unknown; /* 1: a setup write replaced a file, the counts
                          need up_workspace_usage's walk */
    up_tool_stat stat[UP_TOOL_ROWS]; /* by row, see up_tool_stat_name */
    int skill_read;   /* SKILL.md of the installed skill was read */
    char **refs_read; /* references/ files read, relative to skill_dir */
    size_t nrefs_read, refs_cap;
    char **scripts_used; /* scripts/ files read or run */
    size_t nscripts_used, scripts_cap;
    int run_tool;              /* 1: "run" may be called (0: unknown) */
    up_sandbox_mode sandbox;   /* how the run tool runs (default bwrap) */
    up_sandbox_limits run_lim; /* per run call (the sandbox's defaults) */
    const char *workdir;       /* where the run tool's commands see the folder
                                  (borrowed: the case's), or NULL: /workspace */
    const char *const *places; /* the case's places outside it (borrowed,
                                  up_sandbox_extra), or NULL */
    const char *const *env;    /* the case's NAME=value words for the run
                                  tool (borrowed), or NULL */
} up_workspace;

/*
 * Make a fresh private folder ("upskill-ws-XXXXXX", mode 0700) under
 * parent (NULL: $TMPDIR or /tmp) and return its workspace in *out.  lim
 * NULL takes the defaults.  Errors: UP_EIO naming the parent.
 */
int up_workspace_new(up_workspace **out, const char *parent,
                     const up_ws_limits *lim, up_error *err);

/*
 * Remove the folder and everything in it (symlinks are removed, never
 * followed) and free w.  NULL is fine.  Safe after any partial failure.
 */
void up_workspace_free(up_workspace *w);

/*
 * A run's private folder of workspaces (workspace_run.c): make
 * "upskill-run-PID-XXXXXX" (mode 0700) under root, its path into dir, and hold
 * an flock on it through *lockfd for the run's life.  0, or -1 (errno) with
 * nothing made and *lockfd -1.
 */
int up_ws_run_dir_new(up_buf *dir, int *lockfd, const char *root);

/* Remove run folder dir with all in it (a warning names what stays),
 * then release its lock. */
void up_ws_run_dir_free(const char *dir, int lockfd);

/*
 * Remove the run folders under root that a dead run left: ours (same
 * user), named with a pid that is not a live process and not locked by
 * any process.  Returns how many went.
 */
size_t up_ws_sweep(const char *root);

/*
 * Add len bytes of data as the file rel (relative, no "..", no empty
 * part), making its folders; mode 0755 when executable, else 0644.
 * Setup, not a tool call: the tool caps do not apply.  Errors:
 * UP_EUNSAFE (a path that would leave the folder), UP_EIO.
 */
int up_workspace_add_file(up_workspace *w, const char *rel, const void *data,
                          size_t len, int executable, up_error *err);

/*
 * Seed the folder with the n entries of v (a Harbor task's COPY'd files,
 * binary-safe; data NULL: an empty folder), as setup.  Errors: UP_ETOOBIG
 * naming the config key when they do not fit in the quota (nothing is
 * written then), those of add_file.
 */
int up_workspace_seed(up_workspace *w, const up_fs_entry *v, size_t n,
                      up_error *err);

/*
 * Install skill s at .agents/skills/<name>/: SKILL.md (rendered as
 * up_skill_save writes it) and every resource file with its run bit.
 * Records the folder in w->skill_dir.  Errors: those of add_file,
 * UP_EPARSE for a skill without a safe name, UP_EUNSAFE with the loader's
 * message for a file name up_skill_check_file_name refuses, UP_ETOOBIG
 * for a skill that does not fit in the quota beside what the folder
 * holds (up_workspace_skill_fits; nothing is installed then).
 */
int up_workspace_install_skill(up_workspace *w, const up_skill *s,
                               up_error *err);

/*
 * 0 when skill s (SKILL.md as installed, its files and the folders they
 * need) fits in lim's quota beside used_bytes and used_files already
 * held, else UP_ETOOBIG with a message naming the skill, its size and
 * the config key.  Callers check a skill before any request.
 */
int up_workspace_skill_fits(const up_skill *s, const up_ws_limits *lim,
                            size_t used_bytes, size_t used_files,
                            up_error *err);

/*
 * Measure what the folder holds into w->used_bytes (regular files' and
 * symlinks' sizes) and w->used_files (every entry below the root),
 * never following a link.  The walk stops one entry past the file
 * quota (a command may have made millions), so a breach is seen at a
 * bounded cost.  Nothing is left out: a folder its owner cannot read
 * or enter (chmod 000) is given u+rwx first, and anything more than 256
 * folders deep, or still unreadable, is a breach that the quota cannot
 * count (used_files is then set past the file quota, so run and the
 * tools' writes are refused as for any breach).  Returns 0 within the
 * quota, or 1 with the breach ("the workspace holds N bytes, over its
 * quota of M bytes (config workspace_max_bytes)") appended to why.
 */
int up_workspace_usage(up_workspace *w, up_buf *why);

/*
 * up_workspace_usage's verdict on the counts the setup and the tools
 * keep, without its walk unless a count is not known (usage_unknown):
 * after the in-process setup and tools only; after anything a process
 * did (a run command, a CLI), call up_workspace_usage.
 */
int up_workspace_quota(up_workspace *w, up_buf *why);

/*
 * Append the whole file rel (at most max bytes) to out, for grading.
 * Errors: UP_ENOTFOUND, UP_EUNSAFE (outside the folder, a symlink out),
 * UP_ETOOBIG, UP_EPARSE (not a regular file), UP_EIO.
 */
int up_workspace_read(const up_workspace *w, const char *rel, size_t max,
                      up_buf *out, up_error *err);

/*
 * Append to out a JSON object listing the files after the run:
 * {"files": [{"path", "size", "content", "truncated", "binary"}],
 *  "truncated": bool}.  At most UP_WS_SNAPSHOT_ENTRIES files are listed;
 * past them "more" counts the files left out ("truncated": true).  Each
 * content holds at most max_file bytes (cut at
 * a character boundary, "truncated": true), contents together at most
 * max_total (later files get "content": null, "truncated": true).  Text
 * that is not UTF-8 gets "content": null, "binary": true.  The installed
 * skill folder is left out; symlinks are listed with "symlink": true and
 * never followed.
 */
void up_workspace_snapshot(const up_workspace *w, size_t max_file,
                           size_t max_total, up_buf *out);

/*
 * Record that the file rel was read or used: SKILL.md of the installed
 * skill sets skill_read; a references/ or scripts/ file of it is added
 * (once) to refs_read or scripts_used.  Tools call this; the run tool
 * calls it for each scripts/ path its command line names.
 */
void up_workspace_note_use(up_workspace *w, const char *rel);

/*
 * Append to out the tool side of upstream's run_result fields as a JSON
 * object: "tool_calls", "tool_errors" (ints), "tool_call_map",
 * "tool_error_map" ({tool: count}, tools with a count only; calls to
 * tools not in the table under "unknown"), "tool_time_ms" (time spent
 * in tool handlers), and for the installed skill "skill_read" (bool;
 * null in the baseline arm, which has no skill), "references_read" and
 * "scripts_used" (lists of paths relative to the skill folder).
 */
void up_workspace_stats_json(const up_workspace *w, up_buf *out);

/* ---- tools ---- */

struct json_t;

/*
 * A tool handler: run with the parsed arguments (a JSON object whose
 * keys the table's checker has already validated) and append the text
 * the model reads to out.  Return 0, or 1 for a tool error (out says
 * why).  Never fails otherwise.
 */
typedef int (*up_tool_fn)(up_workspace *w, const struct json_t *args,
                          up_buf *out);

/* One argument of a tool, as the checker validates it. */
typedef struct up_tool_arg {
    const char *name;
    int type;     /* UP_TOOL_ARG_STRING, _BOOL, _INT */
    int required; /* 1: missing is a tool error */
} up_tool_arg;

enum { UP_TOOL_ARG_STRING, UP_TOOL_ARG_BOOL, UP_TOOL_ARG_INT };

enum {
    UP_TOOL_SLOW = 1 /* may take seconds: it has a start handler, and a
                      * caller may run it off the event thread through
                      * up_tool_begin ("run") */
};

typedef struct up_tool_pending up_tool_pending;

/* A slow tool's start: begin the work and return 0 with *p set, or 1 for
 * a tool error (out says why) with *p NULL. */
typedef int (*up_tool_start_fn)(up_workspace *w, const struct json_t *args,
                                up_tool_pending **p, up_buf *out);

/* One row of the tool table. */
typedef struct up_tool {
    const char *name;        /* "read_file" */
    const char *description; /* what the model reads */
    const char *parameters;  /* JSON schema of the arguments object */
    const up_tool_arg *args; /* the same, for the checker; ends at name NULL */
    unsigned flags;          /* UP_TOOL_SLOW... */
    up_tool_fn run;          /* the whole call, blocking */
    up_tool_start_fn start;  /* UP_TOOL_SLOW: the call's start, or NULL */
} up_tool;

/* The table: *n rows (n may be NULL). */
const up_tool *up_tool_table(size_t *n);

/* The row named name, or NULL. */
const up_tool *up_tool_find(const char *name);

/*
 * Call the tool name with the model's JSON argument text (args, len
 * bytes; "" is taken as {}) on w, appending the text the model reads to
 * out.  Returns 0, or 1 for a tool error: an unknown tool, arguments that
 * are not a JSON object or over the cap, a missing, ill-typed or unknown
 * argument, and each handler's refusals.  Counts the call, error and
 * time in w->stat.  Never touches anything outside w's folder.
 */
int up_tool_invoke(up_workspace *w, const char *name, const char *args,
                   size_t len, up_buf *out);

/*
 * The same call, but a slow tool (UP_TOOL_SLOW: "run") is only started:
 * *p is then the call under way, to be driven with up_tool_pending_fds /
 * _step and ended with up_tool_pending_end, and 0 is returned.  Any
 * other tool, and a slow tool's refusal (bad arguments), runs to the end
 * here as up_tool_invoke does, with *p NULL.
 */
int up_tool_begin(up_workspace *w, const char *name, const char *args,
                  size_t len, up_tool_pending **p, up_buf *out);

/* The fds (at most 3) to poll for POLLIN into fds, their count returned,
 * and in *timeout_ms the most to wait before stepping again. */
int up_tool_pending_fds(const up_tool_pending *p, int fds[3], int *timeout_ms);

/* Make progress without blocking; 1 when the call is over. */
int up_tool_pending_step(up_tool_pending *p);

/* Wait for the end of the call (blocking only when step has not yet
 * returned 1), append its result to out, count it like up_tool_invoke
 * and free p.  Returns 0, or 1 for a tool error. */
int up_tool_pending_end(up_tool_pending *p, up_buf *out);

/* Stop the call (its command killed, no result) and free p; counted as
 * a call with an error. */
void up_tool_pending_cancel(up_tool_pending *p);

/*
 * Name of counter row i of w->stat ("read_file", ..., "unknown" for the
 * calls to tools not in the table), or NULL past the end.
 */
const char *up_tool_stat_name(size_t i);

#endif
