/*
 * Prompt templates: the built-in ones are the files prompts/NAME.md embedded in
 * the binary; config prompts_dir overrides them file by file.  Templates use
 * {{key}} placeholders, expanded in one pass over the template only, so a
 * value (a task, a trace, a skill) is never read as a template: braces
 * and percent signs in user text are safe.
 */
#include <string.h>

#include "lib/gen/gen_lib.h"
#include "lib/gen/gen_int.h"
#include "upskill/fs.h"
#include "upskill/gen.h"

static const char *const names[] = {"system",       "generate", "improve",
                                    "refine",       "repair",   "tests",
                                    "tests-system", NULL};

const char *const *up_gen_prompt_names(void)
{
    return names;
}

static const up_gen_builtin *builtin(const char *name)
{
    for (const up_gen_builtin *b = up_gen_builtins; b->name; b++)
        if (!strcmp(b->name, name))
            return b;
    return NULL;
}

int up_gen_prompt(up_buf *out, const char *name, const char *prompts_dir,
                  up_error *err)
{
    const up_gen_builtin *b = builtin(name);
    up_buf path = UP_BUF_INIT;
    int rc = 0;

    if (!b)
        return up_error_set(err, UP_ENOTFOUND, "no prompt named '%s'", name);
    if (prompts_dir && *prompts_dir) {
        up_fs_join(&path, prompts_dir, name);
        up_buf_adds(&path, ".md");
    }
    if (path.len && up_fs_is_file(path.data))
        rc = up_fs_read(out, path.data, UP_FS_MAX_READ, err);
    else
        up_buf_add(out, b->text, b->len);
    up_buf_release(&path);
    return rc;
}

static const up_gen_var *find_var(const char *key, size_t n,
                                  const up_gen_var *vars, size_t nvars)
{
    for (size_t i = 0; i < nvars; i++)
        if (strlen(vars[i].key) == n && !strncmp(vars[i].key, key, n))
            return &vars[i];
    return NULL;
}

void up_gen_expand(up_buf *out, const char *tmpl, const up_gen_var *vars,
                   size_t nvars)
{
    const char *p = tmpl;

    while (*p) {
        const char *open = strstr(p, "{{");
        const char *close = open ? strstr(open + 2, "}}") : NULL;
        const up_gen_var *v =
            close ? find_var(open + 2, (size_t)(close - open - 2), vars, nvars)
                  : NULL;

        if (!open || !close) {
            up_buf_adds(out, p);
            return;
        }
        up_buf_add(out, p, (size_t)(open - p));
        if (v)
            up_buf_adds(out, v->value ? v->value : "");
        else
            up_buf_add(out, open, (size_t)(close + 2 - open));
        p = close + 2;
    }
}
