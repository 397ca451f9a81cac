/*
 * upskill runs, rendering: bars per model (or per skill) when one skill
 * or one model is shown, a skills x models matrix otherwise, or JSON.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

/* An arm that answered nothing is shown as errored, never as 0%. */
static void arm_line(const char *label, double rate, int errored,
                     const char *tail)
{
    if (errored)
        printf("  %-10s %serrored: nothing was answered%s\n", label,
               out_c(C_RED), out_c(C_RESET));
    else
        render_arm(stdout, label, rate, tail);
}

/* SkillsBench's view of the batch, when its runs hold one. */
static void sb_line(const up_compare *c)
{
    up_buf t = UP_BUF_INIT;

    if (!c->sb)
        return;
    up_stats_skillsbench_text(&t, c->sb);
    printf("  %sSkillsBench view: %s%s\n", out_c(C_DIM), out_safe(t.data),
           out_c(C_RESET));
    up_buf_release(&t);
}

static void block(const up_compare *c, const char *label, int tokens)
{
    char tail[64], lift[16], from[160] = "";
    double m =
        c->with_tokens > c->base_tokens ? c->with_tokens : c->base_tokens;
    int ab = c->arm_a || c->arm_b;
    const char *base_label = ab ? "skill A" : "baseline";
    const char *with_label = ab ? "skill B" : "with skill";

    printf("%s%s%s\n", out_c(C_BOLD), out_safe(label), out_c(C_RESET));
    if (c->error)
        printf("  %s%s%s\n", out_c(C_DIM), out_safe(c->error), out_c(C_RESET));
    if (c->with_errored || (c->has_baseline && c->base_errored))
        tokens = 0;    /* no token bars from errors: the rates say errored */
    if (c->base_batch) /* upstream shows no baseline here: say whose */
        snprintf(from, sizeof(from), "  %s(batch %s)%s", out_c(C_DIM),
                 out_safe(c->base_batch), out_c(C_RESET));
    if (ab) /* a compare batch: its arms are two skills, not +/- one */
        printf("  %scompare: A = %s, B = %s%s\n", out_c(C_DIM),
               out_safe(c->arm_a ? c->arm_a : "?"),
               out_safe(c->arm_b ? c->arm_b : "?"), out_c(C_RESET));
    if (!tokens) {
        if (c->has_baseline)
            arm_line(base_label, c->base_rate, c->base_errored, from);
        render_lift(lift, sizeof(lift), c->with_rate - c->base_rate);
        snprintf(tail, sizeof(tail), "  %s(%s)%s",
                 out_c(c->with_rate >= c->base_rate ? C_GREEN : C_RED),
                 c->has_baseline ? lift : "no baseline", out_c(C_RESET));
        arm_line(with_label, c->with_rate, c->with_errored, tail);
        sb_line(c);
        return;
    }
    m = m < 1 ? 1 : m;
    if (c->has_baseline) {
        printf("  %-10s ", base_label);
        render_bar(stdout, c->base_tokens / m);
        printf("  %6.0f%s\n", c->base_tokens, from);
    }
    printf("  %-10s ", with_label);
    render_bar(stdout, c->with_tokens / m);
    if (c->has_baseline && c->base_tokens > 0)
        printf("  %6.0f  (%+.0f%%)\n", c->with_tokens,
               (c->with_tokens - c->base_tokens) / c->base_tokens * 100);
    else
        printf("  %6.0f  (no baseline)\n", c->with_tokens);
}

static int distinct(const up_compare *v, size_t n, int by_model)
{
    int k = n ? 1 : 0;

    for (size_t i = 1; i < n; i++)
        k += by_model ? strcmp(v[i].model, v[0].model) != 0
                      : strcmp(v[i].skill, v[0].skill) != 0;
    return k > 1 ? 2 : k;
}

/* Distinct values of one field of v (models or skills), in order seen. */
static size_t distinct_list(const char **out, const up_compare *v, size_t n,
                            int by_model)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        const char *x = by_model ? v[i].model : v[i].skill;
        size_t j = 0;

        while (j < k && strcmp(out[j], x))
            j++;
        if (j == k)
            out[k++] = x;
    }
    return k;
}

/* "60%→80%" (green when up, red when down), "-→80%", or "1200→800". */
static char *cell(const up_compare *c, int tokens)
{
    up_buf b = UP_BUF_INIT;
    char x[16], y[16];
    double from = tokens ? c->base_tokens : c->base_rate;
    double to = tokens ? c->with_tokens : c->with_rate;
    int better = tokens ? to < from : to > from;

    if (c->with_errored || c->base_errored) {
        up_buf_addf(&b, "%serrored%s", out_c(C_RED), out_c(C_RESET));
        return up_buf_detach(&b);
    }
    if (tokens) {
        snprintf(x, sizeof(x), "%.0f", from);
        snprintf(y, sizeof(y), "%.0f", to);
    } else {
        render_pct(x, sizeof(x), from);
        render_pct(y, sizeof(y), to);
    }
    if (!c->has_baseline)
        up_buf_addf(&b, "%s-%s\u2192%s", out_c(C_DIM), out_c(C_RESET), y);
    else
        up_buf_addf(&b, "%s%s%s%s\u2192%s%s%s",
                    out_c(from == to ? C_RESET
                          : better   ? C_GREEN
                                     : C_RED),
                    c->arm_a || c->arm_b ? "A " : "", x,
                    c->base_batch ? "*" : "", c->arm_a || c->arm_b ? "B " : "",
                    y, out_c(C_RESET));
    return up_buf_detach(&b);
}

/* The matrix's "*": a baseline from an earlier batch, named. */
static void borrowed_note(const up_compare *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].base_batch && v[i].has_baseline)
            printf("%s* %s, %s: the latest batch has no baseline; this one "
                   "is batch %s's%s\n",
                   out_c(C_DIM), out_safe(v[i].skill), out_safe(v[i].model),
                   out_safe(v[i].base_batch), out_c(C_RESET));
}

static void matrix(const up_compare *v, size_t n, int tokens)
{
    const char **ms = up_xcalloc(n + 1, sizeof(*ms));
    const char **ss = up_xcalloc(n, sizeof(*ss));
    size_t nm = distinct_list(ms + 1, v, n, 1), ns = distinct_list(ss, v, n, 0);
    char **cells = up_xcalloc(ns * (nm + 1), sizeof(*cells));
    char **head = up_xcalloc(nm + 1, sizeof(*head));

    qsort(ms + 1, nm, sizeof(*ms), up_strptr_cmp);
    head[0] = up_xstrdup("skill");
    for (size_t c = 1; c <= nm; c++) /* names come from run files */
        head[c] = up_xstrdup(out_safe(ms[c]));
    for (size_t r = 0; r < ns; r++) {
        cells[r * (nm + 1)] = up_xstrdup(out_safe(ss[r]));
        for (size_t c = 0; c < nm; c++) {
            char *x = NULL;

            for (size_t i = 0; i < n && !x; i++)
                if (!strcmp(v[i].skill, ss[r]) &&
                    !strcmp(v[i].model, ms[c + 1]))
                    x = cell(&v[i], tokens);
            cells[r * (nm + 1) + c + 1] = x ? x : up_xstrdup("-");
        }
    }
    printf("%sSkill Performance Matrix%s\n", out_c(C_BOLD), out_c(C_RESET));
    render_table(stdout, (const char *const *)head, (const char *const *)cells,
                 nm + 1, ns);
    borrowed_note(v, n);
    for (size_t i = 0; i < ns * (nm + 1); i++)
        free(cells[i]);
    for (size_t i = 0; i <= nm; i++)
        free(head[i]);
    free(head);
    free(cells);
    free(ms);
    free(ss);
}

static void print_json(const up_compare *v, size_t n, char *const *skipped)
{
    json_t *a = json_array(), *s = json_array(), *doc;

    for (size_t i = 0; i < n; i++)
        json_array_append_new(
            a,
            json_pack(
                "{s:s, s:s, s:s?, s:s?, s:o, s:o, s:f, s:o, s:I, s:s?, s:o, "
                "s:o}",
                "skill", v[i].skill, "model", v[i].model, "batch_id",
                v[i].batch_id, "baseline_batch_id", v[i].base_batch,
                "with_skill_rate",
                v[i].with_errored ? json_null() : json_real(v[i].with_rate),
                "baseline_rate",
                v[i].has_baseline && !v[i].base_errored
                    ? json_real(v[i].base_rate)
                    : json_null(),
                "with_skill_tokens", v[i].with_tokens, "baseline_tokens",
                v[i].has_baseline ? json_real(v[i].base_tokens) : json_null(),
                "runs", (json_int_t)v[i].nruns, "error", v[i].error,
                "skillsbench",
                v[i].sb ? up_store_sb_json(v[i].sb) : json_null(), "compare",
                v[i].arm_a || v[i].arm_b
                    ? json_pack("{s:s, s:s}", "a", v[i].arm_a ? v[i].arm_a : "",
                                "b", v[i].arm_b ? v[i].arm_b : "")
                    : json_null()));
    for (; skipped && *skipped; skipped++)
        json_array_append_new(s, json_string(*skipped));
    doc = json_pack("{s:o, s:I, s:o}", "results", a, "skipped_files",
                    (json_int_t)json_array_size(s), "skipped", s);
    out_json(doc);
    json_decref(doc);
}

void runs_print(const up_compare *v, size_t nv, size_t nruns, int tokens,
                int json, char *const *skipped)
{
    if (json)
        print_json(v, nv, skipped);
    else if (!nv)
        printf("%s\n", nruns ? "No results match the specified filters."
                             : "No eval results found. Run 'upskill eval "
                               "<skill>' first.");
    else if (distinct(v, nv, 0) == 1 || distinct(v, nv, 1) == 1) {
        int one_skill = distinct(v, nv, 0) == 1;

        printf("%sEvaluation History: %s%s\n", out_c(C_BLUE),
               out_safe(one_skill ? v[0].skill : v[0].model), out_c(C_RESET));
        for (size_t i = 0; i < nv; i++)
            block(&v[i], one_skill ? v[i].model : v[i].skill, tokens);
    } else {
        matrix(v, nv, tokens);
    }
    if (!json)
        printf("\n%s--csv results.csv to export%s\n", out_c(C_DIM),
               out_c(C_RESET));
}
