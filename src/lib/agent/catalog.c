/*
 * Scanning a folder of skills for `upskill list` (include/upskill/catalog.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/cases/suite_lib.h"
#include "lib/skill/skill_lib.h"
#include "upskill/alloc.h"
#include "upskill/catalog.h"
#include "upskill/fs.h"
#include "upskill/suite.h"

/* Cases in skill-creator's evals/evals.json, when skill_meta.json has
 * none and the file exists. */
static int count_evals(up_catalog_entry *e, const char *path)
{
    up_buf file = UP_BUF_INIT;
    up_suite suite;
    int rc = 0;

    up_suite_init(&suite);
    up_fs_join(&file, path, "evals/evals.json");
    if (e->ncases <= 0 && up_fs_exists(file.data)) {
        rc = up_suite_load_evals(&suite, file.data, path, &e->err);
        e->ncases = (long)suite.ncases;
    }
    up_suite_release(&suite);
    up_buf_release(&file);
    return rc;
}

static int count_tests(up_catalog_entry *e, const char *path)
{
    up_buf file = UP_BUF_INIT;
    up_suite suite;
    int rc;

    e->ncases = e->skill.has_meta ? 0 : -1;
    if (!e->skill.tests_json)
        return 0;
    up_suite_init(&suite);
    up_fs_join(&file, path, "skill_meta.json");
    rc =
        up_suite_parse(&suite, e->skill.tests_json, strlen(e->skill.tests_json),
                       file.data, "tests", &e->err);
    e->ncases = (long)suite.ncases;
    up_suite_release(&suite);
    up_buf_release(&file);
    return rc;
}

static int load_entry(up_catalog_entry *e, const char *path)
{
    up_buf md = UP_BUF_INIT, file = UP_BUF_INIT;
    int rc;

    rc = up_skill_load(&e->skill, path, &e->err);
    if (rc)
        goto out;
    up_fs_join(&file, path, "SKILL.md");
    rc = up_fs_read(&md, file.data, UP_FS_MAX_READ, &e->err);
    if (rc)
        goto out;
    e->md_tokens = up_tokens_estimate(md.data, md.len);
    for (size_t i = 0; i < e->skill.nfiles; i++)
        if (!strncmp(e->skill.files[i].path, "references/", 11))
            e->ref_tokens += up_tokens_estimate(e->skill.files[i].data,
                                                e->skill.files[i].len);
    rc = count_tests(e, path);
    if (!rc)
        rc = count_evals(e, path);
out:
    up_buf_release(&md);
    up_buf_release(&file);
    return rc;
}

static void add_entry(up_catalog *l, const char *dir, const char *name)
{
    up_buf path = UP_BUF_INIT;
    up_catalog_entry *e;

    UP_GROW(l->v, l->cap, l->n + 1);
    e = &l->v[l->n++];
    memset(e, 0, sizeof(*e));
    e->folder = up_xstrdup(name);
    up_skill_init(&e->skill);
    up_fs_join(&path, dir, name);
    e->ok = load_entry(e, path.data) == 0;
    if (e->ok)
        l->tokens += e->md_tokens + e->ref_tokens;
    else
        l->failed++;
    up_buf_release(&path);
}

/* Sub-folders holding SKILL.md, one level deep, sorted; hidden ones skipped. */
int up_catalog_scan(up_catalog *l, const char *dir, up_error *err)
{
    up_buf md = UP_BUF_INIT;
    char **names = NULL;
    int rc = up_fs_list(&names, NULL, dir, err);

    for (char **p = names; !rc && *p; p++) {
        up_buf_reset(&md);
        up_fs_join(&md, dir, *p);
        up_buf_adds(&md, "/SKILL.md");
        if ((*p)[0] != '.' && up_fs_is_file(md.data))
            add_entry(l, dir, *p);
    }
    up_strv_free(names);
    up_buf_release(&md);
    return rc;
}

void up_catalog_release(up_catalog *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].folder);
        up_skill_release(&l->v[i].skill);
    }
    free(l->v);
}
