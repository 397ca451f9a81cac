/*
 * Rendering `upskill generate`.  Progress follows upstream's lines
 * ("Generating skill with X...", "  60% -> 100% (+40%) OK", "Refining...")
 * on stderr; the report on stdout is upstream's (name, description, files
 * and token sizes, bars per model, tokens) with a side-by-side table of
 * teacher and students, and each model's block from eval_report_text so
 * the statistics read exactly as in `upskill eval`.  --json prints the
 * same facts as one document instead (docs/generate.md), each model's
 * entry from eval_report_model_json.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval_cli.h"
#include "gen_report.h"

/* ---- progress --------------------------------------------------------- */

/*
 * A call to the teacher (or the test writer) runs on the command's loop
 * for as long as the model writes; on a TTY the loop's waiting hook
 * (up_gen_opts.call_waiting, each second) rewrites one line with its
 * elapsed time, and the next event (or the end of the run) ends it with
 * the total.
 */
static struct {
    int on;
    long start; /* up_http_now_ms */
    char what[200];
} tick;

static void call_start(const char *who, const char *model)
{
    if (!out_err_is_tty())
        return;
    snprintf(tick.what, sizeof(tick.what), "waiting for the %s (%s)", who,
             out_safe(model));
    tick.start = up_http_now_ms();
    tick.on = 1;
}

void gen_report_call_waiting(void *ud, const up_sched_wait *w)
{
    (void)ud;
    if (tick.on)
        fprintf(stderr, "\r  %s: %lds elapsed", tick.what, w->waited_ms / 1000);
}

void gen_report_call_done(void)
{
    if (!tick.on)
        return;
    tick.on = 0;
    fprintf(stderr, "\r  %s: answered in %.1fs\n", tick.what,
            (double)(up_http_now_ms() - tick.start) / 1000);
}

void gen_report_progress(void *ud, const up_eval_plan *p, size_t done,
                         const up_eval_job *job)
{
    static struct eval_progress pr;
    static const up_eval_plan *last;

    (void)ud;
    if (p != last) { /* a new evaluation: counted afresh */
        memset(&pr, 0, sizeof(pr));
        pr.tty = out_err_is_tty();
        pr.start = up_http_now_ms();
        last = p;
    }
    if (pr.tty || p->njobs >= 200) /* eval's rule (eval_cli.c) */
        eval_report_progress(&pr, p, done, job);
}

/* Teacher replies, trace text and messages: outside text, escaped. */
static void print_lines(const char *text, enum color col)
{
    up_buf safe = UP_BUF_INIT;
    const char *p;

    up_esc_ctrl(&safe, text, text ? strlen(text) : 0, UP_ESC_MULTILINE);
    p = safe.data;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);

        fprintf(stderr, "    %s%.*s%s\n", out_c(col), n, p, out_c(C_RESET));
        p = nl ? nl + 1 : NULL;
    }
    up_buf_release(&safe);
}

static void ev_skill(const up_gen_event *ev)
{
    const up_gen *g = ev->gen;

    if (!strcmp(ev->detail, "improve"))
        fprintf(stderr, "Improving %s with %s...\n", out_safe(g->source.name),
                out_safe(ev->model));
    else if (!strcmp(ev->detail, "trace"))
        fprintf(stderr, "Generating skill from trace: %s with %s...\n",
                out_safe(g->o->from), out_safe(ev->model));
    else
        fprintf(stderr, "Generating skill with %s...\n", out_safe(ev->model));
}

static void ev_tests(const up_gen_event *ev)
{
    const up_gen *g = ev->gen;

    if (!ev->detail) {
        fprintf(stderr, "Generating test cases with %s...\n",
                out_safe(ev->model));
        call_start("test writer", ev->model);
    } else if (!strcmp(ev->detail, "reused"))
        fprintf(stderr, "Reusing %zu test case(s) from skill_meta.json\n",
                g->suite.ncases);
    else {
        fprintf(stderr, "Generated test cases: total=%zu\n", g->suite.ncases);
        print_lines(ev->detail, C_YELLOW);
    }
}

static void ev_attempt(const up_gen_event *ev)
{
    const up_gen_attempt *a = ev->att;
    const up_gen *g = ev->gen;

    for (size_t m = 0; m < g->nmodels; m++) {
        const up_eval_summary *s = &a->sums[m];
        char b[16], w[16], l[16];

        render_pct(b, sizeof(b), s->arm[UP_ARM_BASELINE].rate.rate);
        render_pct(w, sizeof(w), s->arm[UP_ARM_SKILL].rate.rate);
        render_lift(l, sizeof(l), s->cmp.lift.diff);
        fprintf(stderr, "  %-8s %s: %s -> %s (%s)\n", m ? "student" : "teacher",
                out_safe(s->model), b, w, s->cmp.paired ? l : "not measured");
    }
    fprintf(stderr, "  teacher: %s\n", up_gen_teacher_label(a->teacher));
    fprintf(stderr, "  %s%s%s\n", out_c(a->good ? C_GREEN : C_YELLOW),
            a->good ? "OK" : "not good enough", out_c(C_RESET));
    if (a->quoting)
        out_warn("attempt %d gives away %zu of its tests, so it is not "
                 "kept: %s",
                 a->number, a->nquotes, out_safe(a->quotes));
    else if (a->nquotes)
        out_warn("attempt %d gives away %zu of its tests, which then "
                 "measure recall, not the skill: %s",
                 a->number, a->nquotes, out_safe(a->quotes));
}

void gen_report_event(void *ud, const up_gen_event *ev)
{
    (void)ud;
    gen_report_call_done();
    switch (ev->stage) {
    case UP_GEN_EV_TRACE:
        fprintf(stderr, "Read trace %s:\n", out_safe(ev->gen->o->from));
        print_lines(ev->detail, C_DIM);
        break;
    case UP_GEN_EV_SKILL:
        ev_skill(ev);
        call_start("teacher", ev->model);
        break;
    case UP_GEN_EV_REPAIR:
        fprintf(stderr, "%sInvalid skill from the teacher; sent back:%s\n",
                out_c(C_YELLOW), out_c(C_RESET));
        print_lines(ev->detail, C_YELLOW);
        if (ev->model)
            call_start("teacher", ev->model);
        break;
    case UP_GEN_EV_WARNINGS:
        fprintf(stderr, "Skill accepted with warnings:\n");
        print_lines(ev->detail, C_DIM);
        break;
    case UP_GEN_EV_TESTS:
        ev_tests(ev);
        break;
    case UP_GEN_EV_EVAL:
        fprintf(stderr, "Evaluating... (attempt %d)\n", ev->attempt);
        break;
    case UP_GEN_EV_ATTEMPT:
        ev_attempt(ev);
        break;
    case UP_GEN_EV_REFINE:
        fprintf(stderr, "Refining... (attempt %d)\n", ev->attempt);
        call_start("teacher", ev->model);
        break;
    case UP_GEN_EV_STOP:
        /* an interrupt is said once, by the error line */
        if (ev->gen->stop != UP_GEN_STOP_INTERRUPTED)
            fprintf(stderr, "Stopped: %s\n", out_safe(ev->detail));
        break;
    }
}

void gen_report_plan(const up_gen *g)
{
    fprintf(stderr, "%sResolved model plan:%s\n", out_c(C_DIM), out_c(C_RESET));
    fprintf(stderr, "  Skill Generation Model: %s\n",
            out_safe(up_gen_model(g, 0)->resolved));
    if (!g->o->no_eval) {
        fprintf(stderr, "  Test Generation Model: %s\n",
                out_safe(up_gen_model(g, g->nmodels)->resolved));
        fprintf(stderr, "  Evaluation Model (teacher): %s\n",
                out_safe(up_gen_model(g, 0)->resolved));
    }
    for (size_t i = 1; !g->o->no_eval && i < g->nmodels; i++) {
        fprintf(stderr, "  Evaluation Model (student, drives refinement): %s\n",
                out_safe(up_gen_model(g, i)->resolved));
        if (up_harness_spec_of(up_gen_model(g, i)->resolved))
            fprintf(stderr,
                    "    measured and refined inside the coding-agent CLI: "
                    "the skill sits in its skill folder and the CLI decides "
                    "whether to load it (docs/agent-clis.md)\n");
    }
}

/* ---- the report ------------------------------------------------------- */

static void files(const up_skill *s)
{
    printf("  %-28s ~%zu tokens\n", "SKILL.md",
           up_tokens_estimate(s->body ? s->body : "",
                              s->body ? strlen(s->body) : 0));
    for (size_t i = 0; i < s->nfiles; i++) {
        const up_skill_file *f = &s->files[i];

        if (!strncmp(f->path, "scripts/", 8))
            printf("  %-28s (exec only)\n", out_safe(f->path));
        else
            printf("  %-28s ~%zu tokens\n", out_safe(f->path),
                   up_tokens_estimate(f->data, f->len));
    }
}

/* Model m answered no conversation of a: no rates, no verdict. */
static int unanswered(const up_gen_attempt *a, size_t m)
{
    return up_eval_unanswered(&a->plan, m, NULL) != 0;
}

/* The models' rates, lifts and verdicts of one plan's summaries. */
static void table(const up_gen *g, const up_eval_plan *p,
                  const up_eval_summary *sums)
{
    printf("\n  %-34s %-8s %8s %10s %6s  %s\n", "model", "role", "baseline",
           "with skill", "lift", "verdict");
    for (size_t m = 0; m < g->nmodels; m++) {
        const up_eval_summary *s = &sums[m];
        char b[16], w[16], l[16];

        if (up_eval_unanswered(p, m, NULL)) {
            printf("  %-34.34s %-8s %s(no answer: every conversation "
                   "failed)%s\n",
                   s->model, m ? "student" : "teacher", out_c(C_RED),
                   out_c(C_RESET));
            continue;
        }
        render_pct(b, sizeof(b), s->arm[UP_ARM_BASELINE].rate.rate);
        render_pct(w, sizeof(w), s->arm[UP_ARM_SKILL].rate.rate);
        render_lift(l, sizeof(l), s->cmp.lift.diff);
        printf("  %-34.34s %-8s %8s %10s %6s  %s\n", out_safe(s->model),
               m ? "student" : "teacher", b, w, s->cmp.paired ? l : "-",
               up_stats_verdict_label(s->cmp.verdict));
    }
}

/* "2, 5": the held-out cases, numbered from 1 in the saved tests. */
static void held_list(up_buf *out, const up_gen *g)
{
    for (size_t i = 0; i < g->nheld; i++)
        up_buf_addf(out, "%s%zu", i ? ", " : "", g->held_idx[i] + 1);
}

/* The kept version on the held-out cases, then its training figure. */
static void held_out(const up_gen *g)
{
    up_buf l = UP_BUF_INIT;

    held_list(&l, g);
    printf("\n  held-out cases (%zu of %zu tests: %s): never shown to the "
           "teacher, not used to choose; the kept version measured on "
           "them:\n",
           g->nheld, g->ntests, l.data);
    table(g, &g->hplan, g->hsums);
    for (size_t m = 0; m < g->nmodels; m++)
        if (!up_eval_unanswered(&g->hplan, m, NULL))
            eval_report_text(&g->hplan, &g->hsums[m], 0);
    up_buf_release(&l);
}

static void side_by_side(const up_gen *g, const up_gen_attempt *a)
{
    if (g->hsums)
        printf("\n  training cases (%zu of %zu tests): refined and chose "
               "the kept version, so its lift here is biased upward:\n",
               g->suite.ncases, g->ntests);
    table(g, &a->plan, a->sums);
    if (a->failed)
        return; /* not judged */
    printf("\n  teacher check: %s%s%s\n",
           out_c(a->teacher == UP_GEN_TEACHER_MISCAPTURE ? C_RED
                 : a->teacher == UP_GEN_TEACHER_OK       ? C_GREEN
                                                         : C_YELLOW),
           up_gen_teacher_label(a->teacher), out_c(C_RESET));
}

static void attempts(const up_gen *g)
{
    printf("\n  attempts (%s):\n", up_gen_stop_label(g->stop));
    for (size_t i = 0; i < g->nattempts; i++) {
        const up_gen_attempt *a = &g->attempts[i];
        char l[16];

        render_lift(l, sizeof(l), a->score);
        if (a->failed)
            printf("    %d. not judged: conversations failed%s\n", a->number,
                   i == g->best ? "  (kept)" : "");
        else if (a->evaluated)
            printf("    %d. mean lift %s, with skill %.0f%%%s%s\n", a->number,
                   l, a->skill_rate * 100, i == g->best ? "  (kept)" : "",
                   a->quoting ? "  (gives away its tests: not kept)" : "");
        else
            printf("    %d. not evaluated%s\n", a->number,
                   i == g->best ? "  (kept)" : "");
    }
}

static void cost_line(const char *role, const char *unit, const up_gen_cost *c)
{
    char in[32], out[32], d[UP_STATS_FMT_LEN];

    render_thousands(in, sizeof(in), c->usage.input);
    render_thousands(out, sizeof(out), c->usage.output);
    printf("    %-34.34s %5d %-15s %s -> %s tokens%s", out_safe(role), c->calls,
           unit, in, out, c->usage.estimated ? " (estimated)" : "");
    if (c->cost_usd >= 0)
        printf(", %s", up_stats_fmt_usd(d, sizeof(d), c->cost_usd));
    printf("\n");
}

/* Tokens and cost by role: writing, tests, then each model's evals. */
static void costs(const up_gen *g)
{
    printf("\n  tokens and cost:\n");
    cost_line("teacher, writing the skill", "call(s)", &g->writing);
    if (g->testing.calls)
        cost_line("test generation", "call(s)", &g->testing);
    for (size_t m = 0;
         m < g->nmodels && g->nattempts && g->attempts[0].evaluated; m++) {
        up_gen_cost c;
        up_buf role = UP_BUF_INIT;

        up_gen_eval_cost(g, m, &c);
        up_buf_addf(&role, "eval, %s", up_gen_model(g, m)->resolved);
        cost_line(role.data, "conversation(s)", &c);
        up_buf_release(&role);
    }
}

void gen_report_text(const up_gen *g)
{
    const up_gen_attempt *a = &g->attempts[g->best];
    const up_skill *s = &a->skill;

    printf("\n  %s%s%s\n  %s\n\n", out_c(C_BOLD), out_safe(s->name),
           out_c(C_RESET), out_safe(s->description));
    files(s);
    if (a->evaluated) {
        side_by_side(g, a);
        for (size_t m = 0; !g->hsums && m < g->nmodels; m++)
            if (!unanswered(a, m)) /* no bars from errors */
                eval_report_text(&a->plan, &a->sums[m], 0);
        if (g->hsums)
            held_out(g);
        else if (g->holdout_off == UP_GEN_HOLDOUT_FEW)
            printf("\n  %s%zu tests: too few to hold %d out and refine on "
                   "%d, so the lift above is measured on the cases that "
                   "chose the kept version%s\n",
                   out_c(C_DIM), g->ntests, UP_GEN_HOLDOUT_MIN,
                   UP_GEN_HOLDOUT_KEEP, out_c(C_RESET));
        attempts(g);
    }
    costs(g);
    if (g->saved.nerrors || g->saved.nwarnings)
        printf("\n  %s%zu validation error(s), %zu warning(s): run 'upskill "
               "validate %s'%s\n",
               out_c(C_YELLOW), g->saved.nerrors, g->saved.nwarnings,
               out_safe(g->output.data), out_c(C_RESET));
    /* upstream's line, the path alone: scripts take it from there */
    printf("\nSaved to %s\n", out_safe(g->output.data));
    if (g->nheld)
        printf("Tests: %zu test case(s) in skill_meta.json, %zu of them held "
               "out\n",
               g->ntests, g->nheld);
    else if (g->suite.ncases)
        printf("Tests: %zu test case(s) in skill_meta.json\n", g->suite.ncases);
    if (g->session.batch_dir.len)
        printf("Run log: %s\n", out_safe(g->session.batch_dir.data));
}

/* ---- --json ----------------------------------------------------------- */

static const char *const stop_ids[] = {
    [UP_GEN_STOP_NONE] = "not_evaluated",
    [UP_GEN_STOP_GOOD] = "beneficial",
    [UP_GEN_STOP_CEILING] = "ceiling",
    [UP_GEN_STOP_PLATEAU] = "plateau",
    [UP_GEN_STOP_LIMIT] = "limit",
    [UP_GEN_STOP_REJECTED] = "rejected",
    [UP_GEN_STOP_ERROR] = "error",
    [UP_GEN_STOP_INTERRUPTED] = "interrupted",
};

static const char *const teacher_ids[] = {
    [UP_GEN_TEACHER_OK] = "ok",
    [UP_GEN_TEACHER_MISCAPTURE] = "miscapture",
    [UP_GEN_TEACHER_REDUNDANT] = "redundant",
};

static json_t *files_json(const up_skill *s)
{
    json_t *a = json_array();

    json_array_append_new(
        a,
        json_pack("{s:s, s:I}", "path", "SKILL.md", "tokens",
                  (json_int_t)up_tokens_estimate(
                      s->body ? s->body : "", s->body ? strlen(s->body) : 0)));
    for (size_t i = 0; i < s->nfiles; i++) {
        const up_skill_file *f = &s->files[i];

        if (!strncmp(f->path, "scripts/", 8))
            json_array_append_new(
                a, json_pack("{s:s, s:b}", "path", f->path, "exec_only", 1));
        else
            json_array_append_new(
                a, json_pack("{s:s, s:I}", "path", f->path, "tokens",
                             (json_int_t)up_tokens_estimate(f->data, f->len)));
    }
    return a;
}

static json_t *skill_json(const up_gen *g)
{
    const up_skill *s = &g->attempts[g->best].skill;

    return json_pack("{s:s, s:s, s:s, s:o, s:I, s:{s:I, s:I}}", "name", s->name,
                     "description", s->description ? s->description : "",
                     "path", g->output.data, "files", files_json(s), "tests",
                     (json_int_t)g->suite.ncases, "validation", "errors",
                     (json_int_t)g->saved.nerrors, "warnings",
                     (json_int_t)g->saved.nwarnings);
}

static json_t *attempt_json(const up_gen *g, size_t i)
{
    const up_gen_attempt *a = &g->attempts[i];
    json_t *o = json_pack("{s:i, s:b, s:b}", "attempt", a->number, "kept",
                          i == g->best, "evaluated", a->evaluated);
    json_t *models = json_array();

    if (!a->evaluated) {
        json_decref(models);
        return o;
    }
    for (size_t m = 0; m < g->nmodels; m++) {
        json_t *e = eval_report_model_json(&a->sums[m]);

        json_object_set_new(e, "role", json_string(m ? "student" : "teacher"));
        json_array_append_new(models, e);
    }
    if (a->failed) { /* not judged: no score, no checks */
        json_object_set_new(o, "failed", json_true());
        json_object_set_new(o, "models", models);
        return o;
    }
    json_object_set_new(o, "score", json_real(a->score));
    json_object_set_new(o, "skill_rate", json_real(a->skill_rate));
    json_object_set_new(o, "good", json_boolean(a->good));
    json_object_set_new(o, "teacher_check",
                        json_string(teacher_ids[a->teacher]));
    json_object_set_new(o, "quotes",
                        a->quotes ? json_string(a->quotes) : json_null());
    json_object_set_new(o, "quoting", json_boolean(a->quoting));
    json_object_set_new(o, "models", models);
    return o;
}

/* "holdout": which cases, and the kept version measured on them. */
static json_t *holdout_json(const up_gen *g)
{
    static const char *const off[] = {"held_out", "holdout_0", "too_few"};
    json_t *idx = json_array(), *models = json_array();

    for (size_t i = 0; i < g->nheld; i++)
        json_array_append_new(idx, json_integer((json_int_t)g->held_idx[i]));
    for (size_t m = 0; g->hsums && m < g->nmodels; m++) {
        json_t *e = eval_report_model_json(&g->hsums[m]);

        json_object_set_new(e, "role", json_string(m ? "student" : "teacher"));
        json_array_append_new(models, e);
    }
    return json_pack("{s:s, s:I, s:I, s:o, s:o}", "status", off[g->holdout_off],
                     "tests", (json_int_t)g->ntests, "training_cases",
                     (json_int_t)g->suite.ncases, "held_out_cases", idx,
                     "models",
                     g->hsums ? models : (json_decref(models), json_null()));
}

static json_t *cost_json(const up_gen_cost *c)
{
    return json_pack("{s:i, s:I, s:I, s:I, s:I, s:b, s:o}", "calls", c->calls,
                     "input_tokens", (json_int_t)c->usage.input,
                     "output_tokens", (json_int_t)c->usage.output,
                     "cached_tokens", (json_int_t)c->usage.cached,
                     "reasoning_tokens", (json_int_t)c->usage.reasoning,
                     "tokens_estimated", c->usage.estimated, "cost_usd",
                     c->cost_usd >= 0 ? json_real(c->cost_usd) : json_null());
}

/* Tokens and cost per role; the eval's per model. */
static json_t *usage_json(const up_gen *g)
{
    json_t *evals = json_array();

    for (size_t m = 0;
         m < g->nmodels && g->nattempts && g->attempts[0].evaluated; m++) {
        up_gen_cost c;
        json_t *e;

        up_gen_eval_cost(g, m, &c);
        e = cost_json(&c);
        json_object_set_new(e, "model",
                            json_string(up_gen_model(g, m)->resolved));
        json_object_set_new(e, "role", json_string(m ? "student" : "teacher"));
        json_array_append_new(evals, e);
    }
    return json_pack("{s:o, s:o, s:o}", "teacher", cost_json(&g->writing),
                     "test_gen", cost_json(&g->testing), "eval", evals);
}

static json_t *models_json(const up_gen *g)
{
    json_t *students = json_array();

    for (size_t m = 1; m < g->nmodels; m++)
        json_array_append_new(students,
                              json_string(up_gen_model(g, m)->resolved));
    return json_pack(
        "{s:s, s:s?, s:o}", "teacher", up_gen_model(g, 0)->resolved, "test_gen",
        g->o->no_eval ? NULL : up_gen_model(g, g->nmodels)->resolved,
        "students", students);
}

void gen_report_json(const up_gen *g, const up_error *err)
{
    int saved = up_gen_skill(g) && g->output.len;
    enum up_gen_stop stop = g->stop;
    json_t *attempts = json_array(), *doc;

    if (!saved && err) /* nothing came out: say why */
        stop =
            err->code == UP_EINTR ? UP_GEN_STOP_INTERRUPTED : UP_GEN_STOP_ERROR;
    for (size_t i = 0; saved && i < g->nattempts; i++)
        json_array_append_new(attempts, attempt_json(g, i));
    doc = json_pack(
        "{s:s, s:o, s:o, s:o, s:o, s:s, s:s, s:b, s:o, s:s?, s:s?, s:s?}",
        "task", g->o->task, "skill", saved ? skill_json(g) : json_null(),
        "models", models_json(g), "attempts", attempts, "kept_attempt",
        saved ? json_integer(g->attempts[g->best].number) : json_null(), "stop",
        stop_ids[stop], "stop_reason", up_gen_stop_label(stop), "tests_reused",
        g->tests_reused, "usage", usage_json(g), "batch_id",
        g->session.batch_id.len ? g->session.batch_id.data : NULL, "run_log",
        g->session.batch_dir.len ? g->session.batch_dir.data : NULL, "error",
        err ? err->msg : NULL);
    if (saved && g->ntests)
        json_object_set_new(doc, "holdout", holdout_json(g));
    out_json(doc);
    json_decref(doc);
}
