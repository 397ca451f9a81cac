/*
 * upskill benchmark: the skill across several models, several runs each.
 * Unlike upstream, the baseline runs too (lift is the point);
 * --no-baseline skips it.
 */
#include <stdlib.h>

#include "eval_cli.h"

static struct eval_args a;

static const struct opt opts[] = {
    {'m', "model", OPT_LIST, &a.models, "MODEL", "model to benchmark"},
    {0, "runs", OPT_INT, &a.runs, "N", "repeats per case and arm (3)"},
    {'o', "output", OPT_STRING, &a.runs_dir, "DIR", "runs folder"},
    EVAL_SHARED_OPTS(a),
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_benchmark_spec = {
    "benchmark",
    "SKILL_PATH",
    "evaluate a skill across models and runs",
    "The baseline runs too, unlike upstream; --no-baseline skips it.",
    opts,
    1,
    1};

int cmd_benchmark(int argc, char **argv)
{
    char **args = NULL;
    int nargs, rc;

    a.runs = 3;
    a.fail_under = -1;
    a.max_tokens = UP_MAX_TOKENS_UNSET;
    a.seed = 1;
    a.margin = -1;
    a.benchmark = 1;
    rc = opt_parse(&cmd_benchmark_spec, argc, argv, &args, &nargs);
    if (rc) {
        rc = rc > 0 ? 0 : EXIT_USAGE;
        goto out;
    }
    if (!a.models.n) {
        out_error("benchmark needs at least one -m MODEL");
        rc = EXIT_USAGE;
        goto out;
    }
    a.skill_path = args[0];
    rc = eval_cli_need_paths(&cmd_benchmark_spec, &a, args[0])
             ? EXIT_USAGE
             : eval_cli_run(&a);
out:
    strlist_release(&a.models);
    free(args);
    return rc;
}
