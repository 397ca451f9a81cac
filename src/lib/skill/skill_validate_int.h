/*
 * Internal interface between the parts of the validator: the pipeline
 * (skill_validate.c), the frontmatter field rules
 * (skill_validate_fields.c) and the body and resource warnings
 * (skill_validate_body.c).  Not installed, not public.
 */
#ifndef UPSKILL_SKILL_VALIDATE_INT_H
#define UPSKILL_SKILL_VALIDATE_INT_H

#include <stddef.h>

#include "upskill/validate.h"
#include "util/yaml.h"

/* What one skill's checks need: where to record, and what is checked. */
struct vctx {
    up_vskill *s;             /* the skill receiving findings */
    enum up_vprofile profile; /* which rules apply */
    const char *file;         /* SKILL.md path used in findings */
    const char *dir;          /* the skill folder (resources, dir name) */
};

/*
 * Record a finding.  file NULL means c->file; line 0 means none.  The
 * message is printf-style text.
 */
void up_vfind(struct vctx *c, const char *file, int line, enum up_vsev sev,
              const char *code, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Check the frontmatter mapping root against the profile's field rules. */
void up_vcheck_fields(struct vctx *c, const up_ynode *root);

/*
 * Check the Markdown body (len bytes starting at file line first_line)
 * and the skill folder's resources; everything here is a warning.
 */
void up_vcheck_body(struct vctx *c, const char *body, size_t len,
                    int first_line);

#endif
