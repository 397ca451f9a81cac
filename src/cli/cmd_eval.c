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
    {0, "log-runs", OPT_FLAG, &a.log_runs, NULL, "write the run log (default)"},
    {0, "plan", OPT_FLAG, &a.plan, NULL,
     "power planning: print what the suite can detect; send nothing"},
    {0, "baseline-rate", OPT_DOUBLE, &a.plan_p0, "RATE",
     "--plan: expected baseline pass rate, 0-1 (0.5)"},
    {0, "target-lift", OPT_DOUBLE, &a.plan_lift, "POINTS",
     "--plan: the lift to plan for, in points (20)"},
    {0, "trigger", OPT_FLAG, &a.trigger, NULL,
     "description-only check: how often each model loads the skill for "
     "the tests' prompts and for unrelated ones"},
    EVAL_SHARED_OPTS(a),
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_eval_spec = {
    "eval",
    "SKILL_PATH",
    "measure a skill's lift: with it and without it",
    "Tests come from -t, else the skill's skill_meta.json, else its\n"
    "evals/evals.json (skill-creator), else the test-gen model writes them\n"
    "and they are saved into skill_meta.json.  See docs/eval.md.",
    opts,
    1,
    1};

int cmd_eval(int argc, char **argv)
{
    char **args = NULL;
    int nargs, rc;

    a.runs = 1;
    a.fail_under = -1;
    a.max_tokens = UP_MAX_TOKENS_UNSET;
    a.seed = 1;
    a.margin = -1;
    a.plan_p0 = 0.5;
    a.plan_lift = 20;
    rc = opt_parse(&cmd_eval_spec, argc, argv, &args, &nargs);
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
