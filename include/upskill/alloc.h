/*
 * Allocation wrappers: they abort with a message on out-of-memory, so no
 * call site carries allocation-failure branches.
 */
#ifndef UPSKILL_ALLOC_H
#define UPSKILL_ALLOC_H

#include <stddef.h>

void *up_xmalloc(size_t n);
void *up_xcalloc(size_t count, size_t size);
void *up_xrealloc(void *p, size_t n);
char *up_xstrdup(const char *s);
char *up_xstrndup(const char *s, size_t n);

/* Grow *array (of *cap elements of size elem) to hold at least need. */
void up_grow(void **array, size_t *cap, size_t need, size_t elem);

/* Give back *array's room beyond n elements (*cap becomes n); nothing
 * when n is 0 or there is no spare room.  For arrays kept per case of a
 * large suite, where the doubling's slack adds up. */
void up_shrink(void **array, size_t *cap, size_t n, size_t elem);

/* Free a NULL-terminated heap array of heap strings (NULL is fine). */
void up_strv_free(char **v);

#define UP_GROW(arr, cap, need)                                                \
    up_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))
#define UP_SHRINK(arr, cap, n)                                                 \
    up_shrink((void **)&(arr), &(cap), (n), sizeof(*(arr)))

#endif
