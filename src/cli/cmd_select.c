/*
 * upskill select: the cheapest (model, with or without the skill) that
 * meets a goal -- a target pass rate (--target) or another model's
 * baseline (--beat).  The evidence of each model comes from a finished
 * batch of the same skill and suite in the runs folder when there is one
 * (unless --fresh), else from an eval run now, baseline included, through
 * the evaluation session as `eval` does; the decision core
 * (upskill/select.h) then decides over all.  Exit 1 when no candidate
 * meets the goal, like --fail-under, or when one that meets it has no
 * price and --allow-unpriced is not given.  See docs/select.md.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "eval_cli.h"
#include "select_report.h"

static struct eval_args a;
static double target;
static const char *beat;
static int fresh;
static int allow_unpriced;
static int confirm; /* --confirm: decide again on fresh repeats */
/* the first decision's chosen and runner-up (and --beat's reference)
 * models, owned, for the confirmation; and what was chosen */
static char *again[3];
static size_t nagain;
static int confirming; /* 1 while the confirmation runs */
static char first_choice[256];

static const struct opt opts[] = {
    {'m', "model", OPT_LIST, &a.models, "MODEL", "candidate model"},
    {0, "target", OPT_DOUBLE, &target, "RATE",
     "pass rate to clear, 0-1 (this or --beat)"},
    {0, "beat", OPT_STRING, &beat, "MODEL",
     "be at least as good as MODEL without the skill (this or --target)"},
    {0, "margin", OPT_DOUBLE, &a.margin, "POINTS",
     "--beat: how much worse still counts as as good (5)"},
    {0, "family-control", OPT_STRING, &a.family_control, "HOW",
     "bonferroni (default): the intervals hold for all candidates at "
     "once; none: each at 95%"},
    {0, "confirm", OPT_FLAG, &confirm, NULL,
     "re-measure the chosen and the runner-up on fresh repeats (no cache, "
     "a new seed) and decide on that alone"},
    {0, "allow-unpriced", OPT_FLAG, &allow_unpriced, NULL,
     "choose even when a candidate that meets the goal has no price"},
    {0, "fresh", OPT_FLAG, &fresh, NULL,
     "run every model; reuse no batch from the runs folder"},
    {'t', "tests", OPT_STRING, &a.tests, "FILE", "test cases (JSON)"},
    {0, "base-url", OPT_STRING, &a.base_url, "URL",
     "OpenAI-compatible endpoint for the -m models"},
    {0, "api-key-env", OPT_STRING, &a.api_key_env, "NAME",
     "variable holding that endpoint's key"},
    {0, "runs", OPT_INT, &a.runs, "N", "repeats per case and arm (1)"},
    {0, "runs-dir", OPT_STRING, &a.runs_dir, "DIR",
     "where runs are reused from and logged"},
    {'j', "jobs", OPT_INT, &a.jobs, "N", "conversations at once"},
    {0, "no-cache", OPT_FLAG, &a.no_cache, NULL,
     "send every request; neither read nor fill the response cache"},
    {0, "seed", OPT_INT, &a.seed, "N",
     "statistics seed, recorded in a batch run now (1)"},
    {0, "json", OPT_FLAG, &a.json, NULL, "print one JSON document"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_select_spec = {
    "select",
    "SKILL_PATH",
    "name the cheapest model, skill or not, that meets a goal",
    "Names the cheapest candidate (each -m model, with and without the\n"
    "skill) that meets the goal, the runner-up, and why each other one\n"
    "lost.  --target RATE: the 95% interval's lower bound reaches RATE.\n"
    "--beat MODEL: on the same cases, the paired 95% interval of the\n"
    "difference to MODEL's baseline stays above -margin.  Models that a\n"
    "finished batch of this skill and suite in the runs folder covers are\n"
    "reused from it (--fresh: none); the rest run now, with the baseline.\n"
    "Prices come from the config; when a candidate that meets the goal has\n"
    "none, no choice is made on cost (exit 1) unless --allow-unpriced.\n"
    "Exit 1 when none meets the goal.  See docs/select.md.",
    opts,
    1,
    1};

#define OTHER_RUNS_MAX 8 /* distinct --runs values looked at */

/* The distinct "runs" of the batch plans in dir other than ours, in v. */
static size_t other_runs_values(const char *dir, int *v)
{
    char **names = NULL;
    size_t n = 0, k = 0;
    up_buf path = UP_BUF_INIT;

    if (up_fs_list(&names, &n, dir, NULL))
        return 0;
    for (size_t i = 0; i < n && k < OTHER_RUNS_MAX; i++) {
        json_t *plan;
        json_int_t r;
        size_t j = 0;

        up_buf_reset(&path);
        up_buf_addf(&path, "%s/%s/%s", dir, names[i], UP_EVAL_BATCH_PLAN);
        plan = json_load_file(path.data, 0, NULL);
        r = json_integer_value(json_object_get(plan, "runs"));
        json_decref(plan);
        while (j < k && v[j] != r)
            j++;
        if (r > 0 && r <= INT_MAX && r != a.runs && j == k)
            v[k++] = (int)r;
    }
    up_strv_free(names);
    up_buf_release(&path);
    return k;
}

/*
 * For the models no batch covers: a finished batch that would, at
 * another --runs, is said with the flag that reuses it (the lookup is
 * the library's, at that --runs).
 */
static void other_runs(up_select_pool *p, up_eval_session *e, const char *dir)
{
    int v[OTHER_RUNS_MAX];
    size_t k = other_runs_values(dir, v);

    for (size_t r = 0; r < k; r++) {
        json_t *id = up_select_identity(&e->skill, &e->suite, v[r],
                                        up_session_chat_inject(NULL));
        up_select_model *ev = up_xcalloc(p->n, sizeof(*ev));
        char **notes = NULL;
        up_error err;

        if (!up_select_reuse(ev, &notes, p->want, p->n, dir, id,
                             e->suite.ncases, &err))
            for (size_t i = 0; i < p->n; i++)
                if (!p->ev[i].reused && ev[i].reused)
                    fprintf(stderr,
                            "a finished batch covers %s at --runs %d: '%s' "
                            "(this select asks for --runs %ld); add --runs "
                            "%d to reuse it instead of running it now\n",
                            out_safe(p->want[i].id), v[r],
                            out_safe(ev[i].batch), a.runs, v[r]);
        for (size_t i = 0; i < p->n; i++)
            up_select_model_release(&ev[i]);
        free(ev);
        up_strv_free(notes);
        json_decref(id);
    }
}

/* The evidence already in the runs folder, said on stderr. */
static int reuse(up_select_pool *p, up_eval_session *e, up_error *err)
{
    const char *dir = up_session_runs_dir(a.runs_dir, &e->cfg);
    json_t *id = up_select_identity(&e->skill, &e->suite, (int)a.runs,
                                    up_session_chat_inject(NULL));
    char **notes = NULL;
    int rc = fresh ? 0
                   : up_select_reuse(p->ev, &notes, p->want, p->n, dir, id,
                                     e->suite.ncases, err);

    json_decref(id);
    for (size_t i = 0; notes && notes[i]; i++)
        fprintf(stderr, "%s\n", out_safe(notes[i]));
    up_strv_free(notes);
    for (size_t i = 0; !rc && i < p->n; i++)
        if (p->ev[i].reused)
            fprintf(stderr, "reused %s for %s\n", out_safe(p->ev[i].batch),
                    out_safe(p->want[i].id));
    if (!rc && !fresh)
        other_runs(p, e, dir);
    for (size_t i = 0; !rc && i < p->n; i++)
        if (!p->ev[i].reused)
            fprintf(stderr, "running %s now: %s\n", out_safe(p->want[i].id),
                    fresh ? "--fresh"
                          : "no finished batch of this skill and suite in "
                            "the runs folder covers it");
    return rc;
}

/* Run the eval on the models no batch covers; then every model's
 * evidence is in. */
static int run_missing(up_select_pool *p, up_eval_session *e,
                       up_eval_request *rq, up_error *err)
{
    const char **run = up_select_pool_missing(p, &rq->nmodels);
    int rc = 0;

    rq->models = run;
    if (rq->nmodels)
        rc = up_eval_session_start(e, rq, err);
    if (!rc && rq->nmodels && !a.json)
        eval_report_start(e);
    if (!rc && rq->nmodels)
        rc = up_eval_session_open(e, err);
    if (!rc && rq->nmodels)
        rc = up_eval_session_run(e, err);
    if (!rc)
        up_select_pool_fill(p, &e->plan, e->s.batch_dir.data);
    free(run);
    return rc;
}

/* Keep model id for the confirmation, once. */
static void keep_again(const char *id)
{
    for (size_t i = 0; i < nagain; i++)
        if (!strcmp(again[i], id))
            return;
    if (nagain < 3)
        again[nagain++] = up_xstrdup(id);
}

/* What the confirmation re-measures: the chosen's and the runner-up's
 * models (and --beat's reference); the first choice, said. */
static void plan_again(const up_select *s)
{
    if (s->chosen >= s->n) {
        fprintf(stderr, "--confirm: nothing was chosen, nothing to "
                        "confirm\n");
        return;
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->rows[i].why == UP_SELECT_CHOSEN ||
            s->rows[i].why == UP_SELECT_RUNNER_UP)
            keep_again(s->c[i].model);
    if (s->ref)
        keep_again(s->ref->model);
    snprintf(first_choice, sizeof(first_choice), "%s %s", s->c[s->chosen].model,
             s->c[s->chosen].skill ? "with the skill" : "baseline");
}

/* Render the decision (a first one before --confirm: text only). */
static void render(const struct select_view *v)
{
    if (a.json && confirm && !confirming && v->s->chosen < v->s->n)
        return; /* the document is the confirmation's */
    if (confirming && !a.json)
        printf("\nconfirmation, decided on it alone (fresh repeats: no "
               "cache, seed %ld; the first choice was %s):\n",
               a.seed, first_choice);
    if (a.json)
        select_report_json(v);
    else
        select_report_text(v);
}

/* Decide and render; the exit code. */
static int decide(up_select_pool *p, const up_eval_session *e, up_error *err)
{
    up_select_goal g = {target,
                        beat ? p->want[p->ref].id : NULL,
                        0,
                        (unsigned)a.runs,
                        allow_unpriced,
                        a.family_control && !strcmp(a.family_control, "none")
                            ? UP_STATS_ALPHA
                            : 0};
    up_select s;
    char *dead = up_xcalloc(e->plan.nmodels + 1, 1);
    int rc;

    g.margin =
        (a.margin >= 0 ? a.margin : (double)e->cfg.margin_points.value) / 100;
    rc = up_select_run(&s, p->ev, p->n, &g, err);
    if (!rc) {
        struct select_view v = {&s, &g, p->ev, p->n,
                                confirming ? first_choice : NULL};

        render(&v);
        if (confirm && !confirming)
            plan_again(&s);
        rc = s.chosen < s.n ? EXIT_OK : EXIT_GATE;
        for (size_t m = 0; m < e->plan.nmodels; m++)
            dead[m] = up_eval_unanswered(&e->plan, m, NULL) != 0;
        if (e->plan.nmodels && eval_outcome_failures(e, dead))
            rc = EXIT_PROVIDER; /* as eval: errors beat gates */
    }
    up_select_release(&s);
    free(dead);
    return rc;
}

static int check_args(up_error *err)
{
    if (!a.models.n)
        return up_error_set(err, UP_EUSAGE,
                            "give the candidate models with -m MODEL");
    if (a.runs < 1)
        return up_error_set(err, UP_EUSAGE, "--runs must be at least 1");
    if ((target >= 0) == (beat != NULL))
        return up_error_set(err, UP_EUSAGE,
                            "give one goal: --target RATE or --beat MODEL");
    if (!beat && !(target > 0 && target <= 1))
        return up_error_set(err, UP_EUSAGE,
                            "--target must be a pass rate in (0, 1]");
    if (a.margin >= 0 && (!beat || a.margin > 50))
        return up_error_set(err, UP_EUSAGE,
                            "--margin goes with --beat, in points from 0 "
                            "to 50");
    if (a.family_control && strcmp(a.family_control, "bonferroni") &&
        strcmp(a.family_control, "none"))
        return up_error_set(err, UP_EUSAGE,
                            "--family-control: '%s' is not bonferroni or "
                            "none",
                            a.family_control);
    return 0;
}

static int run(up_eval_session *e, up_select_pool *p, up_error *err)
{
    up_eval_request rq;
    int rc = check_args(err);

    eval_cli_request(&rq, &a);
    rq.gen_tests = 1;
    if (!rc)
        rc = up_eval_session_load(e, &rq, err);
    if (!rc)
        rc = up_select_pool_init(p, (const char *const *)a.models.v, a.models.n,
                                 beat, a.base_url, a.api_key_env, &e->cfg, err);
    if (!rc)
        rc = reuse(p, e, err);
    if (!rc)
        rc = run_missing(p, e, &rq, err);
    return rc ? rc : decide(p, e, err);
}

/*
 * --confirm: the chosen's and the runner-up's models once more, every
 * conversation fresh (no cache, no batch reused, the next seed), and the
 * decision on those runs alone.
 */
static int run_again(up_select_pool *p)
{
    up_eval_session e;
    up_session_opts o;
    up_error err = {0, ""};
    int rc;

    memset(p, 0, sizeof(*p));
    for (size_t i = 0; i < nagain; i++) {
        UP_GROW(a.models.v, a.models.cap, a.models.n + 1);
        a.models.v[a.models.n++] = again[i];
    }
    fresh = 1;
    a.no_cache = 1;
    a.seed += 1;
    confirming = 1;
    eval_cli_session_opts(&o, &a);
    up_eval_session_init(&e, &o);
    rc = run(&e, p, &err);
    if (rc < 0)
        rc = out_fail(&err);
    up_eval_session_release(&e);
    up_select_pool_release(p);
    strlist_release(&a.models);
    confirming = 0;
    return rc;
}

int cmd_select(int argc, char **argv)
{
    up_eval_session e;
    up_session_opts o;
    up_select_pool p;
    up_error err = {0, ""};
    char **args = NULL;
    int nargs, rc;

    a.runs = 1;
    a.seed = 1;
    a.margin = -1;
    a.max_tokens = UP_MAX_TOKENS_UNSET;
    target = -1;
    fresh = allow_unpriced = confirm = confirming = 0;
    memset(&p, 0, sizeof(p));
    rc = opt_parse(&cmd_select_spec, argc, argv, &args, &nargs);
    if (rc == 0) {
        a.skill_path = args[0];
        eval_cli_session_opts(&o, &a);
        up_eval_session_init(&e, &o);
        rc = run(&e, &p, &err);
        if (rc < 0)
            rc = out_fail(&err);
        up_eval_session_release(&e);
    } else {
        rc = rc > 0 ? 0 : EXIT_USAGE;
    }
    up_select_pool_release(&p);
    strlist_release(&a.models);
    if (rc >= 0 && rc != EXIT_USAGE && nagain)
        rc = run_again(&p);
    for (size_t i = 0; i < nagain; i++)
        free(again[i]);
    nagain = 0;
    free(args);
    return rc;
}
