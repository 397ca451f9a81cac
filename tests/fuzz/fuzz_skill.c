/*
 * libFuzzer target for SKILL.md: parse the input; when it parses, render
 * it and parse the rendering, which must succeed and give back the same
 * fields (render's promise).  Everything is released on every path.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/skill/skill_lib.h"
#include "upskill/upskill.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static int same_kvs(const up_kv *a, size_t na, const up_kv *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (!same(a[i].key, b[i].key) || !same(a[i].value, b[i].value))
            return 0;
    return 1;
}

static int same_skill(const up_skill *a, const up_skill *b)
{
    /* render writes an absent name or description as "" */
    return same(a->name ? a->name : "", b->name) &&
           same(a->description ? a->description : "", b->description) &&
           same(a->license, b->license) &&
           same(a->compatibility, b->compatibility) &&
           same(a->allowed_tools, b->allowed_tools) &&
           same_kvs(a->metadata, a->nmetadata, b->metadata, b->nmetadata) &&
           same_kvs(a->extra, a->nextra, b->extra, b->nextra) &&
           same(a->body, b->body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    up_skill s, t;
    up_buf out = UP_BUF_INIT;
    up_error err;

    up_skill_init(&s);
    up_skill_init(&t);
    if (up_skill_parse(&s, (const char *)data, size, "fuzz", &err) == 0) {
        up_skill_render(&s, &out);
        if (up_skill_parse(&t, out.data, out.len, "rendered", &err) != 0 ||
            !same_skill(&s, &t))
            abort();
    }
    up_skill_release(&s);
    up_skill_release(&t);
    up_buf_release(&out);
    (void)up_tokens_estimate((const char *)data, size);
    return 0;
}
