/*
 * `eval --inject both` (docs/eval.md, issue 24): skill discovery vs
 * preloading on the same cases in one command.  Two evals run in turn
 * with the same cases, models and seed: discovery (--inject catalog: the
 * baseline, and the skill named in the catalogue, read when the model
 * chooses), then preloading (--inject preload: the skill arm only,
 * SKILL.md's body in the system prompt), which shares the first one's
 * baseline.  Each writes its own batch and prints its report; then, per
 * model, each lift over the shared baseline and preloading against
 * discovery, paired per case with the project's statistics.  With
 * --json each eval leaves its document (eval_args.json_into) and one
 * document holds both and the comparisons.
 */
#include <stdlib.h>
#include <string.h>

#include "eval_cli.h"

/* What --inject both cannot be combined with (yet), and why. */
static const char *refused(const struct eval_args *a)
{
    const struct {
        int set;
        const char *what;
    } rows[] = {
        {!a->agent && !a->run_tool, "needs agent mode (--agent or --tasks)"},
        {a->no_baseline, "needs the baseline (drop --no-baseline)"},
        {a->resume != NULL, "cannot --resume (resume each batch alone)"},
        {a->shard != NULL, "cannot --shard (shard each --inject alone)"},
        {a->plan, "has no --plan"},
        {a->trigger, "has no --trigger"},
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (rows[i].set)
            return rows[i].what;
    return NULL;
}

/* Run one eval of a with inject, into e; the exit code (< 0: err). */
static int one(up_eval_session *e, struct eval_args *a, const char *inject,
               up_error *err)
{
    up_session_opts o;

    a->inject = inject;
    eval_cli_session_opts(&o, a);
    up_eval_session_init(e, &o);
    return eval_cli_session_run(e, a, err);
}

/* The two evals ran the same cases (a suite written in between would
 * not). */
static int same_cases(const up_eval_session *x, const up_eval_session *y)
{
    if (x->suite.ncases != y->suite.ncases ||
        x->plan.nmodels != y->plan.nmodels)
        return 0;
    for (size_t i = 0; i < x->suite.ncases; i++)
        if (strcmp(x->suite.cases[i].input, y->suite.cases[i].input))
            return 0;
    for (size_t m = 0; m < x->plan.nmodels; m++)
        if (strcmp(x->plan.models[m], y->plan.models[m]))
            return 0;
    return 1;
}

/* The three comparisons, in order: their text labels and JSON keys. */
static const struct {
    const char *label, *key;
} rows[3] = {
    {"discovered - baseline:", "discovered_vs_baseline"},
    {"preloaded - baseline:", "preloaded_vs_baseline"},
    {"preloaded - discovered:", "preloaded_vs_discovered"},
};

static void line(const char *label, const up_comparison *c)
{
    up_buf t = UP_BUF_INIT;

    up_stats_verdict_text(&t, c);
    if (c->paired)
        printf("  %-24s %s points, 95%% CI %s, p = %.3g: %s\n", label,
               LIFT_FMT(c->lift.diff, c->margin), CI_FMT(&c->lift, c->margin),
               c->lift.p, out_safe(t.data));
    else
        printf("  %-24s %s\n", label, out_safe(t.data));
    up_buf_release(&t);
}

/* Model m's comparisons as text on stdout. */
static void text(const char *model, const up_comparison x[3])
{
    printf("%sSkill discovery vs preloading: %s%s\n", out_c(C_BOLD),
           out_safe(model), out_c(C_RESET));
    printf("  pass rates: baseline %.0f%%, discovered (catalog) %.0f%%, "
           "preloaded %.0f%%\n",
           x[0].base.rate * 100, x[0].skill.rate * 100, x[1].skill.rate * 100);
    for (size_t i = 0; i < 3; i++)
        line(rows[i].label, &x[i]);
}

/* ... as one entry of --json's "comparison" (a new reference). */
static json_t *entry(const char *model, const up_comparison x[3])
{
    json_t *o =
        json_pack("{s:s, s:{s:f, s:f, s:f}}", "model", model, "pass_rates",
                  "baseline", x[0].base.rate, "discovered", x[0].skill.rate,
                  "preloaded", x[1].skill.rate);

    for (size_t i = 0; i < 3; i++) {
        json_t *v = json_object();

        eval_report_verdict_json(v, &x[i]);
        json_object_set_new(o, rows[i].key, v);
    }
    return o;
}

/* Model m: both lifts over the shared baseline, and preloading against
 * discovery over the cases answered in both; printed, or appended to
 * json when it is not NULL. */
static int report(const up_eval_session *cat, const up_eval_session *pre,
                  size_t m, uint64_t seed, json_t *json, up_error *err)
{
    size_t n = cat->suite.ncases;
    up_stats_case *c = up_eval_cases(&cat->plan, m);
    up_stats_case *p = up_eval_cases(&pre->plan, m);
    up_stats_case *pb = up_xcalloc(n + 1, sizeof(*pb));
    up_stats_case *pc = up_xcalloc(n + 1, sizeof(*pc));
    up_comparison x[3];
    double margin = cat->plan.margin;
    int rc;

    for (size_t i = 0; i < n; i++) {
        pb[i] = p[i]; /* the preloaded arm over the shared baseline */
        pb[i].base_pass = c[i].base_pass, pb[i].base_runs = c[i].base_runs;
        pb[i].base_tokens = c[i].base_tokens;
        pb[i].base_untold = c[i].base_untold;
        pc[i] = p[i]; /* ... and over the catalogue arm */
        pc[i].base_pass = c[i].skill_pass, pc[i].base_runs = c[i].skill_runs;
        pc[i].base_tokens = c[i].skill_tokens;
        pc[i].base_untold = c[i].skill_untold;
    }
    rc = up_stats_compare(&x[0], c, n, seed, margin, err);
    if (!rc)
        rc = up_stats_compare(&x[1], pb, n, seed, margin, err);
    if (!rc)
        rc = up_stats_compare(&x[2], pc, n, seed, margin, err);
    if (!rc && json)
        json_array_append_new(json, entry(cat->plan.models[m], x));
    else if (!rc)
        text(cat->plan.models[m], x);
    free(c);
    free(p);
    free(pb);
    free(pc);
    return rc;
}

/* Each eval's heading: on stdout, or on stderr beside --json's notes. */
static void heading(const struct eval_args *a, const char *s)
{
    fprintf(a->json ? stderr : stdout, "%s\n", s);
    fflush(stdout);
}

/* --json: the one document (docs/eval.md); it takes doc and cmp. */
static void print_json(json_t *doc[2], json_t *cmp)
{
    json_t *o = json_pack("{s:o?, s:o?, s:o?}", "catalog", doc[0], "preload",
                          doc[1], "comparison", cmp);

    out_json(o);
    json_decref(o);
}

int eval_inject_both(struct eval_args *a)
{
    up_eval_session cat, pre;
    up_error err = {0, ""};
    const char *why = refused(a);
    json_t *doc[2] = {NULL, NULL};
    json_t *cmp = NULL;
    int rc, rc2;

    if (why) {
        out_error("--inject both %s", why);
        return EXIT_USAGE;
    }
    heading(a, "== skill discovery (--inject catalog) ==");
    a->json_into = a->json ? &doc[0] : NULL;
    rc = one(&cat, a, "catalog", &err);
    if (rc < 0) {
        a->json_into = NULL;
        json_decref(doc[0]);
        up_eval_session_release(&cat);
        return out_fail(&err);
    }
    heading(a, "== skill preloaded (--inject preload), the baseline above ==");
    a->json_into = a->json ? &doc[1] : NULL;
    a->no_baseline = 1;
    rc2 = one(&pre, a, "preload", &err);
    a->json_into = NULL;
    rc = rc ? rc : rc2;
    if (rc2 >= 0 && !same_cases(&cat, &pre))
        rc2 = up_error_set(&err, UP_EINVALID,
                           "--inject both: the two evals did not run the "
                           "same cases (was the suite written in between?)");
    cmp = a->json && rc2 >= 0 ? json_array() : NULL;
    for (size_t m = 0; rc2 >= 0 && m < cat.plan.nmodels; m++)
        rc2 = report(&cat, &pre, m, (uint64_t)a->seed, cmp, &err);
    if (rc2 < 0) {
        json_decref(cmp);
        cmp = NULL; /* no comparison: null in --json */
        rc = out_fail(&err);
    }
    if (a->json)
        print_json(doc, cmp);
    up_eval_session_release(&cat);
    up_eval_session_release(&pre);
    return rc;
}
