/*
 * upskill select: the cheapest (model, with or without the skill) whose
 * pass-rate interval clears a target.  Runs the eval, baseline included,
 * through the evaluation session as `eval` does, then hands each model's
 * two arms to the decision core (upskill/select.h).  Exit 1 when no
 * candidate clears the target, like --fail-under.  See docs/select.md.
 */
#include <stdlib.h>

#include "eval_cli.h"
#include "select_report.h"

static struct eval_args a;
static double target;

static const struct opt opts[] = {
    {'m', "model", OPT_LIST, &a.models, "MODEL", "candidate model"},
    {0, "target", OPT_DOUBLE, &target, "RATE",
     "pass rate to clear, 0-1 (required)"},
    {'t', "tests", OPT_STRING, &a.tests, "FILE", "test cases (JSON)"},
    {0, "base-url", OPT_STRING, &a.base_url, "URL",
     "OpenAI-compatible endpoint for the -m models"},
    {0, "api-key-env", OPT_STRING, &a.api_key_env, "NAME",
     "variable holding that endpoint's key"},
    {0, "runs", OPT_INT, &a.runs, "N", "repeats per case and arm (1)"},
    {0, "runs-dir", OPT_STRING, &a.runs_dir, "DIR", "where runs are logged"},
    {'j', "jobs", OPT_INT, &a.jobs, "N", "conversations at once"},
    {0, "no-cache", OPT_FLAG, &a.no_cache, NULL,
     "send every request; neither read nor fill the response cache"},
    {0, "seed", OPT_INT, &a.seed, "N", "statistics seed (1)"},
    {0, "json", OPT_FLAG, &a.json, NULL, "print one JSON document"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

static const struct cmd_spec spec = {
    "select",
    "SKILL_PATH",
    "name the cheapest model, with or without the skill, that meets a target",
    "Runs the eval with its baseline on every -m model, then names the\n"
    "cheapest candidate whose 95% interval's lower bound reaches --target,\n"
    "the runner-up, and why each other one lost.  Prices come from the\n"
    "config's prices.  Exit 1 when none clears.  See docs/select.md.",
    opts,
    1,
    1};

/* Decide over the summaries and render; the exit code. */
static int decide(const up_eval_session *e, up_error *err)
{
    size_t n = 2 * e->plan.nmodels, chosen = 0;
    up_select_cand *c = up_xcalloc(n ? n : 1, sizeof(*c));
    up_select_row *rows = up_xcalloc(n ? n : 1, sizeof(*rows));
    up_eval_summary *s = NULL;
    char *dead = NULL;
    int rc = up_eval_session_summarize(e, (uint64_t)a.seed, &s, &dead, err);

    if (!rc)
        up_select_from_summaries(c, s, e->plan.nmodels);
    if (!rc)
        rc = up_select_decide(rows, &chosen, c, n, target, err);
    if (!rc) {
        struct select_view v = {c, rows, n, chosen, target, (int)a.runs};

        if (a.json)
            select_report_json(&v);
        else
            select_report_text(&v);
        rc = chosen < n ? EXIT_OK : EXIT_GATE;
        if (eval_outcome_failures(e, dead)) /* as eval: errors beat gates */
            rc = EXIT_PROVIDER;
    }
    free(s);
    free(dead);
    free(rows);
    free(c);
    return rc;
}

static int run(up_eval_session *e, up_error *err)
{
    up_eval_request rq;
    int rc;

    if (!(target > 0 && target <= 1))
        return up_error_set(err, UP_EUSAGE,
                            "--target must be a pass rate in (0, 1]");
    eval_cli_request(&rq, &a);
    rq.gen_tests = 1;
    rc = up_eval_session_load(e, &rq, err);
    if (!rc)
        rc = up_eval_session_start(e, &rq, err);
    if (!rc && !a.json)
        eval_report_start(e);
    if (!rc)
        rc = up_eval_session_open(e, err);
    if (!rc)
        rc = up_eval_session_run(e, err);
    return rc ? rc : decide(e, err);
}

int cmd_select(int argc, char **argv)
{
    up_eval_session e;
    up_session_opts o;
    up_error err = {0, ""};
    char **args = NULL;
    int nargs, rc;

    a.runs = 1;
    a.seed = 1;
    a.margin = -1;
    a.max_tokens = UP_MAX_TOKENS_UNSET;
    target = -1;
    rc = opt_parse(&spec, argc, argv, &args, &nargs);
    if (rc == 0) {
        a.skill_path = args[0];
        eval_cli_session_opts(&o, &a);
        up_eval_session_init(&e, &o);
        rc = run(&e, &err);
        if (rc < 0)
            rc = out_fail(&err);
        up_eval_session_release(&e);
    } else {
        rc = rc > 0 ? 0 : EXIT_USAGE;
    }
    strlist_release(&a.models);
    free(args);
    return rc;
}
