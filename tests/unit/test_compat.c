/* Unit tests for upstream compatibility: alias-named run history. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/upskill.h"

static const struct {
    const char *logged, *key;
} keys[] = {
    {"sonnet", "anthropic.claude-sonnet-4-5"},
    {"anthropic.claude-sonnet-4-5", "anthropic.claude-sonnet-4-5"},
    {"claude-sonnet-4-5", "anthropic.claude-sonnet-4-5"},
    {"haiku", "anthropic.claude-haiku-4-5"},
    {"no-such-provider.x", "no-such-provider.x"},
    {"", ""},
};

Test(compat, model_keys_resolve_aliases)
{
    for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
        char *k = up_store_model_key(keys[i].logged, NULL);

        cr_assert_str_eq(k, keys[i].key, "'%s'", keys[i].logged);
        free(k);
    }
}

static void fill(up_run_record *r, const char *batch, int num, const char *type,
                 const char *model, long passed)
{
    up_run_record_init(r);
    r->batch_id = up_xstrdup(batch);
    r->run_number = num;
    r->model = up_xstrdup(model);
    r->run_type = up_xstrdup(type);
    r->skill_name = up_xstrdup("pr-writer");
    r->assertions_passed = passed;
    r->assertions_total = 4;
    r->repeat = 1;
}

/* Upstream's "sonnet" history and our resolved id are one model. */
Test(compat, alias_and_resolved_runs_group_as_one_model)
{
    up_run_record r[4];
    up_compare *cmp = NULL;
    size_t ncmp = 0;
    char *only = up_store_model_key("sonnet", NULL);
    const char *filter[] = {only};

    fill(&r[0], "2026_01_20_10_00", 1, "baseline", "sonnet", 1);
    fill(&r[1], "2026_01_20_10_00", 2, "with_skill", "sonnet", 3);
    fill(&r[2], "2026_02_01_09_00_00", 1, "baseline",
         "anthropic.claude-sonnet-4-5", 2);
    fill(&r[3], "2026_02_01_09_00_00", 2, "with_skill",
         "anthropic.claude-sonnet-4-5", 4);
    up_store_key_models(r, 4, NULL);
    up_store_compare(&cmp, &ncmp, r, 4, NULL, 0, filter, 1, 0);
    cr_assert_eq(ncmp, 1);
    cr_assert_str_eq(cmp[0].model, "anthropic.claude-sonnet-4-5");
    cr_assert_float_eq(cmp[0].with_rate, 1.0, 1e-9, "latest batch is ours");
    free(cmp);
    up_store_compare(&cmp, &ncmp, r, 4, NULL, 0, NULL, 0, 0);
    cr_assert_eq(ncmp, 1, "one model, not two");
    free(cmp);
    for (int i = 0; i < 4; i++)
        up_run_record_release(&r[i]);
    free(only);
}
