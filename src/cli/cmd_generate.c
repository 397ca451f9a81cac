/*
 * upskill generate TASK: upstream's flags, plus ours (students on a local
 * endpoint, repeats, test counts, -j, --json).  Parse, load the config,
 * hand over to the library (up_gen_init, up_gen_run), render
 * (gen_report.c).  Ctrl-C bumps a flag the library polls: the call or
 * eval in flight is cancelled, the best version so far is saved, and the
 * command exits 130 with one line saying what was kept.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "eval_cli.h"
#include "gen_report.h"

static volatile sig_atomic_t stop;

/* Ctrl-C: the first lets running jobs end, the second cancels them;
 * SIGTERM (a service manager, a timeout) cancels them at once.  Either
 * way the run ends as interrupted, its workspaces removed. */
static void on_sigint(int sig)
{
    stop += sig == SIGTERM ? 2 : 1;
}

static up_gen_opts o;
static struct strlist examples, eval_models;
static long max_refine, runs, jobs, min_tests, max_tests, seed = 1;
static long holdout = -1; /* --holdout PCT; -1: UP_GEN_HOLDOUT */
static long max_tokens = UP_MAX_TOKENS_UNSET;
static int json_out, log_runs;
static const char *tool; /* upstream's --tool: accepted, does nothing */
static long time_limit;  /* --time-limit, seconds */

static const struct opt opts[] = {
    {'e', "example", OPT_LIST, &examples, "TEXT", "an example for the prompt"},
    {'f', "from", OPT_STRING, &o.from, "PATH",
     "a skill folder to improve, or a trace file"},
    {'m', "model", OPT_STRING, &o.model, "MODEL", "skill generation model"},
    {0, "test-gen-model", OPT_STRING, &o.test_gen_model, "MODEL",
     "test generation model"},
    {0, "eval-model", OPT_LIST, &eval_models, "MODEL",
     "student model; drives refinement"},
    {0, "eval-base-url", OPT_STRING, &o.eval_base_url, "URL",
     "OpenAI-compatible endpoint for the students"},
    {0, "eval-api-key-env", OPT_STRING, &o.eval_api_key_env, "NAME",
     "variable holding that endpoint's key"},
    {'o', "output", OPT_STRING, &o.output, "DIR",
     "where to save, named after DIR (skills_dir/NAME)"},
    {0, "force", OPT_FLAG, &o.force, NULL,
     "replace an existing folder (the old one kept as DIR.bak-TIME)"},
    {0, "no-eval", OPT_FLAG, &o.no_eval, NULL, "save without tests or eval"},
    {0, "runs-dir", OPT_STRING, &o.runs_dir, "DIR", "where runs are logged"},
    {0, "no-log-runs", OPT_FLAG, &o.no_log, NULL, "write no run log"},
    {0, "no-cache", OPT_FLAG, &o.no_cache, NULL,
     "send every evaluation; neither read nor fill the response cache"},
    {0, "log-runs", OPT_FLAG, &log_runs, NULL, "write the run log (default)"},
    {0, "tool", OPT_STRING, &tool, "SPEC",
     "accepted for upstream's scripts; ignored, as upstream does"},
    {0, "max-refine", OPT_INT, &max_refine, "N",
     "evaluations at most (max_refine_attempts)"},
    {0, "runs", OPT_INT, &runs, "N", "repeats per case and arm (1)"},
    {0, "min-tests", OPT_INT, &min_tests, "N",
     "fewest generated cases (min_tests, 3)"},
    {0, "max-tests", OPT_INT, &max_tests, "N",
     "most generated cases (max_tests, 8)"},
    {0, "holdout", OPT_INT, &holdout, "PCT",
     "tests held out of refinement, measuring the kept version (40)"},
    {'j', "jobs", OPT_INT, &jobs, "N", "conversations at once"},
    {0, "agent", OPT_FLAG, &o.agent, NULL,
     "students work as agents: tools over a workspace per case"},
    {0, "inject", OPT_STRING, &o.inject, "HOW",
     "--agent: catalog (default) or preload"},
    {0, "max-turns", OPT_INT, &o.max_turns, "N", HELP_MAX_TURNS},
    {0, "token-budget", OPT_INT, &o.token_budget, "N",
     "agent mode: tokens per conversation (none)"},
    {0, "time-limit", OPT_INT, &time_limit, "SECONDS",
     "agent mode: wall clock per conversation (none)"},
    {0, "run-tool", OPT_FLAG, &o.run_tool, NULL,
     "offer the students the sandboxed run tool (implies --agent)"},
    {0, "sandbox", OPT_STRING, &o.sandbox, "HOW",
     "how run runs commands: bwrap (default), none"},
    {0, "max-tokens", OPT_INT, &max_tokens, "N",
     "output cap per answer (max_tokens; teacher 16000, students 4096)"},
    {0, "seed", OPT_INT, &seed, "N", "seed of the statistics (1)"},
    {0, "json", OPT_FLAG, &json_out, NULL,
     "print one JSON document (progress stays on stderr)"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_generate_spec = {
    "generate",
    "TASK",
    "have a teacher model write a skill, then measure and refine it",
    "The skill goes to -o DIR, named after DIR, else to skills_dir/NAME.\n"
    "A folder already there is never replaced without --force (the old one\n"
    "is kept as DIR.bak-TIME); a run that an error or Ctrl-C ends saves\n"
    "beside it (DIR.new-TIME).  See docs/generate.md.",
    opts,
    1,
    1};

/* What the option table's ranges (opt.c) cannot say. */
static int check(up_error *err)
{
    if (max_tests && min_tests > max_tests)
        return up_error_set(err, UP_EUSAGE,
                            "--min-tests must not be above --max-tests");
    if (o.inject &&
        (!(o.agent || o.run_tool) || !up_session_inject_ok(o.inject, 1)))
        return up_error_set(err, UP_EUSAGE,
                            "--inject needs --agent and is 'catalog' or "
                            "'preload' (or 'upskill', 'agentskills')");
    if (o.eval_base_url && !eval_models.n)
        return up_error_set(err, UP_EUSAGE,
                            "--eval-base-url needs --eval-model");
    return o.from ? up_fs_check_input(o.from, err) : 0;
}

/* The evaluation session's warnings (its other notes are eval's). */
static void gen_note(void *ud, enum up_session_note kind, const char *text)
{
    (void)ud;
    if (kind == UP_SESSION_WARN)
        out_warn("%s", text);
}

static void fill_opts(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    o.examples = examples.v;
    o.nexamples = examples.n;
    o.eval_models = eval_models.v;
    o.neval_models = eval_models.n;
    o.max_attempts = (int)max_refine;
    o.runs = (int)runs;
    o.jobs = (int)jobs;
    o.min_tests = (int)min_tests;
    o.max_tests = (int)max_tests;
    o.holdout = (int)holdout;
    if (!holdout && !o.no_eval)
        out_warn("--holdout 0: no test is held out, so the lift shown is "
                 "measured on the cases that chose and refined the kept "
                 "version, and is biased upward");
    o.max_repairs = -1;
    o.wall_ms = time_limit * 1000;
    o.seed = (uint64_t)seed;
    o.stop = &stop;
    o.event = gen_report_event;
    o.waiting = eval_cli_wait_note;
    o.call_waiting = gen_report_call_waiting;
    o.progress = gen_report_progress;
    o.note = gen_note;
}

static int run(up_config *cfg, up_gen *g, up_error *err)
{
    int rc = check(err);

    if (!rc)
        rc = up_config_load(cfg, err);
    if (!rc)
        rc = up_config_set_max_tokens(cfg, max_tokens, "--max-tokens", err);
    for (size_t i = 0; !rc && i < cfg->nwarnings; i++)
        out_warn("%s", cfg->warnings[i]);
    if (rc)
        return rc;
    fill_opts();
    rc = up_gen_init(g, &o, cfg, err);
    for (size_t i = 0; !rc && i < g->source.nwarnings; i++)
        out_warn("%s", g->source.warnings[i]);
    if (rc)
        return rc;
    gen_report_plan(g);
    rc = up_gen_run(g, err);
    gen_report_call_done(); /* an error may end a call without an event */
    if (g->backup.len)
        fprintf(stderr, "The previous '%s' is kept as '%s'\n",
                out_safe(g->output.data), out_safe(g->backup.data));
    if (json_out)
        gen_report_json(g, rc < 0 ? err : NULL);
    else if (up_gen_skill(g) && g->output.len)
        gen_report_text(g);
    return rc;
}

int cmd_generate(int argc, char **argv)
{
    char **args = NULL;
    int nargs, rc;
    up_config cfg;
    up_gen g;
    up_error err = {0, ""};

    rc = opt_parse(&cmd_generate_spec, argc, argv, &args, &nargs);
    if (rc) {
        free(args);
        strlist_release(&examples);
        strlist_release(&eval_models);
        return rc > 0 ? 0 : EXIT_USAGE;
    }
    o.task = args[0];
    if (opt_need_path(&cmd_generate_spec, "-f/--from", o.from)) {
        free(args);
        strlist_release(&examples);
        strlist_release(&eval_models);
        return EXIT_USAGE;
    }
    if (tool)
        out_warn("--tool '%s' is ignored (upstream ignores it too)",
                 out_safe(tool));
    up_config_init(&cfg);
    memset(&g, 0, sizeof(g));
    rc = run(&cfg, &g, &err);
    if (rc < 0)
        rc = out_fail(&err);
    up_gen_release(&g);
    up_config_release(&cfg);
    strlist_release(&examples);
    strlist_release(&eval_models);
    free(args);
    return rc;
}
