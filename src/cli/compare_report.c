/*
 * Rendering `upskill compare` (compare_report.h): eval's statistics with
 * skill A in the baseline slot, worded for A and B, and the cases on
 * which they differ (the text caps the list; JSON lists every one).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare_report.h"

/* Bytes of a case's input shown in the text list. */
#define EXCERPT_BYTES 48

void compare_report_start(const up_eval_session *e, const char *path_a,
                          const char *path_b)
{
    fprintf(stderr,
            "Comparing A '%s' (%s) with B '%s' (%s) on %zu model(s): %zu "
            "case(s) x %d run(s)\n",
            out_safe(path_a), out_safe(e->base_skill.name), out_safe(path_b),
            out_safe(e->skill.name), e->plan.nmodels, e->suite.ncases,
            e->plan.runs);
}

/* The first line of a case's input, cut at a character boundary. */
static void excerpt(up_buf *out, const char *in)
{
    size_t n = in ? strcspn(in, "\r\n") : 0;
    int cut = in && (in[n] || n > EXCERPT_BYTES);

    if (n > EXCERPT_BYTES) {
        n = EXCERPT_BYTES;
        while (n && ((unsigned char)in[n] & 0xC0) == 0x80)
            n--; /* not inside a UTF-8 character */
    }
    up_buf_add(out, in ? in : "", n);
    if (cut)
        up_buf_adds(out, "...");
}

static void arm_line(const char *label, const up_arm_totals *t)
{
    char tail[128];

    snprintf(tail, sizeof(tail), "  [%.0f-%.0f%%]  %zu/%zu passed",
             t->rate.lo * 100, t->rate.hi * 100, t->passed,
             t->jobs - t->errors - t->ungradable);
    render_arm(stdout, label, t->rate.rate, tail);
}

/* "$0.0012", or "none passed" (a static buffer: one call per printf
 * argument would share it, so two alternate) */
static const char *cost(double per_pass)
{
    static char buf[2][32];
    static int k;

    k = !k;
    if (per_pass < 0)
        return "none passed";
    return up_stats_fmt_usd(buf[k], sizeof(buf[k]), per_pass);
}

static void stats_lines(const up_eval_summary *s)
{
    const up_comparison *c = &s->cmp;
    up_buf text = UP_BUF_INIT;

    char lv[UP_STATS_FMT_LEN];

    if (c->paired && c->family > 1)
        printf("  B - A: %s points, %s CI %s, p = %.3g (%.3g adjusted over "
               "%zu comparisons) over %zu case%s\n",
               LIFT_FMT(c->lift.diff, c->margin),
               up_stats_ci_level(lv, sizeof(lv), c),
               CI_FMT(&c->lift, c->margin), c->lift.p, c->p_adj, c->family,
               c->paired, c->paired == 1 ? "" : "s");
    else if (c->paired)
        printf("  B - A: %s points, 95%% CI %s, p = %.3g over %zu case%s\n",
               LIFT_FMT(c->lift.diff, c->margin), CI_FMT(&c->lift, c->margin),
               c->lift.p, c->paired, c->paired == 1 ? "" : "s");
    up_ab_verdict_text(&text, c);
    printf("  verdict: %s%s%s\n",
           out_c(c->verdict == UP_VERDICT_BENEFICIAL ? C_GREEN
                 : c->verdict == UP_VERDICT_HARMFUL  ? C_RED
                                                     : C_YELLOW),
           text.data, out_c(C_RESET));
    if (c->paired)
        printf("  tokens per case: A %.0f, B %.0f (%+.0f%%)\n",
               c->tokens.base_mean, c->tokens.skill_mean,
               c->token_change * 100);
    if (s->arm[0].cost_usd >= 0) /* priced */
        printf("  cost per passed case: A %s, B %s\n",
               cost(s->arm[UP_ARM_BASELINE].cost_per_pass),
               cost(s->arm[UP_ARM_SKILL].cost_per_pass));
    up_buf_reset(&text);
    if (up_stats_power_sentence(&text, c))
        printf("  %s%s%s\n", out_c(C_DIM), text.data, out_c(C_RESET));
    up_buf_release(&text);
}

/* Errors, and agent mode's activation, per skill. */
static void arm_notes(const up_eval_summary *s)
{
    static const char *const names[2] = {"A", "B"};

    for (int a = 0; a < 2; a++) {
        const up_arm_totals *t = &s->arm[a];

        render_arm_errors(names[a], t);
        if (t->agent_jobs)
            printf("  %s: SKILL.md read in %zu of %zu conversations\n",
                   names[a], t->skill_reads, t->agent_jobs);
    }
}

static void case_lines(const up_eval_plan *p, const up_ab_case *d, size_t n)
{
    up_buf ex = UP_BUF_INIT;

    printf("  cases that differ: %zu of %zu\n", n, p->suite->ncases);
    for (size_t i = 0; i < n && i < COMPARE_TEXT_CASES; i++) {
        up_buf_reset(&ex);
        excerpt(&ex, p->suite->cases[d[i].kase].input);
        printf("    case %zu \"%s\": A %u/%u, B %u/%u (%+.0f points)\n",
               d[i].kase + 1, out_safe(ex.data), d[i].a_pass, d[i].a_runs,
               d[i].b_pass, d[i].b_runs, d[i].diff * 100);
    }
    if (n > COMPARE_TEXT_CASES)
        printf("    ... %zu more (--json lists them all)\n",
               n - COMPARE_TEXT_CASES);
    up_buf_release(&ex);
}

void compare_report_text(const struct compare_view *v)
{
    const up_eval_plan *p = &v->e->plan;

    printf("A: %s (%s)\nB: %s (%s)\n", out_safe(v->path_a),
           out_safe(v->e->base_skill.name), out_safe(v->path_b),
           out_safe(v->e->skill.name));
    for (size_t m = 0; m < p->nmodels; m++) {
        if (v->dead[m]) /* no bars from errors */
            continue;
        printf("\n%s\n", out_safe(v->s[m].model));
        arm_line("A", &v->s[m].arm[UP_ARM_BASELINE]);
        arm_line("B", &v->s[m].arm[UP_ARM_SKILL]);
        stats_lines(&v->s[m]);
        arm_notes(&v->s[m]);
        case_lines(p, v->diffs[m], v->ndiffs[m]);
    }
    eval_report_family_line(eval_report_family_of(v->s, p->nmodels));
}

static json_t *cases_json(const up_eval_plan *p, const up_ab_case *d, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++) {
        const up_case *c = &p->suite->cases[d[i].kase];

        json_array_append_new(
            a,
            json_pack("{s:I, s:s, s:i, s:i, s:i, s:i, s:f}", "case",
                      (json_int_t)d[i].kase + 1, "input",
                      c->input ? c->input : "", "a_passed", (int)d[i].a_pass,
                      "a_runs", (int)d[i].a_runs, "b_passed", (int)d[i].b_pass,
                      "b_runs", (int)d[i].b_runs, "diff", d[i].diff));
    }
    return a;
}

/* eval's model object, its arms renamed a and b, plus ours. */
static json_t *model_json(const struct compare_view *v, size_t m)
{
    json_t *o = eval_report_model_json(&v->s[m]);
    up_buf text = UP_BUF_INIT;

    json_object_set(o, "a", json_object_get(o, "baseline"));
    json_object_set(o, "b", json_object_get(o, "with_skill"));
    json_object_del(o, "baseline");
    json_object_del(o, "with_skill");
    json_object_del(o, "skill_tokens");
    json_object_del(o, "is_beneficial");
    up_ab_verdict_text(&text, &v->s[m].cmp);
    json_object_set_new(o, "verdict_label",
                        json_string(up_ab_verdict_label(v->s[m].cmp.verdict)));
    json_object_set_new(o, "verdict_text", json_string(text.data));
    json_object_set_new(o, "answered", json_boolean(!v->dead[m]));
    json_object_set_new(o, "cases_differ",
                        cases_json(&v->e->plan, v->diffs[m], v->ndiffs[m]));
    up_buf_release(&text);
    return o;
}

static json_t *skill_json(const char *path, const up_skill *k)
{
    return json_pack("{s:s, s:s}", "path", path, "name",
                     k->name ? k->name : "");
}

void compare_report_json(const struct compare_view *v)
{
    const up_eval_plan *p = &v->e->plan;
    json_t *models = json_array(), *doc;

    for (size_t m = 0; m < p->nmodels; m++)
        json_array_append_new(models, model_json(v, m));
    doc = json_pack("{s:o, s:o, s:s?, s:I, s:i, s:o}", "a",
                    skill_json(v->path_a, &v->e->base_skill), "b",
                    skill_json(v->path_b, &v->e->skill), "batch_id",
                    v->e->s.batch_id.len ? v->e->s.batch_id.data : NULL,
                    "cases", (json_int_t)p->suite->ncases, "runs", p->runs,
                    "models", models);
    if (eval_report_family_of(v->s, p->nmodels))
        json_object_set_new(
            doc, "family",
            eval_report_family_json(eval_report_family_of(v->s, p->nmodels)));
    out_json(doc);
    json_decref(doc);
}
