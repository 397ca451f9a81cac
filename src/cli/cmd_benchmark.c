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
    {'t', "tests", OPT_STRING, &a.tests, "FILE", "test cases (JSON)"},
    {'o', "output", OPT_STRING, &a.runs_dir, "DIR", "runs folder"},
    {'v', "verbose", OPT_FLAG, &a.verbose, NULL, "one line per case"},
    {0, "no-baseline", OPT_FLAG, &a.no_baseline, NULL,
     "skip the run without the skill"},
    {0, "no-cache", OPT_FLAG, &a.no_cache, NULL,
     "send every request; neither read nor fill the response cache"},
    {0, "base-url", OPT_STRING, &a.base_url, "URL",
     "OpenAI-compatible endpoint for the -m models"},
    {0, "api-key-env", OPT_STRING, &a.api_key_env, "NAME",
     "variable holding that endpoint's key"},
    {'j', "jobs", OPT_INT, &a.jobs, "N", "conversations at once"},
    {0, "json", OPT_FLAG, &a.json, NULL, "print one JSON document"},
    {0, "fail-under", OPT_DOUBLE, &a.fail_under, "RATE",
     "exit 1 when a with-skill pass rate is below RATE (0-1)"},
    {0, "require-lift", OPT_FLAG, &a.require_lift, NULL,
     "exit 1 unless the skill is beneficial for every model"},
    {0, "seed", OPT_INT, &a.seed, "N", "seed of the statistics (1)"},
    {0, "inject", OPT_STRING, &a.inject, "HOW",
     "upskill (default) or agentskills"},
    {0, "judge-model", OPT_STRING, &a.judge_model, "MODEL",
     "judge for llm-rubric assertions"},
    {0, "resume", OPT_STRING, &a.resume, "BATCH",
     "finish an interrupted batch"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

static const struct cmd_spec spec = {
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
    a.seed = 1;
    a.benchmark = 1;
    rc = opt_parse(&spec, argc, argv, &args, &nargs);
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
    rc = eval_cli_run(&a);
out:
    strlist_release(&a.models);
    free(args);
    return rc;
}
