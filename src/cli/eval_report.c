/*
 * Rendering eval results: upstream's bars with our intervals, lift
 * statistics, tokens and cost; or one JSON document.  While the eval
 * runs: the progress line and, with -v, one line per HTTP attempt.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "eval_cli.h"

static void arm_line(const char *label, const up_rate *r, const char *tail)
{
    char buf[128];

    snprintf(buf, sizeof(buf), "  [%.0f-%.0f%%]%s", r->lo * 100, r->hi * 100,
             tail ? tail : "");
    render_arm(stdout, label, r->rate, buf);
}

static void verbose_cases(const up_eval_plan *p, const up_eval_summary *s)
{
    for (size_t i = 0; i < p->njobs; i++) {
        const up_eval_job *j = &p->jobs[i];
        const char *in = p->suite->cases[j->kase].input;

        if (strcmp(p->models[j->model], s->model))
            continue;
        printf("  %zu.%d %-8s %-40.40s %s%s%s%s%s%s\n", j->kase + 1, j->repeat,
               j->arm == UP_ARM_SKILL ? "skill" : "base", out_safe(in),
               out_c(j->passed ? C_GREEN : C_RED), j->passed ? "OK" : "FAIL",
               out_c(C_RESET), out_c(C_DIM), j->from_cache ? " (cached)" : "",
               out_c(C_RESET));
    }
}

static void lift_lines(const up_eval_summary *s)
{
    const up_comparison *c = &s->cmp;
    up_buf sentence = UP_BUF_INIT;
    enum color col = c->verdict == UP_VERDICT_BENEFICIAL ? C_GREEN
                     : c->verdict == UP_VERDICT_HARMFUL  ? C_RED
                                                         : C_YELLOW;

    printf("  lift %+.0f points, 95%% CI [%+.0f, %+.0f], p = %.3g: %s%s%s\n",
           c->lift.diff * 100, c->lift.ci_lo * 100, c->lift.ci_hi * 100,
           c->lift.p, out_c(col), up_stats_verdict_label(c->verdict),
           out_c(C_RESET));
    printf("  tokens per case: %.0f -> %.0f (%+.0f%%)\n", c->tokens.base_mean,
           c->tokens.skill_mean, c->token_change * 100);
    if (up_stats_power_sentence(&sentence, &c->lift))
        printf("  %s%s%s\n", out_c(C_DIM), sentence.data, out_c(C_RESET));
    up_buf_release(&sentence);
}

/* "$0.0123 ($0.0004 per passed case)", or "$0.0123 (no passed case)". */
static void arm_cost(char *out, size_t n, const up_arm_totals *t)
{
    if (t->cost_per_pass >= 0)
        snprintf(out, n, "$%.4f ($%.4f per passed case)", t->cost_usd,
                 t->cost_per_pass);
    else
        snprintf(out, n, "$%.4f (no passed case)", t->cost_usd);
}

/* What each arm cost, when prices are configured: cost per solved task
 * is where a skill that costs tokens can still pay for itself. */
static void cost_line(const up_eval_summary *s)
{
    char with[80], base[80];

    if (s->arm[UP_ARM_SKILL].cost_usd < 0)
        return;
    arm_cost(with, sizeof(with), &s->arm[UP_ARM_SKILL]);
    if (!s->has_baseline) {
        printf("  cost: %s with skill\n", with);
        return;
    }
    arm_cost(base, sizeof(base), &s->arm[UP_ARM_BASELINE]);
    printf("  cost: %s with skill, %s baseline\n", with, base);
}

/*
 * How much of the answers came from the response cache, when any did, and
 * what this run really paid (costs above are the answers' list price).
 */
static void cache_line(const up_eval_summary *s)
{
    size_t cached = s->arm[0].cached + s->arm[1].cached;
    size_t jobs = s->arm[0].jobs + s->arm[1].jobs;
    double paid = s->arm[0].paid_usd + s->arm[1].paid_usd;
    char spent[64] = "";

    if (!cached)
        return;
    if (s->arm[0].paid_usd >= 0 && s->arm[1].paid_usd >= 0)
        snprintf(spent, sizeof(spent), "; this run paid $%.4f", paid);
    printf("  %s%zu of %zu answers from the cache (--no-cache to "
           "bypass)%s%s\n",
           out_c(C_DIM), cached, jobs, spent, out_c(C_RESET));
}

void eval_report_text(const up_eval_plan *p, const up_eval_summary *s,
                      int verbose)
{
    const up_arm_totals *w = &s->arm[UP_ARM_SKILL];
    char tail[64] = "";

    printf("\n%s%s%s  (skill ~%zu tokens)\n", out_c(C_BOLD), out_safe(s->model),
           out_c(C_RESET), s->skill_tokens);
    if (verbose)
        verbose_cases(p, s);
    if (s->has_baseline) {
        char lift[16];

        arm_line("baseline", &s->arm[UP_ARM_BASELINE].rate, NULL);
        render_lift(lift, sizeof(lift), s->cmp.lift.diff);
        snprintf(tail, sizeof(tail), "  (%s)", lift);
    }
    arm_line("with skill", &w->rate, tail);
    if (s->has_baseline)
        lift_lines(s);
    if (w->errors)
        printf("  %s%zu conversation(s) ended in an error%s\n", out_c(C_YELLOW),
               w->errors + s->arm[0].errors, out_c(C_RESET));
    if (p->judge_calls)
        printf("  %sjudge: %zu call(s), %ld tokens, not counted above%s\n",
               out_c(C_DIM), p->judge_calls,
               p->judge_usage.input + p->judge_usage.output, out_c(C_RESET));
    cost_line(s);
    cache_line(s);
}

static json_t *arm_json(const up_arm_totals *t)
{
    return json_pack(
        "{s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:I, s:I, s:I, s:I, s:I, "
        "s:b, s:f, s:o, s:o, s:o}",
        "cases", (json_int_t)t->jobs, "passed", (json_int_t)t->passed, "errors",
        (json_int_t)t->errors, "cached", (json_int_t)t->cached, "pass_rate",
        t->rate.rate, "ci_low", t->rate.lo, "ci_high", t->rate.hi,
        "effective_n", t->rate.n_eff, "input_tokens",
        (json_int_t)t->usage.input, "output_tokens",
        (json_int_t)t->usage.output, "cached_tokens",
        (json_int_t)t->usage.cached, "reasoning_tokens",
        (json_int_t)t->usage.reasoning, "assertions_passed",
        (json_int_t)t->asserts_passed, "tokens_estimated", t->usage.estimated,
        "latency_ms", t->latency_ms, "cost_usd",
        t->cost_usd >= 0 ? json_real(t->cost_usd) : json_null(), "paid_usd",
        t->paid_usd >= 0 ? json_real(t->paid_usd) : json_null(),
        "cost_per_pass",
        t->cost_per_pass >= 0 ? json_real(t->cost_per_pass) : json_null());
}

json_t *eval_report_model_json(const up_eval_summary *s)
{
    json_t *o = json_pack("{s:s, s:I, s:o}", "model", s->model, "skill_tokens",
                          (json_int_t)s->skill_tokens, "with_skill",
                          arm_json(&s->arm[UP_ARM_SKILL]));
    const up_comparison *c = &s->cmp;

    if (!s->has_baseline)
        return o;
    json_object_set_new(o, "baseline", arm_json(&s->arm[UP_ARM_BASELINE]));
    json_object_set_new(
        o, "lift",
        json_pack("{s:f, s:f, s:f, s:f, s:I, s:I}", "diff", c->lift.diff,
                  "ci_low", c->lift.ci_lo, "ci_high", c->lift.ci_hi, "p_value",
                  c->lift.p, "better", (json_int_t)c->lift.better, "worse",
                  (json_int_t)c->lift.worse));
    json_object_set_new(o, "token_change", json_real(c->token_change));
    json_object_set_new(o, "token_savings", json_real(c->token_savings));
    json_object_set_new(o, "is_beneficial", json_boolean(c->is_beneficial));
    json_object_set_new(o, "verdict",
                        json_string(up_stats_verdict_id(c->verdict)));
    return o;
}

void eval_report_json(const up_eval_plan *p, const up_eval_summary *s,
                      const char *batch_id)
{
    json_t *models = json_array();
    json_t *doc;

    for (size_t m = 0; m < p->nmodels; m++)
        json_array_append_new(models, eval_report_model_json(&s[m]));
    doc = json_pack("{s:s, s:s?, s:I, s:i, s:b, s:o}", "skill",
                    p->skill->name ? p->skill->name : "", "batch_id",
                    batch_id && *batch_id ? batch_id : NULL, "cases",
                    (json_int_t)p->suite->ncases, "runs", p->runs, "baseline",
                    p->baseline, "models", models);
    json_object_set_new(
        doc, "judge",
        json_pack("{s:I, s:I, s:I}", "calls", (json_int_t)p->judge_calls,
                  "input_tokens", (json_int_t)p->judge_usage.input,
                  "output_tokens", (json_int_t)p->judge_usage.output));
    out_json(doc);
    json_decref(doc);
}

/* One row of the summary table, as heap strings in cells[0..8). */
static void summary_row(char **cells, const up_eval_summary *s)
{
    const up_comparison *c = &s->cmp;
    up_buf b = UP_BUF_INIT;
    char pct[16];

    cells[0] = up_xstrdup(s->model);
    render_pct(pct, sizeof(pct), s->arm[UP_ARM_BASELINE].rate.rate);
    cells[1] = up_xstrdup(s->has_baseline ? pct : "-");
    render_pct(pct, sizeof(pct), s->arm[UP_ARM_SKILL].rate.rate);
    cells[2] = up_xstrdup(pct);
    render_lift(pct, sizeof(pct), c->lift.diff);
    cells[3] = up_xstrdup(s->has_baseline ? pct : "-");
    up_buf_addf(&b, "%.3g", c->lift.p);
    cells[4] = s->has_baseline ? up_buf_detach(&b) : up_xstrdup("-");
    cells[5] =
        up_xstrdup(s->has_baseline ? up_stats_verdict_label(c->verdict) : "-");
    up_buf_reset(&b);
    up_buf_addf(&b, "%.0f", s->has_baseline ? c->tokens.skill_mean : 0);
    if (s->has_baseline)
        up_buf_addf(&b, " (%+.0f%%)", c->token_change * 100);
    cells[6] = up_buf_detach(&b);
    up_buf_reset(&b);
    if (s->arm[UP_ARM_SKILL].cost_per_pass >= 0)
        up_buf_addf(&b, "$%.4f", s->arm[UP_ARM_SKILL].cost_per_pass);
    else
        up_buf_adds(&b, "-");
    cells[7] = up_buf_detach(&b);
    up_buf_release(&b);
}

void eval_report_table(const up_eval_summary *s, size_t n)
{
    static const char *const head[] = {"model",       "baseline", "with skill",
                                       "lift",        "p",        "verdict",
                                       "tokens/case", "cost/pass"};
    char **cells = up_xcalloc(n * 8, sizeof(*cells));

    for (size_t m = 0; m < n; m++)
        summary_row(cells + m * 8, &s[m]);
    printf("\n");
    render_table(stdout, head, (const char *const *)cells, 8, n);
    for (size_t i = 0; i < n * 8; i++)
        free(cells[i]);
    free(cells);
}

/* ---- while running ---- */

/* Running totals for the progress line; a full count only when several
 * jobs finished at once (job NULL), so each update is O(1). */
void eval_report_progress(void *ud, const up_eval_plan *p, size_t done,
                          const up_eval_job *job)
{
    struct eval_progress *c = ud;
    double el = difftime(time(NULL), c->start);
    double eta = done ? el * (double)(p->njobs - done) / (double)done : 0;

    if (!job) {
        c->passing = 0;
        c->tokens = 0;
        for (size_t i = 0; i < p->njobs; i++) {
            c->passing += p->jobs[i].done && p->jobs[i].passed;
            c->tokens += p->jobs[i].usage.input + p->jobs[i].usage.output;
        }
    } else {
        c->passing += job->passed != 0;
        c->tokens += job->usage.input + job->usage.output;
    }
    if (!c->tty) { /* a log, not a screen: one line per quarter */
        int q = (int)(4 * done / p->njobs);

        if (q <= c->quarter)
            return;
        c->quarter = q;
    }
    fprintf(stderr,
            "%s  %zu/%zu done, %zu passing, %ld tokens, %.0fs elapsed, "
            "ETA %.0fs%s",
            c->tty ? "\r" : "", done, p->njobs, c->passing, c->tokens, el, eta,
            c->tty ? "   " : "\n");
    if (c->tty && done == p->njobs)
        fputc('\n', stderr);
}

/* -v: one line per HTTP attempt that did not simply succeed (no secrets:
 * the attempt carries no headers). */
void eval_report_attempt(void *ud, const up_http_attempt *at)
{
    (void)ud;
    if (at->code == 0 && at->attempt == 1)
        return;
    fprintf(stderr, "  attempt %d/%d %s: %s%s", at->attempt, at->max_attempts,
            out_safe(at->target), at->code ? up_strerror(at->code) : "ok",
            at->error ? " (" : "");
    if (at->error)
        fprintf(stderr, "%s)", out_safe(at->error));
    if (at->status)
        fprintf(stderr, " HTTP %ld", at->status);
    if (at->delay_ms >= 0)
        fprintf(stderr, ", retry in %ld ms%s%s", at->delay_ms,
                at->why ? " by " : "", at->why ? out_safe(at->why) : "");
    fputc('\n', stderr);
}
