/*
 * upskill compare: a paired A/B of two skills (two versions of one, or a
 * skill against its rewrite) on the same cases and repeats.  The eval
 * session runs skill A in the baseline arm and skill B in the skill arm,
 * so the statistics and verdicts are eval's with lift = B - A; the
 * report words them for A and B and lists the cases that differ.  See
 * docs/compare.md.
 */
#include <stdlib.h>

#include "compare_report.h"

static struct eval_args a;

static const struct opt opts[] = {
    {'m', "model", OPT_LIST, &a.models, "MODEL", "model to compare on"},
    {'t', "tests", OPT_STRING, &a.tests, "FILE",
     "test cases (JSON); else B's own, else A's own"},
    {0, "runs", OPT_INT, &a.runs, "N", "repeats per case and skill (1)"},
    {0, "base-url", OPT_STRING, &a.base_url, "URL",
     "OpenAI-compatible endpoint for the -m models"},
    {0, "api-key-env", OPT_STRING, &a.api_key_env, "NAME",
     "variable holding that endpoint's key"},
    {0, "runs-dir", OPT_STRING, &a.runs_dir, "DIR", "where runs are logged"},
    {'j', "jobs", OPT_INT, &a.jobs, "N", "conversations at once"},
    {0, "no-cache", OPT_FLAG, &a.no_cache, NULL,
     "send every request; neither read nor fill the response cache"},
    {0, "seed", OPT_INT, &a.seed, "N", "statistics seed (1)"},
    {0, "margin", OPT_DOUBLE, &a.margin, "POINTS",
     "\"no meaningful effect\" margin in points (5)"},
    {0, "family-control", OPT_STRING, &a.family_control, "HOW",
     "several -m models: fdr (default), holm, none"},
    {0, "inject", OPT_STRING, &a.inject, "HOW",
     "upskill (default), agentskills; --agent: catalog (default), preload"},
    {0, "agent", OPT_FLAG, &a.agent, NULL,
     "students work as agents: tools over a workspace per case"},
    {0, "max-turns", OPT_INT, &a.max_turns, "N", HELP_MAX_TURNS},
    {0, "json", OPT_FLAG, &a.json, NULL, "print one JSON document"},
    {0, "resume", OPT_STRING, &a.resume, "BATCH",
     "finish an interrupted comparison"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_compare_spec = {
    "compare",
    "SKILL_A SKILL_B",
    "paired A/B of two skills on the same cases and repeats",
    "Runs every case with skill A and with skill B (no baseline without a\n"
    "skill) on each -m model, and reports the lift B - A with its 95%\n"
    "interval, p-value and verdict (B is better, B is worse, no meaningful\n"
    "effect, inconclusive, ...), tokens, cost, and the cases that differ.\n"
    "The same path twice is a sanity check.  See docs/compare.md.",
    opts,
    2,
    2};

static const char *path_a;

/* The cases that differ, per model (new arrays; free each and diffs). */
static void differences(const up_eval_plan *p, up_ab_case **diffs, size_t *nd)
{
    for (size_t m = 0; m < p->nmodels; m++) {
        up_stats_case *cs = up_eval_cases(p, m);

        diffs[m] = up_xcalloc(p->suite->ncases + 1, sizeof(**diffs));
        nd[m] = up_ab_diffs(diffs[m], cs, p->suite->ncases);
        free(cs);
    }
}

/* Summarize, list the differences and render; the exit code. */
static int decide(const up_eval_session *e, up_error *err)
{
    size_t n = e->plan.nmodels;
    up_ab_case **diffs = up_xcalloc(n + 1, sizeof(*diffs));
    size_t *nd = up_xcalloc(n + 1, sizeof(*nd));
    up_eval_summary *s = NULL;
    char *dead = NULL;
    int rc = up_eval_session_summarize(e, (uint64_t)a.seed, &s, &dead, err);

    if (!rc)
        eval_report_family(s, n, a.family);
    if (!rc) {
        struct compare_view v = {e, path_a, a.skill_path, s, dead, diffs, nd};

        differences(&e->plan, diffs, nd);
        if (a.json)
            compare_report_json(&v);
        else
            compare_report_text(&v);
        rc = eval_outcome_failures(e, dead); /* as eval: exit 4 */
    }
    for (size_t m = 0; m < n; m++)
        free(diffs[m]);
    free(diffs);
    free(nd);
    free(dead);
    free(s);
    return rc;
}

static int run(up_eval_session *e, up_error *err)
{
    up_eval_request rq;
    int rc = 0;

    if (eval_cli_family(&a, err))
        return UP_EUSAGE;
    if (a.inject && !up_session_inject_ok(a.inject, a.agent))
        return up_error_set(err, UP_EUSAGE,
                            "--inject must be 'upskill' or 'agentskills', "
                            "or with --agent 'catalog' or 'preload'");
    eval_cli_request(&rq, &a);
    rq.base_skill_path = path_a;
    rq.gen_tests = 0;
    rc = up_eval_session_load(e, &rq, err);
    if (!rc)
        rc = up_eval_session_start(e, &rq, err);
    if (!rc && !a.json)
        compare_report_start(e, path_a, a.skill_path);
    if (!rc)
        rc = up_eval_session_open(e, err);
    if (rc)
        return rc;
    rc = up_eval_session_run(e, err);
    if (rc == UP_EIO) { /* the run log: nothing more was sent (as eval) */
        out_fail(err);
        return EXIT_IO;
    }
    return rc ? rc : decide(e, err);
}

int cmd_compare(int argc, char **argv)
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
    rc = opt_parse(&cmd_compare_spec, argc, argv, &args, &nargs);
    if (rc == 0) {
        path_a = args[0];
        a.skill_path = args[1]; /* B: the skill arm */
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
