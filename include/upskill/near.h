/*
 * "Did you mean": the known word nearest to one that was not recognised
 * (an option, a config key, a model alias), by edit distance.
 */
#ifndef UPSKILL_NEAR_H
#define UPSKILL_NEAR_H

#include <stddef.h>

/*
 * The candidate (of n; NULL entries skipped) nearest to word by edit
 * distance (insertions, deletions, substitutions and swaps of two
 * neighbours, ASCII case ignored), when it is close enough to be a slip:
 * at most 1 edit for words up to 4 characters, 2 up to 8, else 3.  NULL
 * when none is; ties keep the first.  Words over UP_NEAR_MAX bytes match
 * nothing.
 */
#define UP_NEAR_MAX 64
const char *up_nearest(const char *word, const char *const *cands, size_t n);

#endif
