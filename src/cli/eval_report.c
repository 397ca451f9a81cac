/*
 * Rendering eval results: upstream's bars with our intervals, lift
 * statistics, tokens and cost; or one JSON document.  While the eval
 * runs: the progress line and, with -v, one line per HTTP attempt.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "eval_cli.h"

static json_t *opt_real(double v)
{
    return v >= 0 ? json_real(v) : json_null();
}

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
        up_eval_job_view j;
        const char *in;

        up_eval_job_view_of(up_eval_plan_job(p, i), &j);
        in = p->suite->cases[j.kase].input;
        if (strcmp(p->models[j.model], s->model))
            continue;
        printf("  %lu.%d %-8s %-40.40s %s%s%s%s%s%s\n",
               (unsigned long)j.kase + 1, j.repeat,
               j.arm == UP_ARM_SKILL ? "skill" : "base", out_safe(in),
               out_c(j.passed ? C_GREEN : C_RED), j.passed ? "OK" : "FAIL",
               out_c(C_RESET), out_c(C_DIM), j.from_cache ? " (cached)" : "",
               out_c(C_RESET));
        if (j.limit) /* agent mode: why it ended */
            printf("      %s\n", out_safe(j.limit));
    }
}

static enum color verdict_color(up_verdict v)
{
    return v == UP_VERDICT_BENEFICIAL ? C_GREEN
           : v == UP_VERDICT_HARMFUL  ? C_RED
                                      : C_YELLOW;
}

static void lift_lines(const up_eval_summary *s)
{
    const up_comparison *c = &s->cmp;
    up_buf text = UP_BUF_INIT;

    char lv[UP_STATS_FMT_LEN];

    if (c->paired && c->family > 1)
        printf("  lift %s points, %s CI %s, p = %.3g (%.3g adjusted over %zu "
               "comparisons) over %zu case%s\n",
               LIFT_FMT(c->lift.diff, c->margin),
               up_stats_ci_level(lv, sizeof(lv), c),
               CI_FMT(&c->lift, c->margin), c->lift.p, c->p_adj, c->family,
               c->paired, c->paired == 1 ? "" : "s");
    else if (c->paired)
        printf("  lift %s points, 95%% CI %s, p = %.3g over %zu case%s\n",
               LIFT_FMT(c->lift.diff, c->margin), CI_FMT(&c->lift, c->margin),
               c->lift.p, c->paired, c->paired == 1 ? "" : "s");
    up_stats_verdict_text(&text, c);
    printf("  verdict: %s%s%s\n", out_c(verdict_color(c->verdict)), text.data,
           out_c(C_RESET));
    if (s->aa && c->paired)
        printf("  %sA/A run: both arms ran without the skill, so %s%s\n",
               out_c(C_BOLD),
               c->verdict == UP_VERDICT_INCONCLUSIVE
                   ? "the lift is noise: this suite's noise floor"
                   : "this claim is false: the suite's noise made it",
               out_c(C_RESET));
    if (c->paired)
        printf("  tokens per case: %.0f -> %.0f (%+.0f%%)\n",
               c->tokens.base_mean, c->tokens.skill_mean,
               c->token_change * 100);
    up_buf_reset(&text);
    if (up_stats_power_sentence(&text, c))
        printf("  %s%s%s\n", out_c(C_DIM), text.data, out_c(C_RESET));
    up_buf_reset(&text);
    if (c->paired) {
        up_stats_skillsbench_text(&text, &c->sb);
        printf("  SkillsBench view: %s\n", text.data);
    }
    up_buf_release(&text);
}

/* "with skill: 3 of 20 conversations errored, excluded" per arm, and
 * those that failed because their request outgrew the context. */
static void error_lines(const up_eval_summary *s)
{
    static const char *const names[2] = {"baseline", "with skill"};

    for (int a = 0; a < 2; a++)
        render_arm_errors(names[a], &s->arm[a]);
}

/* Conversations whose checks could not run (a program is missing). */
static void ungradable_lines(const up_eval_summary *s)
{
    static const char *const names[2] = {"baseline", "with skill"};

    for (int a = 0; a < 2; a++)
        if (s->arm[a].ungradable)
            printf("  %s%s: %zu of %zu conversations not gradable, excluded "
                   "from the rates and the verdict: %s%s\n",
                   out_c(C_YELLOW), names[a], s->arm[a].ungradable,
                   s->arm[a].jobs, out_safe(s->arm[a].ungradable_why),
                   out_c(C_RESET));
}

/* Executable checks: "checks passed: 3 of 10 baseline, 9 of 10 with
 * skill", beside the pass rate. */
static void checks_line(const up_eval_plan *p, const up_eval_summary *s)
{
    const up_arm_totals *b = &s->arm[UP_ARM_BASELINE],
                        *w = &s->arm[UP_ARM_SKILL];

    if (!b->checks_total && !w->checks_total)
        return;
    if (p->check_mode == UP_SANDBOX_NONE) /* the opt-out is never silent */
        printf("  %swarning: the checks ran unsandboxed "
               "(--sandbox none)%s\n",
               out_c(C_YELLOW), out_c(C_RESET));
    if (s->has_baseline)
        printf("  checks passed: %ld of %ld baseline, %ld of %ld with "
               "skill\n",
               b->checks_passed, b->checks_total, w->checks_passed,
               w->checks_total);
    else
        printf("  checks passed: %ld of %ld with skill\n", w->checks_passed,
               w->checks_total);
}

/* "$0.0123 ($0.000412 per passed case)", or "$0.0123 (no passed case)". */
static void arm_cost(char *out, size_t n, const up_arm_totals *t)
{
    char c[UP_STATS_FMT_LEN], p[UP_STATS_FMT_LEN];

    up_stats_fmt_usd(c, sizeof(c), t->cost_usd);
    if (t->cost_per_pass >= 0)
        snprintf(out, n, "%s (%s per passed case)", c,
                 up_stats_fmt_usd(p, sizeof(p), t->cost_per_pass));
    else
        snprintf(out, n, "%s (no passed case)", c);
}

/*
 * What each arm cost, when prices are configured, and whether the skill
 * pays for itself: cost per passed case is where a skill that costs
 * tokens can still be worth it, and where a small lift at a large token
 * price shows for what it is.
 */
static void cost_line(const up_eval_summary *s)
{
    const up_arm_totals *w = &s->arm[UP_ARM_SKILL],
                        *b = &s->arm[UP_ARM_BASELINE];
    char with[80], base[80];
    up_buf why = UP_BUF_INIT;

    if (w->cost_usd < 0)
        return;
    arm_cost(with, sizeof(with), w);
    if (!s->has_baseline) {
        printf("  cost: %s with skill\n", with);
        return;
    }
    arm_cost(base, sizeof(base), b);
    printf("  cost: %s with skill, %s baseline\n", with, base);
    up_eval_pays_text(&why, s);
    if (why.len)
        printf("  %s\n", why.data);
    up_buf_release(&why);
}

/* Agent mode: activation (the skill arm read SKILL.md), turns, tools. */
static void agent_line(const up_eval_summary *s)
{
    const up_arm_totals *w = &s->arm[UP_ARM_SKILL];
    up_buf b = UP_BUF_INIT;

    up_eval_activation_text(&b, s);
    if (b.len)
        printf("  %s\n", b.data);
    if (w->agent_jobs && !up_model_reference(s->model)) /* no loop */
        printf("  agent: %.1f turns and %.1f tool calls per conversation "
               "with skill, %zu ended by a limit\n",
               (double)w->turns / (double)w->agent_jobs,
               (double)w->tool_calls / (double)w->agent_jobs, w->limited);
    up_buf_release(&b);
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
    char spent[64] = "", d[UP_STATS_FMT_LEN];

    if (!cached)
        return;
    if (s->arm[0].paid_usd >= 0 && s->arm[1].paid_usd >= 0)
        snprintf(spent, sizeof(spent), "; this run paid %s",
                 up_stats_fmt_usd(d, sizeof(d), paid));
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
        snprintf(tail, sizeof(tail), "  (%s)",
                 s->cmp.paired ? lift : "not measured");
    }
    arm_line("with skill", &w->rate, tail);
    checks_line(p, s);
    if (s->has_baseline)
        lift_lines(s);
    error_lines(s);
    ungradable_lines(s);
    if (p->judge_calls)
        printf("  %sjudge: %zu call(s), %ld tokens, not counted above%s\n",
               out_c(C_DIM), p->judge_calls,
               p->judge_usage.input + p->judge_usage.output, out_c(C_RESET));
    cost_line(s);
    cache_line(s);
    agent_line(s);
}

static json_t *arm_json(const up_arm_totals *t)
{
    json_t *o = json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:I, s:I, s:I, "
        "s:I, s:I}",
        "cases", (json_int_t)t->cases, "conversations", (json_int_t)t->jobs,
        "answered", (json_int_t)(t->jobs - t->errors), "passed",
        (json_int_t)t->passed, "errors", (json_int_t)t->errors, "cached",
        (json_int_t)t->cached, "pass_rate", t->rate.rate, "ci_low", t->rate.lo,
        "ci_high", t->rate.hi, "effective_n", t->rate.n_eff, "input_tokens",
        (json_int_t)t->usage.input, "output_tokens",
        (json_int_t)t->usage.output, "cached_tokens",
        (json_int_t)t->usage.cached, "reasoning_tokens",
        (json_int_t)t->usage.reasoning, "assertions_passed",
        (json_int_t)t->asserts_passed);

    json_object_set_new(o, "outgrew_context",
                        json_integer((json_int_t)t->outgrew));
    json_object_set_new(o, "own_failures",
                        json_integer((json_int_t)t->own_failed));
    json_object_set_new(o, "tokens_estimated",
                        json_boolean(t->usage.estimated));
    json_object_set_new(o, "cut_answers", json_integer((json_int_t)t->cut));
    json_object_set_new(o, "latency_ms", json_real(t->latency_ms));
    json_object_set_new(o, "cost_usd", opt_real(t->cost_usd));
    json_object_set_new(o, "paid_usd", opt_real(t->paid_usd));
    json_object_set_new(o, "cost_per_pass", opt_real(t->cost_per_pass));
    json_object_set_new(o, "checks_passed", json_integer(t->checks_passed));
    json_object_set_new(o, "checks_total", json_integer(t->checks_total));
    json_object_set_new(o, "not_gradable",
                        json_integer((json_int_t)t->ungradable));
    json_object_set_new(o, "not_gradable_reason",
                        t->ungradable_why ? json_string(t->ungradable_why)
                                          : json_null());
    if (t->agent_jobs) /* agent mode */
        json_object_set_new(
            o, "agent",
            json_pack("{s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:I}",
                      "conversations", (json_int_t)t->agent_jobs, "skill_read",
                      (json_int_t)t->skill_reads, "reference_read",
                      (json_int_t)t->ref_reads, "activation",
                      (double)t->skill_reads / (double)t->agent_jobs, "turns",
                      (json_int_t)t->turns, "tool_calls",
                      (json_int_t)t->tool_calls, "tool_errors",
                      (json_int_t)t->tool_errors, "limited",
                      (json_int_t)t->limited));
    return o;
}

void eval_report_verdict_json(json_t *o, const up_comparison *c)
{
    const char *id = up_stats_verdict_id(c->verdict);
    up_buf text = UP_BUF_INIT;

    up_stats_verdict_text(&text, c);
    json_object_set_new(o, "verdict", id ? json_string(id) : json_null());
    json_object_set_new(o, "verdict_text", json_string(text.data));
    json_object_set_new(o, "paired_cases", json_integer((json_int_t)c->paired));
    json_object_set_new(o, "lift",
                        c->paired ? json_real(c->lift.diff) : json_null());
    json_object_set_new(o, "lift_ci",
                        c->paired
                            ? json_pack("[f, f]", c->lift.ci_lo, c->lift.ci_hi)
                            : json_null());
    json_object_set_new(o, "p_value",
                        c->paired ? json_real(c->lift.p) : json_null());
    json_object_set_new(
        o, "mde", c->paired && c->mde >= 0 ? json_real(c->mde) : json_null());
    json_object_set_new(o, "margin", json_real(c->margin));
    json_object_set_new(
        o, "lift_detail",
        json_pack("{s:I, s:I, s:s}", "better", (json_int_t)c->lift.better,
                  "worse", (json_int_t)c->lift.worse, "method",
                  !c->paired                      ? "none"
                  : c->lift.pmethod == UP_P_SCORE ? "tango_score"
                                                  : "t"));
    json_object_set_new(o, "skillsbench", up_store_sb_json(&c->sb));
    if (c->family > 1) {
        json_object_set_new(o, "p_adjusted",
                            c->paired ? json_real(c->p_adj) : json_null());
        json_object_set_new(o, "family", eval_report_family_json(c));
    }
    up_buf_release(&text);
}

json_t *eval_report_family_json(const up_comparison *c)
{
    up_buf text = UP_BUF_INIT;
    json_t *o;

    up_stats_family_text(&text, c);
    o = json_pack("{s:I, s:I, s:s, s:f, s:f, s:s}", "comparisons",
                  (json_int_t)c->family, "claimed", (json_int_t)c->claimed,
                  "control", up_stats_family_id((up_family_control)c->control),
                  "rate", c->rate, "level", c->alpha, "text",
                  text.data ? text.data : "");
    up_buf_release(&text);
    return o;
}

const up_comparison *eval_report_family_of(const up_eval_summary *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i].has_baseline && s[i].cmp.family > 1)
            return &s[i].cmp;
    return NULL;
}

void eval_report_family_line(const up_comparison *c)
{
    up_buf text = UP_BUF_INIT;

    if (c && up_stats_family_text(&text, c))
        printf("\n%s\n", text.data);
    up_buf_release(&text);
}

void eval_report_family(up_eval_summary *s, size_t n, int control)
{
    up_comparison **c = up_xcalloc(n ? n : 1, sizeof(*c));
    size_t k = 0;

    for (size_t i = 0; i < n; i++)
        if (s[i].has_baseline)
            c[k++] = &s[i].cmp;
    up_stats_family(c, k, (up_family_control)control, UP_STATS_ALPHA);
    free(c);
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
    eval_report_verdict_json(o, c);
    json_object_set_new(o, "token_change", json_real(c->token_change));
    json_object_set_new(o, "token_savings", json_real(c->token_savings));
    json_object_set_new(o, "is_beneficial", json_boolean(c->is_beneficial));
    json_object_set_new(o, "pays_for_itself",
                        up_eval_pays(s) < 0 ? json_null()
                                            : json_boolean(up_eval_pays(s)));
    return o;
}

/* Model m's conversations whose answer stopped at the output cap. */
json_t *eval_report_cut_json(const up_eval_plan *p, size_t m)
{
    static const char *const arms[] = {"baseline", "with_skill"};
    json_t *v = json_array();

    for (size_t i = 0; i < p->njobs; i++) {
        up_eval_job_view j;

        up_eval_job_view_of(up_eval_plan_job(p, i), &j);
        if (j.model == m && j.done && j.cut_at)
            json_array_append_new(v, json_pack("{s:I, s:s, s:i, s:i}", "case",
                                               (json_int_t)j.kase + 1, "arm",
                                               arms[j.arm], "repeat", j.repeat,
                                               "cut_at", j.cut_at));
    }
    return v;
}

json_t *eval_report_json(const up_eval_plan *p, const up_eval_summary *s,
                         const char *batch_id, json_t *tasks)
{
    json_t *models = json_array();
    json_t *doc;

    for (size_t m = 0; m < p->nmodels; m++) {
        json_t *o = eval_report_model_json(&s[m]);

        json_object_set_new(o, "cut_conversations", eval_report_cut_json(p, m));
        json_array_append_new(models, o);
    }
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
    if (p->aa) /* docs/statistics.md, "A/A runs" */
        json_object_set_new(doc, "aa", json_true());
    if (eval_report_family_of(s, p->nmodels))
        json_object_set_new(
            doc, "family",
            eval_report_family_json(eval_report_family_of(s, p->nmodels)));
    if (tasks)
        json_object_set_new(doc, "tasks", tasks);
    return doc;
}

/* One row of the summary table, as heap strings in cells[0..8). */
static void summary_row(char **cells, const up_eval_summary *s)
{
    const up_comparison *c = &s->cmp;
    up_buf b = UP_BUF_INIT;
    char pct[16], d[UP_STATS_FMT_LEN];

    cells[0] = up_xstrdup(s->model);
    render_pct(pct, sizeof(pct), s->arm[UP_ARM_BASELINE].rate.rate);
    cells[1] = up_xstrdup(s->has_baseline ? pct : "-");
    render_pct(pct, sizeof(pct), s->arm[UP_ARM_SKILL].rate.rate);
    cells[2] = up_xstrdup(pct);
    render_lift(pct, sizeof(pct), c->lift.diff);
    cells[3] = up_xstrdup(s->has_baseline && c->paired ? pct : "-");
    up_buf_addf(&b, "%.3g", c->lift.p);
    cells[4] =
        s->has_baseline && c->paired ? up_buf_detach(&b) : up_xstrdup("-");
    cells[5] =
        up_xstrdup(s->has_baseline ? up_stats_verdict_label(c->verdict) : "-");
    up_buf_reset(&b);
    if (s->has_baseline && c->paired)
        up_buf_addf(&b, "%.0f (%+.0f%%)", c->tokens.skill_mean,
                    c->token_change * 100);
    else
        up_buf_adds(&b, "-");
    cells[6] = up_buf_detach(&b);
    up_buf_reset(&b);
    if (s->arm[UP_ARM_SKILL].cost_per_pass >= 0)
        up_buf_adds(&b, up_stats_fmt_usd(d, sizeof(d),
                                         s->arm[UP_ARM_SKILL].cost_per_pass));
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
    double el = (double)(up_http_now_ms() - c->start) / 1000;
    char eta[32] = "-", before[64] = "";

    if (!job && !c->started) /* restored by --resume, answered from cache */
        c->before = done;
    c->started = 1;
    if (done > c->before) /* the rate of this run's own jobs only */
        snprintf(eta, sizeof(eta), "%.0fs",
                 el * (double)(p->njobs - done) / (double)(done - c->before));
    if (c->before)
        snprintf(before, sizeof(before), ", %zu answered before this run",
                 c->before);
    if (!job) {
        c->passing = 0;
        c->tokens = 0;
        for (size_t i = 0; i < p->njobs; i++) {
            up_eval_job_view v;

            up_eval_job_view_of(up_eval_plan_job(p, i), &v);
            c->passing += v.done && v.passed;
            c->tokens += v.input_tokens + v.output_tokens;
        }
    } else {
        up_eval_job_view v;

        up_eval_job_view_of(job, &v);
        c->passing += v.passed;
        c->tokens += v.input_tokens + v.output_tokens;
    }
    if (!c->tty) { /* a log, not a screen: one line per quarter */
        int q = (int)(4 * done / p->njobs);

        if (q <= c->quarter)
            return;
        c->quarter = q;
    }
    fprintf(stderr,
            "%s  %zu/%zu done, %zu passing, %ld tokens, %.0fs elapsed, "
            "ETA %s%s%s",
            c->tty ? "\r" : "", done, p->njobs, c->passing, c->tokens, el, eta,
            before, c->tty ? "   " : "\n");
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

/* ---- --plan ---- */

int eval_report_plan(const up_suite *suite, const struct eval_args *a)
{
    up_stats_plan pl = {suite->ncases, (unsigned)a->runs, a->plan_p0,
                        a->plan_lift / 100, (uint64_t)a->seed};
    up_buf text = UP_BUF_INIT;

    if (a->json) {
        double mde = up_stats_mde(pl.cases, pl.runs, pl.p0, pl.seed);
        json_t *doc = json_pack(
            "{s:I, s:I, s:f, s:o, s:f, s:f, s:I, s:I}", "cases",
            (json_int_t)pl.cases, "runs", (json_int_t)pl.runs, "baseline_rate",
            pl.p0, "mde", mde >= 0 ? json_real(mde) : json_null(),
            "target_lift", pl.target, "power_at_target",
            up_stats_power(pl.cases, pl.runs, pl.p0, pl.target, pl.seed),
            "cases_needed",
            (json_int_t)up_stats_cases_for(pl.target, pl.runs, pl.p0, pl.seed),
            "runs_needed",
            (json_int_t)up_stats_runs_for(pl.target, pl.cases, pl.p0, pl.seed));

        out_json(doc);
        json_decref(doc);
        return EXIT_OK;
    }
    up_stats_plan_text(&text, &pl);
    printf("%s", text.data);
    printf("%s(assumes cases alike and runs independent; when a case is "
           "always solved or always failed, repeats help less)%s\n",
           out_c(C_DIM), out_c(C_RESET));
    up_buf_release(&text);
    return EXIT_OK;
}
