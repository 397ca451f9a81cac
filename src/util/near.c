/*
 * up_nearest: optimal string alignment distance (Levenshtein plus a swap
 * of two neighbours) over two rows of a bounded table, so a hostile
 * argument costs at most UP_NEAR_MAX^2 steps per candidate.
 */
#include <ctype.h>
#include <string.h>

#include "upskill/near.h"

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;

    return m < c ? m : c;
}

static int same(char a, char b)
{
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

/* The distance of a (la bytes) and b (lb), both <= UP_NEAR_MAX. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb)
{
    size_t rows[3][UP_NEAR_MAX + 1];
    size_t *pp = rows[0], *p = rows[1], *c = rows[2];

    for (size_t j = 0; j <= lb; j++)
        p[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t *t;

        c[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = !same(a[i - 1], b[j - 1]);

            c[j] = min3(p[j] + 1, c[j - 1] + 1, p[j - 1] + cost);
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) &&
                same(a[i - 2], b[j - 1]) && pp[j - 2] + 1 < c[j])
                c[j] = pp[j - 2] + 1;
        }
        t = pp;
        pp = p;
        p = c;
        c = t;
    }
    return p[lb];
}

const char *up_nearest(const char *word, const char *const *cands, size_t n)
{
    size_t lw = word ? strlen(word) : 0;
    size_t limit = lw <= 4 ? 1 : lw <= 8 ? 2 : 3;
    size_t best = limit + 1;
    const char *pick = NULL;

    if (!lw || lw > UP_NEAR_MAX)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t lc = cands[i] ? strlen(cands[i]) : 0;
        size_t d;

        if (!lc || lc > UP_NEAR_MAX || (lc > lw ? lc - lw : lw - lc) > limit)
            continue;
        d = distance(word, lw, cands[i], lc);
        if (d < best) {
            best = d;
            pick = cands[i];
        }
    }
    return pick;
}
