/*
 * Rendering `upskill generate`.  Progress follows upstream's lines
 * ("Generating skill with X...", "  60% -> 100% (+40%) OK", "Refining...")
 * on stderr; the report on stdout is upstream's (name, description, files
 * and token sizes, bars per model, tokens) with a side-by-side table of
 * teacher and students, and each model's block from eval_report_text so
 * the statistics read exactly as in `upskill eval`.
 */
#include <stdlib.h>
#include <string.h>

#include "eval_cli.h"
#include "gen_report.h"

/* ---- progress --------------------------------------------------------- */

static void print_lines(const char *text, enum color col)
{
    const char *p = text;

    while (p && *p) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);

        fprintf(stderr, "    %s%.*s%s\n", out_c(col), n, p, out_c(C_RESET));
        p = nl ? nl + 1 : NULL;
    }
}

static void ev_skill(const up_gen_event *ev)
{
    const up_gen *g = ev->gen;

    if (!strcmp(ev->detail, "improve"))
        fprintf(stderr, "Improving %s with %s...\n", g->source.name, ev->model);
    else if (!strcmp(ev->detail, "trace"))
        fprintf(stderr, "Generating skill from trace: %s with %s...\n",
                g->o->from, ev->model);
    else
        fprintf(stderr, "Generating skill with %s...\n", ev->model);
}

static void ev_tests(const up_gen_event *ev)
{
    const up_gen *g = ev->gen;

    if (!ev->detail)
        fprintf(stderr, "Generating test cases with %s...\n", ev->model);
    else if (!strcmp(ev->detail, "reused"))
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
                s->model, b, w, l);
    }
    fprintf(stderr, "  teacher: %s\n", up_gen_teacher_label(a->teacher));
    fprintf(stderr, "  %s%s%s\n", out_c(a->good ? C_GREEN : C_YELLOW),
            a->good ? "OK" : "not good enough", out_c(C_RESET));
}

void gen_report_event(void *ud, const up_gen_event *ev)
{
    (void)ud;
    switch (ev->stage) {
    case UP_GEN_EV_TRACE:
        fprintf(stderr, "Read trace %s:\n", ev->gen->o->from);
        print_lines(ev->detail, C_DIM);
        break;
    case UP_GEN_EV_SKILL:
        ev_skill(ev);
        break;
    case UP_GEN_EV_REPAIR:
        fprintf(stderr, "%sInvalid skill from the teacher; sent back:%s\n",
                out_c(C_YELLOW), out_c(C_RESET));
        print_lines(ev->detail, C_YELLOW);
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
        break;
    case UP_GEN_EV_STOP:
        fprintf(stderr, "Stopped: %s\n", ev->detail);
        break;
    }
}

void gen_report_plan(const up_gen *g)
{
    fprintf(stderr, "%sResolved model plan:%s\n", out_c(C_DIM), out_c(C_RESET));
    fprintf(stderr, "  Skill Generation Model: %s\n", g->models[0].resolved);
    if (!g->o->no_eval) {
        fprintf(stderr, "  Test Generation Model: %s\n",
                g->test_model.resolved);
        fprintf(stderr, "  Evaluation Model (teacher): %s\n",
                g->models[0].resolved);
    }
    for (size_t i = 1; !g->o->no_eval && i < g->nmodels; i++)
        fprintf(stderr, "  Evaluation Model (student, drives refinement): %s\n",
                g->models[i].resolved);
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
            printf("  %-28s (exec only)\n", f->path);
        else
            printf("  %-28s ~%zu tokens\n", f->path,
                   up_tokens_estimate(f->data, f->len));
    }
}

static void side_by_side(const up_gen *g, const up_gen_attempt *a)
{
    printf("\n  %-34s %-8s %8s %10s %6s  %s\n", "model", "role", "baseline",
           "with skill", "lift", "verdict");
    for (size_t m = 0; m < g->nmodels; m++) {
        const up_eval_summary *s = &a->sums[m];
        char b[16], w[16], l[16];

        render_pct(b, sizeof(b), s->arm[UP_ARM_BASELINE].rate.rate);
        render_pct(w, sizeof(w), s->arm[UP_ARM_SKILL].rate.rate);
        render_lift(l, sizeof(l), s->cmp.lift.diff);
        printf("  %-34.34s %-8s %8s %10s %6s  %s\n", s->model,
               m ? "student" : "teacher", b, w, l,
               up_stats_verdict_label(s->cmp.verdict));
    }
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
        if (a->evaluated)
            printf("    %d. mean lift %s, with skill %.0f%%%s\n", a->number, l,
                   a->skill_rate * 100, i == g->best ? "  (kept)" : "");
        else
            printf("    %d. not evaluated%s\n", a->number,
                   i == g->best ? "  (kept)" : "");
    }
}

static void teacher_cost(const up_gen *g)
{
    printf("\n  generation: %d call(s), %ld -> %ld tokens%s", g->teacher_calls,
           g->teacher_usage.input, g->teacher_usage.output,
           g->teacher_usage.estimated ? " (estimated)" : "");
    if (g->teacher_cost >= 0)
        printf(", $%.4f", g->teacher_cost);
    printf("\n");
}

void gen_report_text(const up_gen *g)
{
    const up_gen_attempt *a = &g->attempts[g->best];
    const up_skill *s = &a->skill;

    printf("\n  %s%s%s\n  %s\n\n", out_c(C_BOLD), s->name, out_c(C_RESET),
           s->description);
    files(s);
    if (a->evaluated) {
        side_by_side(g, a);
        for (size_t m = 0; m < g->nmodels; m++)
            eval_report_text(&a->plan, &a->sums[m], 0);
        attempts(g);
    }
    teacher_cost(g);
    if (g->saved.nerrors || g->saved.nwarnings)
        printf("\n  %s%zu validation error(s), %zu warning(s): run 'upskill "
               "validate %s'%s\n",
               out_c(C_YELLOW), g->saved.nerrors, g->saved.nwarnings,
               g->output.data, out_c(C_RESET));
    printf("\nSaved to %s", g->output.data);
    if (g->suite.ncases)
        printf(" (%zu test case(s) in skill_meta.json)", g->suite.ncases);
    printf("\n");
    if (g->batch_dir.len)
        printf("Run log: %s\n", g->batch_dir.data);
}
