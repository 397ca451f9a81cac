/*
 * A folder of skills, as `upskill list` shows it: each sub-folder holding
 * a SKILL.md, loaded, with token estimates and its number of tests.  A
 * skill that fails to load is kept with its error.
 */
#ifndef UPSKILL_CATALOG_H
#define UPSKILL_CATALOG_H

#include <stddef.h>

#include "upskill/error.h"
#include "upskill/skill.h"

/* One sub-folder of DIR holding a SKILL.md. */
typedef struct up_catalog_entry {
    char *folder; /* the label: the folder name */
    up_skill skill;
    int ok;           /* loaded without error */
    up_error err;     /* when !ok */
    size_t md_tokens; /* estimate for the whole SKILL.md */
    size_t ref_tokens;
    long ncases; /* tests in skill_meta.json, else in skill-creator's
                    evals/evals.json; -1 without either file */
} up_catalog_entry;

typedef struct up_catalog {
    up_catalog_entry *v;
    size_t n, cap;
    size_t tokens, failed; /* SKILL.md + references tokens; failures */
} up_catalog;

/*
 * Load every sub-folder of dir that holds a SKILL.md (one level deep,
 * sorted, hidden folders skipped) into c, which must be zeroed.  Fails
 * only when dir cannot be read; skills that fail are entries with ok = 0.
 */
int up_catalog_scan(up_catalog *c, const char *dir, up_error *err);
void up_catalog_release(up_catalog *c);

#endif
