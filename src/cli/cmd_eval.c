/*
 * upskill eval: does this skill help these models?  Flags as upstream's,
 * plus ours (endpoints, -j, gates, statistics seed, injection, resume).
 */
#include <stdlib.h>

#include "eval_cli.h"

static struct eval_args a;

static const struct opt opts[] = {
    {'m', "model", OPT_LIST, &a.models, "MODEL", "model to evaluate"},
    {0, "runs", OPT_INT, &a.runs, "N", "repeats per case and arm (1)"},
    {0, "runs-dir", OPT_STRING, &a.runs_dir, "DIR", "where runs are logged"},
    {0, "no-log-runs", OPT_FLAG, &a.no_log, NULL, "write no run log"},
    EVAL_SHARED_OPTS(a),
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

static const struct cmd_spec spec = {
    "eval",
    "SKILL_PATH",
    "measure a skill's lift: with it and without it",
    "Tests come from -t, else the skill's skill_meta.json, else its\n"
    "evals/evals.json (skill-creator).  See docs/eval.md.",
    opts,
    1,
    1};

int cmd_eval(int argc, char **argv)
{
    char **args = NULL;
    int nargs, rc;

    a.runs = 1;
    a.fail_under = -1;
    a.seed = 1;
    rc = opt_parse(&spec, argc, argv, &args, &nargs);
    if (rc == 0) {
        a.skill_path = args[0];
        rc = eval_cli_run(&a);
    } else {
        rc = rc > 0 ? 0 : EXIT_USAGE;
    }
    strlist_release(&a.models);
    free(args);
    return rc;
}
