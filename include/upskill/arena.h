/*
 * up_arena: a chunked bump allocator for many small strings and arrays
 * that live and die together (a suite's case fields).  Each block costs
 * its bytes and no malloc header or doubling slack; nothing is freed
 * alone, everything goes with up_arena_release.
 *
 * Moving the struct moves the blocks: it holds no pointer into itself.
 */
#ifndef UPSKILL_ARENA_H
#define UPSKILL_ARENA_H

#include <stddef.h>

struct up_arena_chunk;

typedef struct up_arena {
    struct up_arena_chunk *head; /* chunk being filled, then older ones */
    size_t used;                 /* bytes used in head */
} up_arena;

#define UP_ARENA_INIT                                                          \
    {                                                                          \
        NULL, 0                                                                \
    }

void up_arena_init(up_arena *a);

/* Free every block of a; a is left empty and usable. */
void up_arena_release(up_arena *a);

/* n bytes (not zeroed) aligned for pointers, sizes and doubles, owned by
 * a.  Blocks too big to share a chunk get one of their own. */
void *up_arena_alloc(up_arena *a, size_t n);

/* n bytes of s and a NUL, owned by a (s need not be NUL-terminated). */
char *up_arena_strndup(up_arena *a, const char *s, size_t n);

/* Move src's blocks into dst (which then frees them); src is left empty.
 * Blocks already handed out stay where they are. */
void up_arena_adopt(up_arena *dst, up_arena *src);

#endif
