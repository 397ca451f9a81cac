/*
 * The Agent Skills validator: every check of the specification
 * (agentskills.io) and of its reference validator skills-ref, plus
 * warnings for the spec's advice (body size, reference depth, missing
 * files).  docs/validate.md lists the checks and their stable codes.
 *
 * A validation produces a report: one entry per skill folder checked,
 * each with a list of findings.  Bad input (missing files, binary data,
 * huge files) becomes findings, never a failed call.
 *
 * Ownership: the report owns every string it points to; the code strings
 * of findings are static.
 */
#ifndef UPSKILL_VALIDATE_H
#define UPSKILL_VALIDATE_H

#include <stddef.h>

#include "upskill/error.h"

enum up_vsev { UP_V_ERROR, UP_V_WARNING };

enum up_vprofile {
    UP_VP_SPEC,       /* agentskills.io + skills-ref (default) */
    UP_VP_CLAUDE_CODE /* spec + Claude Code's extension keys */
};

typedef struct up_vfinding {
    char *file;       /* the file (or folder) concerned, as given */
    int line;         /* 1-based line in file, 0 when none */
    enum up_vsev sev; /* error or warning */
    const char *code; /* stable identifier, e.g. "name-not-lowercase" */
    char *msg;        /* one line; skills-ref's exact text where it has one */
} up_vfinding;

typedef struct up_vskill {
    char *path;            /* the skill folder (or the path given) */
    up_vfinding *findings; /* in the order found */
    size_t nfindings, cap; /* used and allocated entries */
    size_t nerrors;        /* findings with UP_V_ERROR */
    size_t nwarnings;      /* findings with UP_V_WARNING */
} up_vskill;

typedef struct up_vreport {
    enum up_vprofile profile; /* the profile used */
    up_vskill *skills;        /* one per skill folder, in the order given */
    size_t nskills, cap;      /* used and allocated entries */
    size_t nvalid, ninvalid;  /* skills without / with errors */
    size_t nerrors;           /* sum over skills */
    size_t nwarnings;         /* sum over skills */
} up_vreport;

void up_validate_init(up_vreport *r, enum up_vprofile profile);
void up_validate_release(up_vreport *r);

/*
 * Validate path and append the results to r: path may be a skill folder,
 * its SKILL.md (or skill.md), or a folder whose subfolders are skills
 * (each subfolder holding SKILL.md or skill.md is validated; when none
 * does, the folder itself is reported as a skill missing SKILL.md).
 * Never fails: problems, including unreadable paths, become findings.
 */
void up_validate_path(up_vreport *r, const char *path);

/*
 * Validate SKILL.md text directly (len bytes, any content) as the file
 * `file` of the skill folder `dir`, appending one skill to r.  Body
 * resource checks look in dir.  Used by writers to check what they are
 * about to save.
 */
void up_validate_text(up_vreport *r, const char *text, size_t len,
                      const char *file, const char *dir);

/* Parse "spec" or "claude-code"; UP_EUSAGE with a message otherwise. */
int up_validate_profile_parse(enum up_vprofile *out, const char *name,
                              up_error *err);

/* "spec" or "claude-code". */
const char *up_validate_profile_name(enum up_vprofile p);

/* "error" or "warning". */
const char *up_validate_sev_name(enum up_vsev sev);

#endif
