/*
 * libFuzzer target for upstream's line-by-line frontmatter
 * (src/lib/skill/skill_legacy.c): when the YAML parse fails and the fallback
 * accepts the text, rendering the result must give SKILL.md text the YAML
 * parser accepts with the same name and description; the validator's hint
 * must never read past the frontmatter.  Everything is released on every
 * path.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/skill/skill_lib.h"
#include "lib/skill/skill_legacy.h"
#include "upskill/upskill.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    up_buf out = UP_BUF_INIT, hint = UP_BUF_INIT;
    up_skill s, t;
    up_error err;
    int rc;

    memcpy(text, data, size);
    text[size] = '\0';
    up_skill_init(&s);
    up_skill_init(&t);
    up_skill_legacy_hint(&hint, text, size, 2);
    rc = up_skill_parse(&s, text, size, "f", &err);
    if (rc == UP_EPARSE &&
        !up_skill_legacy_parse(&s, text, size, "f", rc, &err)) {
        if (!s.nwarnings)
            abort();
        up_skill_render(&s, &out);
        if (up_skill_parse(&t, out.data, out.len, "r", &err) ||
            !same(s.name ? s.name : "", t.name) ||
            !same(s.description ? s.description : "", t.description))
            abort();
    }
    up_skill_release(&t);
    up_skill_release(&s);
    up_buf_release(&out);
    up_buf_release(&hint);
    free(text);
    return 0;
}
