/*
 * Allocation wrappers that abort on out-of-memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"

static void *check(void *p, size_t n)
{
    if (!p && n) {
        fprintf(stderr, "upskill: fatal: out of memory (%zu bytes)\n", n);
        abort();
    }
    return p;
}

void *up_xmalloc(size_t n)
{
    return check(malloc(n ? n : 1), n ? n : 1);
}

void *up_xcalloc(size_t count, size_t size)
{
    if (!count || !size)
        count = size = 1;
    return check(calloc(count, size), count * size);
}

void *up_xrealloc(void *p, size_t n)
{
    return check(realloc(p, n ? n : 1), n ? n : 1);
}

char *up_xstrdup(const char *s)
{
    return up_xstrndup(s, strlen(s));
}

char *up_xstrndup(const char *s, size_t n)
{
    char *p = up_xmalloc(n + 1);

    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void up_grow(void **array, size_t *cap, size_t need, size_t elem)
{
    size_t n = *cap ? *cap : 8;

    if (need <= *cap)
        return;
    while (n < need)
        n *= 2;
    *array = up_xrealloc(*array, n * elem);
    *cap = n;
}

void up_shrink(void **array, size_t *cap, size_t n, size_t elem)
{
    if (!n || n >= *cap)
        return;
    *array = up_xrealloc(*array, n * elem);
    *cap = n;
}

void up_strv_free(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}
