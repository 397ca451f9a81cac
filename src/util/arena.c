/*
 * up_arena (arena.h): chunks in a singly linked list, the one being
 * filled first.  A block bigger than a quarter chunk gets a chunk of its
 * own, linked behind the head so the head's room stays in use; so the
 * room left unused at the end of a chunk is under a quarter of it.
 */
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"
#include "upskill/arena.h"

#define CHUNK 16384u       /* bytes of a shared chunk */
#define BIG   (CHUNK / 4u) /* a block above this gets its own chunk */
#define ALIGN ((size_t)8)  /* up_arena_alloc's alignment */

_Static_assert(ALIGN >= _Alignof(void *) && ALIGN >= _Alignof(size_t) &&
                   ALIGN >= _Alignof(double) && ALIGN >= _Alignof(long long),
               "ALIGN covers the arena's arrays");

struct up_arena_chunk {
    struct up_arena_chunk *next; /* older chunk */
    size_t size;                 /* bytes of data */
    char data[];                 /* 16 bytes in: aligned as malloc's */
};

static struct up_arena_chunk *chunk_new(size_t size,
                                        struct up_arena_chunk *next)
{
    struct up_arena_chunk *c = up_xmalloc(sizeof(*c) + size);

    c->next = next;
    c->size = size;
    return c;
}

void up_arena_init(up_arena *a)
{
    a->head = NULL;
    a->used = 0;
}

void up_arena_release(up_arena *a)
{
    struct up_arena_chunk *c = a->head, *next;

    for (; c; c = next) {
        next = c->next;
        free(c);
    }
    up_arena_init(a);
}

/* n bytes at a multiple of align (1 or ALIGN) from the head's start. */
static void *take(up_arena *a, size_t n, size_t align)
{
    size_t at = (a->used + align - 1) & ~(align - 1);

    if (n > BIG) {
        if (!a->head) { /* a full head: the next small block starts one */
            a->head = chunk_new(n, NULL);
            a->used = n;
            return a->head->data;
        }
        a->head->next = chunk_new(n, a->head->next);
        return a->head->next->data;
    }
    if (!a->head || at + n > a->head->size) {
        a->head = chunk_new(CHUNK, a->head);
        at = 0;
    }
    a->used = at + n;
    return a->head->data + at;
}

void *up_arena_alloc(up_arena *a, size_t n)
{
    return take(a, n, ALIGN);
}

char *up_arena_strndup(up_arena *a, const char *s, size_t n)
{
    char *p = take(a, n + 1, 1);

    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void up_arena_adopt(up_arena *dst, up_arena *src)
{
    struct up_arena_chunk *tail = src->head;

    if (!tail)
        return;
    if (!dst->head) {
        *dst = *src;
        up_arena_init(src);
        return;
    }
    while (tail->next)
        tail = tail->next;
    tail->next = dst->head->next; /* src's chunks behind dst's head */
    dst->head->next = src->head;
    up_arena_init(src);
}
