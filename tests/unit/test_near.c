/* up_nearest: "did you mean" for options, config keys and aliases. */
#include <criterion/criterion.h>
#include <string.h>

#include "upskill/near.h"

static const char *const words[] = {"model",       "runs-dir", "runs",  "force",
                                    "concurrency", NULL,       "sonnet"};

static const char *near(const char *w)
{
    return up_nearest(w, words, sizeof(words) / sizeof(words[0]));
}

Test(near, finds_slips_and_refuses_strangers)
{
    cr_assert_str_eq(near("modle"), "model"); /* a swap */
    cr_assert_str_eq(near("froce"), "force"); /* a swap */
    cr_assert_str_eq(near("runs-dri"), "runs-dir");
    cr_assert_str_eq(near("concurency"), "concurrency"); /* a deletion */
    cr_assert_str_eq(near("sonet"), "sonnet");
    cr_assert_str_eq(near("RUNS"), "runs"); /* case ignored */
    cr_assert_null(near("zzzzzz"));
    cr_assert_null(near("m")); /* one letter is no slip of "model" */
    cr_assert_null(near(""));
    cr_assert_null(up_nearest(NULL, words, 2));
}

Test(near, long_words_match_nothing)
{
    char big[UP_NEAR_MAX + 2];
    const char *cands[] = {big};

    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    cr_assert_null(up_nearest(big, cands, 1));
}
