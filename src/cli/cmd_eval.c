/*
 * upskill eval: does this skill help these models?  Flags as upstream's,
 * plus ours (endpoints, -j, gates, statistics seed, injection, resume).
 */
#include <stdlib.h>
#include <string.h>

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
    {0, "aa", OPT_FLAG, &a.aa, NULL,
     "A/A: the skill arm without the skill, fresh repeats; every claim "
     "is false (the suite's noise floor)"},
    {0, "trigger", OPT_FLAG, &a.trigger, NULL,
     "description-only check: how often each model loads the skill for "
     "the tests' prompts and for unrelated ones"},
    {0, "tasks", OPT_STRING, &a.tasks, "DIR",
     "Harbor task folder, or a folder of them (docs/harbor.md)"},
    {0, "check", OPT_FLAG, &a.tasks_check, NULL,
     "with --tasks: say which tasks can run here, and why not, and which "
     "are sound (oracle passes, null fails); send nothing"},
    {0, "static", OPT_FLAG, &a.static_check, NULL,
     "with --check: only read the tasks; run no oracle or null"},
    {0, "sound", OPT_STRING, &a.sound, "FILE",
     "with --tasks: only the tasks FILE marks sound; with --check: write "
     "the verdicts to FILE"},
    {0, "online-instructions", OPT_FLAG, &a.online, NULL,
     "with --tasks: run the tasks whose instruction sends the student to "
     "the network (a URL, a website, an install) all the same"},
    EVAL_SHARED_OPTS(a),
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_eval_spec = {
    "eval",
    "SKILL_PATH... | --tasks DIR",
    "measure a skill's lift: with it and without it",
    "Tests come from -t, else the skill's skill_meta.json, else its\n"
    "evals/evals.json (skill-creator), else the test-gen model writes them\n"
    "and they are saved into skill_meta.json.  Several SKILL_PATHs are one\n"
    "batch (a sweep), each skill with its own tests, ending in a skill x\n"
    "model leaderboard.  See docs/eval.md.",
    opts,
    0,
    -1};

/* A skill path, or --tasks (which runs every conversation as an agent
 * with the run tool); 0, or a usage error printed. */
static int tasks_args(int nargs)
{
    if ((a.tasks ? nargs != 0 : nargs < 1) ||
        ((a.tasks_check || a.sound || a.online) && !a.tasks)) {
        out_error("%s", a.tasks ? "--tasks takes no SKILL_PATH"
                        : nargs ? "--check and --sound need --tasks DIR"
                                : "missing SKILL_PATH (or --tasks DIR)");
        return -1;
    }
    if (a.tasks)
        a.agent = a.run_tool = 1;
    return 0;
}

/* Several SKILL_PATHs: a sweep (eval_sweep.c); what it cannot do yet
 * is a usage error.  0, or -1 with the error printed. */
static int sweep_args(char **args, int nargs)
{
    const char *no = a.plan                                  ? "--plan"
                     : a.trigger                             ? "--trigger"
                     : a.inject && !strcmp(a.inject, "both") ? "--inject both"
                                                             : NULL;

    if (nargs < 2)
        return 0;
    if (no) {
        out_error("a sweep of several skills does not take %s (yet): run "
                  "each skill on its own",
                  no);
        return -1;
    }
    for (int i = 1; i < nargs; i++)
        if (opt_need_path(&cmd_eval_spec, "SKILL_PATH", args[i]))
            return -1;
    a.sweep = (const char *const *)args;
    a.nsweep = (size_t)nargs;
    return 0;
}

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
    if (rc == 0)
        rc = tasks_args(nargs);
    if (rc == 0 && !a.tasks)
        rc = eval_cli_need_paths(&cmd_eval_spec, &a, args[0]);
    if (rc == 0 && !a.tasks)
        rc = sweep_args(args, nargs);
    if (rc == 0 && a.tasks_check) {
        rc = harbor_check_report(&a);
    } else if (rc == 0) {
        a.skill_path = a.tasks ? NULL : args[0];
        a.upstream_lines = !a.tasks && !a.json && !a.nsweep &&
                           !(a.inject && !strcmp(a.inject, "both"));
        rc = eval_cli_run(&a);
    } else {
        rc = rc > 0 ? 0 : EXIT_USAGE;
    }
    strlist_release(&a.models);
    free(args);
    return rc;
}
