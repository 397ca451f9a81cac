/*
 * Harbor task folders (docs/harbor.md): task.toml, instruction.md,
 * environment/ (Dockerfile, data files, skills/), tests/ (test.sh...),
 * solution/.  A task becomes one ordinary case in memory: the
 * instruction its input, the Dockerfile's COPY'd files its workspace
 * seed at its WORKDIR, tests/ its hidden check files, and one verifier
 * assertion that runs tests/test.sh and reads the reward it writes.
 *
 * No Docker: the Dockerfile is read, not built.  WORKDIR, COPY/ADD of
 * local files and plain mkdir are emulated; `apt-get install` becomes a
 * requirement checked against dpkg's database; every other RUN step
 * (pip, uv, npm, curl, git...) makes the task not runnable here, with
 * the reason.
 */
#ifndef UPSKILL_HARBOR_H
#define UPSKILL_HARBOR_H

#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/error.h"
#include "upskill/skill.h"
#include "upskill/suite.h"

/* Bytes of task.toml, instruction.md or the Dockerfile read at most. */
#define UP_HARBOR_TEXT_MAX ((size_t)1 << 20)
/* Keys of one task.toml kept at most. */
#define UP_TOML_ENTRIES_MAX 4096
/* A task's seed (its COPY'd files): at most this many files and bytes. */
#define UP_HARBOR_SEED_FILES 4096
#define UP_HARBOR_SEED_BYTES ((size_t)64 << 20)
/* Skills of one task installed at most (SkillsBench's have 1-7). */
#define UP_HARBOR_SKILLS_MAX 16
/* Bytes of one ENV variable (NAME=value, expanded) at most, and ENV
 * variables of a Dockerfile at most. */
#define UP_HARBOR_ENV_BYTES ((size_t)64 << 10)
#define UP_HARBOR_ENV_MAX   256
/* Task folders under one --tasks folder, at most. */
#define UP_HARBOR_TASKS_MAX 1000
/* Caps on task.toml's time limits, in seconds (the agent's is the run
 * tool's wall clock per call, the verifier's each check's). */
#define UP_HARBOR_AGENT_MAX_S    3600u
#define UP_HARBOR_VERIFIER_MAX_S 3600u
/* Where dpkg keeps what is installed. */
#define UP_HARBOR_DPKG_STATUS "/var/lib/dpkg/status"

/* ---- task.toml: a lenient reader of the subset task files use ---- */

enum up_toml_type {
    UP_TOML_STRING,
    UP_TOML_NUMBER,
    UP_TOML_BOOL,
    UP_TOML_ARRAY, /* kept as its text */
    UP_TOML_OTHER  /* inline tables, dates: kept as their text */
};

/* One key = value line, under its table ("" at the top). */
typedef struct up_toml_entry {
    char *table;
    char *key;
    char *value; /* a string's text (escapes read), else the raw text */
    int type;    /* enum up_toml_type */
    int line;
} up_toml_entry;

typedef struct up_toml {
    up_toml_entry *v;
    size_t n, cap;
} up_toml;

/*
 * Read len bytes of TOML text into t (zeroed first by the caller):
 * tables ([a.b], [[a]]), key = string (basic, literal, multi-line),
 * number, bool, array, inline table; comments.  Unknown keys are kept.
 * What it cannot read is UP_EPARSE naming file:line and what it
 * expected.  On error t holds what came before.
 */
int up_toml_parse(up_toml *t, const char *text, size_t len, const char *file,
                  up_error *err);
void up_toml_release(up_toml *t);

/* The last entry table.key, or NULL. */
const up_toml_entry *up_toml_get(const up_toml *t, const char *table,
                                 const char *key);

/* ---- the Dockerfile ---- */

/* One COPY/ADD of local files: src relative to environment/, dest an
 * absolute path in the image. */
typedef struct up_docker_copy {
    char *src;
    char *dest;
    int into; /* 1: dest is a folder to copy into (several sources, or
                 a trailing slash) */
} up_docker_copy;

typedef struct up_docker {
    char *workdir; /* the last WORKDIR, or NULL */
    up_docker_copy *copies;
    size_t ncopies, copies_cap;
    char **mkdirs; /* absolute folders of plain `mkdir` steps */
    size_t nmkdirs, mkdirs_cap;
    char **skill_dests; /* where `COPY skills DEST` puts the skills */
    size_t nskill_dests, skill_dests_cap;
    char **apt; /* packages `apt-get install` names */
    size_t napt, apt_cap;
    char **env; /* NAME=value of its ENV lines, expanded, each NAME once
                   (the last value), NULL-ended; or NULL */
    size_t nenv, env_cap;
    up_buf blocked; /* "; "-separated reasons the task cannot run here */
} up_docker;

/*
 * Read Dockerfile text (file names it in reasons) into d (zeroed by the
 * caller).  Never fails: what is not emulated goes into d->blocked,
 * naming the line ("line 7: RUN pip install ... needs the network").
 */
void up_docker_parse(up_docker *d, const char *text, const char *file);
void up_docker_release(up_docker *d);

/*
 * Append to missing, space-separated, the packages of pkgs[0..n) that
 * dpkg's status file status_path (NULL: UP_HARBOR_DPKG_STATUS) does not
 * list as installed ("Status: install ok installed").  An architecture
 * suffix (":amd64") and a version ("=1.2") are ignored.  Returns how
 * many are missing; an unreadable status file makes them all missing.
 * With no package (n 0) the status file is not read.
 */
size_t up_harbor_missing_packages(const char *status_path,
                                  const char *const *pkgs, size_t n,
                                  up_buf *missing);

/* Where the skill arm installs a task's skills, in the workspace. */
#define UP_HARBOR_SKILLS_AT ".agents/skills"

/*
 * When test_sh (a tests/test.sh) installs tools from the network (a
 * line starting pip, pip3, uv, uvx, curl, wget or npm): append to cmd
 * the offline verifier, `bash -c SCRIPT /tests/test.sh` where SCRIPT is
 * test_sh with its install steps replaced by `:`, `uvx [options]` and
 * `uv run [options]` cut to the command they run, here-documents as
 * they are, and `python` standing for python3 when missing; when it
 * names pytest and python3's pytest is missing it writes no reward,
 * saying so (the trial is not gradable).  Returns 1 then, else 0 (cmd
 * untouched; also for a SCRIPT over 64 KiB).
 */
int up_harbor_offline_verifier(const char *test_sh, up_buf *cmd);

/* Where the oracle finds, in the skill arm, a copy of the task's skills
 * folder as it is (folder names, every file): under its /solution. */
#define UP_HARBOR_ORACLE_SKILLS "/solution/.skills"

/*
 * Append to out, for the oracle in the skill arm, a shell prefix that
 * copies the task's skills folder (UP_HARBOR_ORACLE_SKILLS) to each
 * place d's `COPY skills DEST` puts it, as Docker does: every file,
 * under the skills' folder names (reference solutions read them there:
 * /root/.claude/skills/<folder>/...).  workdir is unused.
 */
void up_harbor_skill_links(up_buf *out, const up_docker *d,
                           const char *workdir);

/* ---- tasks ---- */

/* One task folder, read. */
typedef struct up_harbor_task {
    char *dir;           /* the folder as given */
    char *name;          /* its last component */
    char *workdir;       /* where the workspace sits ("/root" by default) */
    unsigned agent_s;    /* [agent] timeout_sec, capped (0: none given) */
    unsigned verifier_s; /* [verifier] timeout_sec, capped (0: none) */
    double cpus;         /* [environment] cpus (0: none given) */
    double memory_mb;    /* [environment] memory_mb (0: none given) */
    int allow_internet;  /* [environment] allow_internet (default 1) */
    double threshold;    /* the reward that passes ([upskill]
                            reward_threshold, default 1) */
    char *skills_dir;    /* environment/skills or [environment]
                            skills_dir, when it exists; or NULL */
    char **skills;       /* its sub-folders holding a SKILL.md, sorted */
    size_t nskills;
    int runnable;     /* 1: it can run here */
    up_buf why;       /* when not runnable: why ("; "-separated) */
    up_skill *loaded; /* its skills, loaded (eval only), as skills */
    int has_skill;    /* 1: all were loaded, and there is one at least */
    char *left_out;   /* set->sound: a runnable task with skills that file
                         does not mark sound, left out of the suite: its
                         verdict there, or "not checked" (not in it) */
} up_harbor_task;

typedef struct up_harbor_set {
    up_harbor_task *v;
    size_t n, cap;
    const char *sound; /* in, or NULL: the verdicts file of `--check
                          --sound FILE` (below); only the tasks it marks
                          sound become cases */
    int online_ok;     /* in: 1 (--online-instructions): an instruction
                          that sends the student to the network (a URL,
                          a website, an online database, an install)
                          does not make its task not runnable */
} up_harbor_set;

/*
 * The verdicts file `--check --sound FILE` writes and `--sound FILE`
 * reads: one line per task checked, its name, a tab, then one of
 * UP_HARBOR_VERDICTS.  Names holding a tab, CR or newline are not
 * written (such a task is then "not checked").  At most
 * UP_HARBOR_TEXT_MAX bytes.
 */
#define UP_HARBOR_VERDICTS                                                     \
    {                                                                          \
        "sound", "sound in the skill arm only", "not sound"                    \
    }

/*
 * Read dir: a task folder (it holds task.toml), or a folder of them
 * (each sub-folder holding a task.toml, sorted).  Each task is
 * classified runnable or not (the Dockerfile, dpkg, then read in full:
 * its files and skills, dropped again when s is NULL).  With s not NULL,
 * each runnable task with skills is also read in full and appended to s
 * as one case (its input, seed, check files, verifier assertion,
 * workdir, time limits and skills, which set owns).  A task that cannot
 * be read (task.toml at file:line, a limit above, a skill that does not
 * load) is not runnable, the error its why; the others go on.  With
 * set->sound, a runnable task with skills that file does not mark sound
 * is no case (its left_out says why).  Errors: UP_ENOTFOUND (no task
 * here), UP_ETOOBIG (too many tasks, a verdicts file too big), UP_EIO,
 * UP_EPARSE (a verdicts line that is not NAME, tab, verdict: file:line).
 */
int up_harbor_load(up_harbor_set *set, up_suite *s, const char *dir,
                   up_error *err);
void up_harbor_release(up_harbor_set *set);

#endif
