/* Unit tests for up_arena: blocks stay intact and apart, big blocks past
 * a chunk, adopting another arena's blocks, release. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "upskill/upskill.h"

#define NSTR 20000

/* The i-th test string: lengths 0 to 40, so chunks end mid-string. */
static size_t fill(char *out, size_t i)
{
    size_t n = i % 41;

    for (size_t k = 0; k < n; k++)
        out[k] = (char)('a' + (i + k) % 26);
    out[n] = '\0';
    return n;
}

Test(arena, many_strings_stay_intact)
{
    static char *got[NSTR];
    char want[64];
    up_arena a = UP_ARENA_INIT;

    for (size_t i = 0; i < NSTR; i++) {
        size_t n = fill(want, i);

        got[i] = up_arena_strndup(&a, want, n);
    }
    for (size_t i = 0; i < NSTR; i++) {
        fill(want, i);
        cr_assert_str_eq(got[i], want, "string %zu", i);
    }
    up_arena_release(&a);
    cr_assert_null(a.head);
    cr_assert_eq(a.used, 0);
}

Test(arena, strndup_copies_n_bytes)
{
    up_arena a = UP_ARENA_INIT;
    char *s = up_arena_strndup(&a, "abcdef", 3);

    cr_assert_str_eq(s, "abc");
    cr_assert_str_eq(up_arena_strndup(&a, "", 0), "");
    up_arena_release(&a);
}

Test(arena, alloc_is_aligned_after_odd_strings)
{
    up_arena a = UP_ARENA_INIT;

    for (size_t i = 0; i < 3000; i++) {
        char **v;

        up_arena_strndup(&a, "xyz", i % 5);
        v = up_arena_alloc(&a, (i % 7 + 1) * sizeof(*v));
        cr_assert_eq((uintptr_t)v % sizeof(void *), 0, "block %zu", i);
        cr_assert_eq((uintptr_t)v % _Alignof(double), 0, "block %zu", i);
        for (size_t k = 0; k <= i % 7; k++)
            v[k] = NULL;
    }
    up_arena_release(&a);
}

/* A block bigger than a chunk gets its own, first or later; the small
 * blocks around it are untouched. */
Test(arena, big_blocks_past_a_chunk)
{
    static char big[100000];
    up_arena a = UP_ARENA_INIT;
    char *first, *b1, *mid, *b2, *last, *quarter;

    memset(big, 'B', sizeof(big) - 1);
    b1 = up_arena_strndup(&a, big, sizeof(big) - 1);
    first = up_arena_strndup(&a, "after a big first block", 23);
    quarter = up_arena_alloc(&a, 5000);
    memset(quarter, 'Q', 5000);
    mid = up_arena_strndup(&a, "middle", 6);
    b2 = up_arena_strndup(&a, big, 70000);
    last = up_arena_strndup(&a, "last", 4);
    cr_assert_eq(strlen(b1), sizeof(big) - 1);
    cr_assert_eq(strspn(b1, "B"), sizeof(big) - 1);
    cr_assert_eq(strlen(b2), 70000);
    cr_assert_eq(strspn(b2, "B"), 70000);
    cr_assert_str_eq(first, "after a big first block");
    for (size_t i = 0; i < 5000; i++)
        cr_assert_eq(quarter[i], 'Q', "byte %zu", i);
    cr_assert_str_eq(mid, "middle");
    cr_assert_str_eq(last, "last");
    /* the big block did not take the small ones' chunk */
    cr_assert_eq(last, mid + 7, "%p %p", (void *)mid, (void *)last);
    up_arena_release(&a);
}

Test(arena, adopt_moves_blocks)
{
    up_arena a = UP_ARENA_INIT, b = UP_ARENA_INIT, c = UP_ARENA_INIT;
    char *x[3000], want[64];

    for (size_t i = 0; i < 3000; i++) {
        size_t n = fill(want, i);

        x[i] = up_arena_strndup(i % 2 ? &a : &b, want, n);
    }
    up_arena_adopt(&a, &b);
    cr_assert_null(b.head);
    cr_assert_eq(b.used, 0);
    up_arena_adopt(&c, &a); /* into an empty arena */
    cr_assert_null(a.head);
    up_arena_adopt(&c, &a); /* from an empty one: nothing */
    cr_assert_not_null(c.head);
    cr_assert_str_eq(up_arena_strndup(&c, "more", 4), "more");
    for (size_t i = 0; i < 3000; i++) {
        fill(want, i);
        cr_assert_str_eq(x[i], want, "string %zu", i);
    }
    up_arena_release(&c);
    up_arena_release(&b); /* empty: fine */
}
