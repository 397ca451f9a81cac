/*
 * Executable checks: the `command` assertion (docs/assertions.md) run in
 * the sandbox, in the conversation's workspace, once the agent stopped.
 *
 * A check passes on exit 0.  Its output (stdout then stderr, each capped
 * at UP_CHECK_OUTPUT bytes and marked when cut) goes into the result's
 * output, which the case artifact keeps.  A check whose program is not
 * installed (looked up on the sandbox's PATH and in CUDA's standard
 * prefix) is UP_ASSERT_UNGRADABLE, naming the program: the case is not
 * gradable, never a pass and never a silent fail.
 *
 * Checks take seconds (a compiler), so they never block the scheduler:
 * a job whose conversation is over starts its checks one at a time
 * (up_check_start) and stays parked on their descriptors until they
 * end, then lands and frees its workspace; so at most -j workspaces
 * live at once.
 */
#ifndef UPSKILL_CHECK_H
#define UPSKILL_CHECK_H

#include <stddef.h>

#include "lib/cases/assert.h"
#include "upskill/buf.h"
#include "upskill/fs.h"
#include "upskill/sandbox.h"

/* Bytes of each stream of a check's output kept in the result. */
#define UP_CHECK_OUTPUT ((size_t)8 << 10)
/* Bytes of each stream of a verifier's output read for the reason it
 * failed (up_check_reason: pytest's summary comes last); of them,
 * UP_CHECK_OUTPUT are kept. */
#define UP_CHECK_VERIFIER_SCAN ((size_t)1 << 20)
/* Wall clock of one check, in seconds (a compile of a kernel fits). */
#define UP_CHECK_WALL_S 300u
/* CUDA's standard install prefix, searched after the sandbox's PATH. */
#define UP_CHECK_CUDA_BIN "/usr/local/cuda/bin"

/* Where a check sees its case's hidden files (read-only). */
#define UP_CHECK_TESTS_DIR "/tests"
/* Where a verifier writes its reward (writable, private to the check),
 * and the files it may write there, read in this order. */
#define UP_CHECK_LOGS_DIR    "/logs/verifier"
#define UP_CHECK_REWARD_TXT  "reward.txt"
#define UP_CHECK_REWARD_JSON "reward.json"

/* Where a verifier finds upskill's pytest --ctrf plugin (its module
 * UP_CHECK_CTRF_MODULE, importable through PYTHONPATH and loaded through
 * PYTEST_PLUGINS): a folder beside its hidden files. */
#define UP_CHECK_CTRF_DIR    ".upskill-pytest"
#define UP_CHECK_CTRF_MODULE "upskill_ctrf"

/* The plugin's Python source (check_ctrf.c). */
const char *up_check_ctrf_plugin(void);

/* The sitecustomize.py written beside it (check_ctrf.c): the folders in
 * UPSKILL_PYTHONPATH_LATE appended to sys.path, then the system's own
 * sitecustomize.  UPSKILL_STUDENT_DIRS, in a verifier's environment, is
 * the folders the student can write (its WORKDIR, its places). */
const char *up_check_sitecustomize(void);
#define UP_CHECK_STUDENT_DIRS "UPSKILL_STUDENT_DIRS"

/* Limits of up_check_own_bytes: entries walked, folders deep, bytes
 * copied to break hard links. */
#define UP_CHECK_OWN_ENTRIES 100000u
#define UP_CHECK_OWN_DEPTH   64u
#define UP_CHECK_OWN_BYTES   ((size_t)256 << 20)

/*
 * Make the workspace ws (a host folder) the student's own bytes before a
 * check grades it (check_own.c): every symlink, FIFO, socket and device
 * under it removed (never followed), every regular file with several
 * links given a copy of its own, every sitecustomize and usercustomize
 * removed.  0, or UP_ETOOBIG past a limit above,
 * UP_EIO / UP_ENOTFOUND, err saying what.
 */
int up_check_own_bytes(const char *ws, up_error *err);

/* One check to run: command assertion a in the workspace folder ws. */
typedef struct up_check_item {
    const up_assert *a;        /* borrowed, a command assertion */
    const char *ws;            /* borrowed, the workspace folder */
    up_assert_result *res;     /* borrowed, settled here */
    const up_fs_entry *files;  /* borrowed: files only the check sees, */
    size_t nfiles;             /* read-only at UP_CHECK_TESTS_DIR */
    const up_fs_entry *owned;  /* borrowed: workspace files the check */
    size_t nowned;             /* owns, put back before it starts */
    const char *ws_at;         /* where the workspace sits in the sandbox, or
                                  NULL: /workspace */
    unsigned wall_s;           /* its wall clock (and CPU) in seconds; 0:
                                  UP_CHECK_WALL_S */
    const char *files_at;      /* where files are bound, or NULL:
                                  UP_CHECK_TESTS_DIR */
    const char *const *places; /* folders outside ws_at bound writable
                                  (up_sandbox_extra), or NULL */
    const char *const *env;    /* the task's NAME=value words (a Harbor
                                  Dockerfile's ENV), or NULL: for a
                                  verifier, without PATH entries under
                                  ws_at or a place (check_env_task) */
    int student_env;           /* 1: the `run` tool's environment (HOME the
                                  workspace, the workspace's modules
                                  importable), not the check's: a
                                  reference solution, run as the student */
    size_t quota_bytes;        /* bwrap: the workspace is, while the check
                                  runs, a file system of this size (its
                                  log folder one of UP_CHECK_LOGS_MAX):
                                  the student's code it runs cannot fill
                                  the disk (0: no bound) */
    size_t quota_files;        /* and of this many entries (0: no cap) */
} up_check_item;

/*
 * Find the program of command line cmd (its first word, after any
 * VAR=value words) as the check would: a shell builtin or a relative
 * path (a workspace file) is taken as is; an absolute path must be an
 * executable under a system folder the sandbox binds (/usr, /bin, /sbin,
 * /lib, /lib64); a name is looked up on the sandbox's PATH, then in
 * UP_CHECK_CUDA_BIN.  Returns 1 when found, with the folder to add to
 * PATH in dir ("" when none is needed), else 0, with the name in prog.
 * dir and prog may be NULL.
 */
int up_check_find(const char *cmd, up_buf *dir, up_buf *prog);

/* A check under way (opaque). */
typedef struct up_check_run up_check_run;

/*
 * Start check it in mode.  First the files it owns are written back into
 * the workspace over whatever the student left there, and its hidden
 * files are written into a private folder beside the workspace (removed
 * by up_check_end), bound read-only at UP_CHECK_TESTS_DIR: only mode
 * bwrap can, so in mode none a check with hidden files fails saying so.
 * The check's environment adds PYTHONSAFEPATH=1 and PYTHONNOUSERSITE=1
 * and, under bwrap, HOME=/tmp (the sandbox's own tmpfs), so no file of
 * the student's shadows the checker's program or its start-up.  Returns
 * the run, or NULL when there is nothing to wait for: it->res is then
 * settled already (UP_ASSERT_UNGRADABLE when the program is not
 * installed, UP_ASSERT_FAIL saying why the files could not be written
 * or the sandbox could not start).  it must live until up_check_end.
 */
up_check_run *up_check_start(const up_check_item *it, up_sandbox_mode mode);

/* Its fds to poll for POLLIN (at most 3; their count) and in
 * *timeout_ms the most to wait before stepping again. */
int up_check_wait(const up_check_run *c, int fds[3], int *timeout_ms);

/* Read its output, enforce its limits; 1 once it has ended. */
int up_check_step(up_check_run *c);

/*
 * End c and free it (NULL is fine).  kill 0, once step said it ended:
 * settle its result from how the check ended -- UP_ASSERT_PASS on exit
 * 0, UP_ASSERT_FAIL otherwise (the message says the exit code, the
 * limit broken or the first line of stderr).  A verifier (Harbor's
 * tests/test.sh) is settled by its reward instead, whatever its exit
 * code: reward.txt (a number) or reward.json ({"reward": x}) in the
 * private folder it had at UP_CHECK_LOGS_DIR; PASS when the reward is
 * at least the assertion's threshold, FAIL below it, and
 * UP_ASSERT_UNGRADABLE (an errored trial, never a fail) when neither
 * file holds a number, saying why -- and when the reward may not be
 * the verifier's own: a process of its sandbox was left when its
 * command ended, a limit stopped it, a reward file is not a regular
 * file with one link its owner can write, the folder was made
 * read-only, or reward.txt and reward.json disagree (docs/assertions.md,
 * "The reward is the verifier's").  Before any check but the oracle's
 * (student_env), the workspace is made the student's own bytes
 * (up_check_own_bytes).  kill 1: it is given up
 * on (an interrupt), killed if it still runs, and nothing is settled:
 * the job stays to do.
 */
void up_check_end(up_check_run *c, int kill);

/*
 * Append to out the programs of a short probe list (gcc, cc, g++,
 * python3, pytest, node, nvcc, go, cargo, javac, make) that a check could
 * run on this machine, comma-separated ("none" when none is).
 */
void up_check_programs_text(up_buf *out);

/* Bytes of one line of a reason up_check_reason gives, at most. */
#define UP_CHECK_REASON_LINE 200

/*
 * Why a check's output out[0..n) (a result's output: "--- stdout ---"
 * and "--- stderr ---" sections) says it failed, appended to why: the
 * first of pytest's summary lines "FAILED tests/x.py::name - message"
 * or "ERROR tests/x.py - message" (and how many more there were); else
 * the first failing test's name (its "____ name ____" header, or
 * unittest's "FAIL: name") and its first "E   " line (unittest's first
 * "SomeError: ..." line); else the last line that is not a marker of ours
 * ("[cut at N bytes]", a section's header).  Each line at most
 * UP_CHECK_REASON_LINE bytes.  Nothing when out has no such line.
 */
void up_check_reason(up_buf *why, const char *out, size_t n);

#endif
