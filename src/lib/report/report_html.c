/*
 * upskill report, the page: one self-contained HTML file (inline CSS and
 * SVG, one small script to filter the case matrix; nothing fetched),
 * per batch its rates, lift and verdict, cost, agent use, the case x
 * model matrix linked to the embedded transcripts, and its provenance.
 * Light and dark by prefers-color-scheme; printable.
 */
#include <string.h>

#include "report_int.h"
#include "upskill/store.h"
#include "upskill/version.h"

static const char css[] =
    ":root{--fg:#1b1f24;--bg:#fff;--mut:#5b636e;--line:#d0d7de;"
    "--base:#8c959f;--skill:#0969da;--pass:#1a7f37;--fail:#cf222e}"
    "@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;"
    "--mut:#9da7b3;--line:#30363d;--base:#6e7681;--skill:#4493f8;"
    "--pass:#3fb950;--fail:#f85149}}"
    "body{font:15px/1.45 system-ui,sans-serif;color:var(--fg);"
    "background:var(--bg);margin:2em auto;max-width:1100px;padding:0 1em}"
    "table{border-collapse:collapse;margin:.5em 0 1.2em}"
    "th,td{border:1px solid var(--line);padding:3px 8px;text-align:right}"
    "th:first-child,td:first-child{text-align:left}"
    ".chart{max-width:100%;height:auto}.chart text{fill:var(--fg);"
    "font-size:12px}.chart .tick{fill:var(--mut)}.grid,.axis{stroke:"
    "var(--line)}.ci{stroke:var(--fg);stroke-width:2}rect.base,circle.base"
    "{fill:var(--base)}rect.skill,circle.skill{fill:var(--skill)}"
    ".pt{fill:var(--skill)}.front{fill:none;stroke:var(--pass);"
    "stroke-width:2;stroke-dasharray:5 3}.pass{color:var(--pass)}"
    ".fail{color:var(--fail)}td.pass a,td.fail a{color:inherit}"
    "pre{white-space:pre-wrap;margin:.2em 0 .6em;padding:.4em;"
    "border-left:3px solid var(--line)}details{margin:.2em 0}"
    ".verdict{font-weight:600}.mut{color:var(--mut)}"
    "@media print{details{display:none}body{max-width:none}"
    "a{color:inherit;text-decoration:none}}";

static const char script[] =
    "document.querySelectorAll('input.filter').forEach(function(i){"
    "i.addEventListener('input',function(){var t=document.getElementById("
    "i.dataset.table),q=i.value.toLowerCase();t.querySelectorAll('tbody tr')"
    ".forEach(function(r){r.hidden=q&&r.textContent.toLowerCase()"
    ".indexOf(q)<0;});});});";

void up_report_esc(up_buf *out, const char *s)
{
    static const char *const rep[256] = {['&'] = "&amp;",
                                         ['<'] = "&lt;",
                                         ['>'] = "&gt;",
                                         ['"'] = "&quot;",
                                         ['\''] = "&#39;"};

    for (; s && *s; s++) {
        const char *r = rep[(unsigned char)*s];

        if (r)
            up_buf_adds(out, r);
        else
            up_buf_addc(out, *s);
    }
}

size_t up_report_passes(const up_report_model *m, size_t ncases, int skill)
{
    size_t k = 0;

    for (size_t i = 0; i < ncases; i++)
        k += skill ? m->cells[i].c.skill_pass : m->cells[i].c.base_pass;
    return k;
}

size_t up_report_trials(const up_report_model *m, size_t ncases, int skill)
{
    size_t k = 0;

    for (size_t i = 0; i < ncases; i++)
        k += skill ? m->cells[i].c.skill_runs : m->cells[i].c.base_runs;
    return k;
}

static void rate_cell(up_buf *out, const up_rate *r)
{
    up_buf_addf(out,
                "<td data-rate=\"%.4f\">%.0f%% <span class=\"mut\">[%.0f–"
                "%.0f%%]</span> (%zu/%zu)</td>",
                r->rate, r->rate * 100, r->lo * 100, r->hi * 100, r->successes,
                r->trials);
}

static void td_name(up_buf *out, const char *s)
{
    up_buf_adds(out, "<tr><td>");
    up_report_esc(out, s);
    up_buf_adds(out, "</td>");
}

static void lift_table(up_buf *out, const up_report_batch *b, size_t bi)
{
    up_buf_addf(out,
                "<table class=\"lift\" id=\"lift-%zu\"><caption>Pass "
                "rates and lift (95%% intervals)</caption><thead><tr>"
                "<th>model</th><th>baseline</th><th>with skill</th>"
                "<th>lift</th><th>p</th><th>verdict</th></tr></thead>"
                "<tbody>",
                bi);
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_comparison *c = &b->models[i].cmp;
        up_buf v = UP_BUF_INIT;
        char fd[UP_STATS_FMT_LEN], fl[UP_STATS_FMT_LEN], fh[UP_STATS_FMT_LEN];

        td_name(out, b->models[i].model);
        rate_cell(out, &c->base);
        rate_cell(out, &c->skill);
        up_buf_addf(
            out,
            "<td class=\"liftv\">%s points <span class=\"mut\">"
            "[%s, %s]</span></td><td>%.3g</td><td "
            "class=\"verdict\">",
            up_stats_fmt_bound(fd, sizeof(fd), c->lift.diff, c->margin),
            up_stats_fmt_bound(fl, sizeof(fl), c->lift.ci_lo, c->margin),
            up_stats_fmt_bound(fh, sizeof(fh), c->lift.ci_hi, c->margin),
            c->lift.p);
        up_stats_verdict_text(&v, c);
        up_report_esc(out, v.data);
        up_buf_adds(out, "</td></tr>");
        up_buf_release(&v);
    }
    up_buf_adds(out, "</tbody></table>");
}

/* SkillsBench's across-task view (docs/statistics.md): a case is a task. */
static void sb_table(up_buf *out, const up_report_batch *b)
{
    up_buf_adds(out, "<table class=\"sbview\"><caption>SkillsBench view: "
                     "mean of the per-task pass rates, normalized gain g, "
                     "95% interval 1.96 sd / &radic;N</caption><thead><tr>"
                     "<th>model</th><th>tasks</th><th>with skill</th><th>"
                     "without</th><th>difference</th><th>g</th></tr></thead>"
                     "<tbody>");
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_sbview *v = &b->models[i].cmp.sb;

        td_name(out, b->models[i].model);
        up_buf_addf(out, "<td>%zu</td>", v->n);
        if (!v->n) {
            up_buf_adds(out, "<td colspan=\"4\">no task answered in both "
                             "arms</td></tr>");
            continue;
        }
        if (v->has_ci)
            up_buf_addf(out,
                        "<td>%.1f%% &plusmn;%.1f</td><td>%.1f%% &plusmn;%.1f"
                        "</td><td>%+.1f points &plusmn;%.1f</td>",
                        v->with * 100, v->ci_with * 100, v->without * 100,
                        v->ci_without * 100, v->diff * 100, v->ci_diff * 100);
        else
            up_buf_addf(out,
                        "<td>%.1f%%</td><td>%.1f%%</td><td>%+.1f points "
                        "<span class=\"mut\">(one task: no interval)</span>"
                        "</td>",
                        v->with * 100, v->without * 100, v->diff * 100);
        if (v->has_g)
            up_buf_addf(out, "<td>%.2f</td></tr>", v->g);
        else
            up_buf_adds(out, "<td>undefined (the baseline passes every "
                             "task)</td></tr>");
    }
    up_buf_adds(out, "</tbody></table>");
}

static void per_pass(up_buf *out, double total, size_t passes, int usd)
{
    if (total < 0)
        up_buf_adds(out, "<td>no price</td>");
    else if (!passes)
        up_buf_adds(out, "<td>no pass</td>");
    else if (usd)
        up_buf_addf(out, "<td>$%.4g</td>", total / (double)passes);
    else
        up_buf_addf(out, "<td>%.0f</td>", total / (double)passes);
}

static void cost_table(up_buf *out, const up_report_batch *b)
{
    up_buf_adds(out, "<table><caption>Tokens and cost per passed case"
                     "</caption><thead><tr><th>model</th><th>tokens/pass "
                     "baseline</th><th>tokens/pass skill</th><th>cost/pass "
                     "baseline</th><th>cost/pass skill</th><th>cost "
                     "total</th></tr></thead><tbody>");
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_report_model *m = &b->models[i];
        size_t p0 = up_report_passes(m, b->ncases, 0);
        size_t p1 = up_report_passes(m, b->ncases, 1);

        td_name(out, m->model);
        per_pass(out, m->tokens[0], p0, 0);
        per_pass(out, m->tokens[1], p1, 0);
        per_pass(out, m->cost[0], p0, 1);
        per_pass(out, m->cost[1], p1, 1);
        if (m->cost[0] < 0 || m->cost[1] < 0)
            up_buf_adds(out, "<td>no price configured</td></tr>");
        else
            up_buf_addf(out, "<td>$%.4g</td></tr>", m->cost[0] + m->cost[1]);
    }
    up_buf_adds(out, "</tbody></table>");
}

static void agent_table(up_buf *out, const up_report_batch *b)
{
    long any = 0;

    for (size_t i = 0; i < b->nmodels; i++)
        any += b->models[i].agent_convs[0] + b->models[i].agent_convs[1];
    if (!any) {
        up_buf_adds(out, "<p class=\"mut\">Chat mode: no activation or tool "
                         "use to show.</p>");
        return;
    }
    up_buf_adds(out, "<table><caption>Agent mode: activation and tool use"
                     "</caption><thead><tr><th>model</th><th>skill read "
                     "(activation)</th><th>tool calls baseline</th><th>tool "
                     "calls skill</th></tr></thead><tbody>");
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_report_model *m = &b->models[i];

        td_name(out, m->model);
        up_buf_addf(out, "<td>%ld of %ld</td><td>%ld</td><td>%ld</td></tr>",
                    m->skill_reads[1], m->agent_convs[1], m->tool_calls[0],
                    m->tool_calls[1]);
    }
    up_buf_adds(out, "</tbody></table>");
}

static void matrix_cell(up_buf *out, unsigned pass, unsigned runs, int run,
                        size_t bi, size_t ci)
{
    const char *cls = !runs ? "mut" : pass == runs ? "pass" : "fail";

    up_buf_addf(out, "<td class=\"%s\">", cls);
    if (run)
        up_buf_addf(out, "<a href=\"#t-%zu-%d-%zu\">", bi, run, ci + 1);
    if (runs)
        up_buf_addf(out, "%s %u/%u", pass == runs ? "✓" : "✗", pass, runs);
    else
        up_buf_adds(out, "–");
    up_buf_adds(out, run ? "</a></td>" : "</td>");
}

static void matrix(up_buf *out, const up_report_batch *b, size_t bi)
{
    up_buf_addf(out,
                "<p><label>Filter cases: <input class=\"filter\" "
                "data-table=\"matrix-%zu\" type=\"search\"></label></p>"
                "<table id=\"matrix-%zu\"><caption>Case × model: passes "
                "per arm (links open the transcript)</caption><thead>"
                "<tr><th>case</th>",
                bi, bi);
    for (size_t i = 0; i < b->nmodels; i++)
        for (int s = 0; s < 2; s++) {
            up_buf_adds(out, "<th>");
            up_report_esc(out, b->models[i].model);
            up_buf_adds(out, s ? " skill</th>" : " baseline</th>");
        }
    up_buf_adds(out, "</tr></thead><tbody>");
    for (size_t ci = 0; ci < b->ncases; ci++) {
        up_buf_addf(out, "<tr><td>case %zu</td>", ci + 1);
        for (size_t i = 0; i < b->nmodels; i++) {
            const up_report_cell *c = &b->models[i].cells[ci];

            matrix_cell(out, c->c.base_pass, c->c.base_runs, c->first_run[0],
                        bi, ci);
            matrix_cell(out, c->c.skill_pass, c->c.skill_runs, c->first_run[1],
                        bi, ci);
        }
        up_buf_adds(out, "</tr>");
    }
    up_buf_adds(out, "</tbody></table>");
}

static void kv(up_buf *out, const char *k, const char *v)
{
    up_buf_addf(out, "<tr><td>%s</td><td>", k);
    up_report_esc(out, v ? v : "not recorded");
    up_buf_adds(out, "</td></tr>");
}

/* The configured price of model (USD per million tokens), or that none is. */
static void price(up_buf *out, const up_report_batch *b, const char *model)
{
    const char *dot = strchr(model, '.');
    const up_price *p =
        b->cfg ? up_config_price(b->cfg, model, dot ? dot + 1 : model) : NULL;
    up_buf v = UP_BUF_INIT;

    up_report_esc(&v, model);
    up_buf_adds(&v, ": ");
    if (p)
        up_buf_addf(&v, "$%g input, $%g output, $%g cached per million tokens",
                    p->input, p->output, p->cached);
    else
        up_buf_adds(&v, "no price configured");
    up_buf_addf(out,
                "<tr><td>price (config now; the costs are each run's "
                "cost_usd)</td><td>%s</td></tr>",
                v.data);
    up_buf_release(&v);
}

static void provenance(up_buf *out, const up_report_batch *b)
{
    up_buf seed = UP_BUF_INIT;

    up_buf_adds(out, "<table class=\"prov\"><caption>Provenance</caption>"
                     "<tbody>");
    kv(out, "batch", b->id);
    kv(out, "folder", b->dir);
    for (size_t i = 0; i < b->nmodels; i++)
        kv(out, "resolved model", b->models[i].model);
    kv(out, "suite sha256 (batch_plan.json)", b->suite_sha);
    kv(out, "skill sha256 (batch_plan.json)", b->skill_sha);
    kv(out, "written by upskill", b->version);
    if (b->kept_attempt) {
        up_buf_addf(&seed, "attempt %d (its runs alone are shown)",
                    b->kept_attempt);
        kv(out, "generate batch: kept", seed.data);
        up_buf_reset(&seed);
    }
    up_buf_addf(&seed, "%llu (statistics recomputed by upskill %s)",
                (unsigned long long)b->seed, UPSKILL_VERSION);
    kv(out, "statistics seed", seed.data);
    for (size_t i = 0; i < b->nmodels; i++)
        price(out, b, b->models[i].model);
    up_buf_adds(out, "</tbody></table>");
    up_buf_release(&seed);
}

static void td_text(up_buf *out, const char *s)
{
    up_buf_adds(out, "<td>");
    up_report_esc(out, s ? s : "");
    up_buf_adds(out, "</td>");
}

/* A rate as upstream prints it (Python's .0%), with its exact value. */
static void pct_cell(up_buf *out, double rate, int has)
{
    if (!has) {
        up_buf_adds(out, "<td>-</td>");
        return;
    }
    up_buf_addf(out, "<td data-rate=\"%.4f\">%.0f%%</td>", rate, rate * 100);
}

/* Upstream's figures of a batch without artifacts: its `runs` view, then
 * each run as its files give it. */
static void upstream_batch(up_buf *out, const up_report_batch *b)
{
    up_buf_adds(out, "<p class=\"mut\">No case artifacts (a batch of "
                     "upstream upskill, or one cut short): the figures "
                     "upstream's <code>runs</code> shows, from the run "
                     "files.</p><table class=\"upstream\"><caption>Pass "
                     "rates (assertions passed / total; the best with-skill "
                     "run and its baseline)</caption><thead><tr><th>model"
                     "</th><th>skill</th><th>baseline</th><th>with skill"
                     "</th></tr></thead><tbody>");
    for (size_t i = 0; i < b->nupstream; i++) {
        const up_compare *c = &b->upstream[i];

        td_name(out, c->model);
        td_text(out, c->skill);
        pct_cell(out, c->base_rate, c->has_baseline);
        pct_cell(out, c->with_rate, 1);
        up_buf_adds(out, "</tr>");
    }
    up_buf_adds(out, "</tbody></table><table class=\"runs\"><caption>Runs"
                     "</caption><thead><tr><th>run_number</th><th>model</th>"
                     "<th>run_type</th><th>assertions</th><th>rate</th>"
                     "<th>passed</th><th>tokens</th></tr></thead><tbody>");
    for (size_t i = 0; i < b->nruns; i++) {
        const up_run_record *r = &b->runs[i];

        up_buf_addf(out, "<tr><td>%d</td>", r->run_number);
        td_text(out, r->model);
        td_text(out, r->run_type);
        up_buf_addf(out, "<td>%ld/%ld</td>", r->assertions_passed,
                    r->assertions_total);
        pct_cell(out, up_run_rate(r), 1);
        up_buf_addf(out, "<td>%s</td><td>%ld</td></tr>",
                    r->passed ? "True" : "False", r->total_tokens);
    }
    up_buf_adds(out, "</tbody></table>");
}

static int batch(up_buf *out, const up_report_batch *b, size_t bi,
                 up_error *err)
{
    int rc;

    if (b->runs) {
        up_buf_addf(out, "<section id=\"batch-%zu\"><h2>", bi);
        up_report_esc(out, b->skill ? b->skill : "(no skill name)");
        up_buf_adds(out, " <span class=\"mut\">batch ");
        up_report_esc(out, b->id);
        up_buf_adds(out, ", upstream's run files</span></h2>");
        upstream_batch(out, b);
        up_buf_adds(out, "</section>");
        return 0;
    }

    up_buf_addf(out, "<section id=\"batch-%zu\"><h2>", bi);
    up_report_esc(out, b->skill ? b->skill : "(no skill name)");
    up_buf_adds(out, " <span class=\"mut\">batch ");
    up_report_esc(out, b->id);
    up_buf_addf(out, ", %zu cases</span></h2><h3>Pass rates</h3>", b->ncases);
    up_report_svg_rates(out, b, bi);
    up_buf_adds(out, "<h3>Lift and verdict</h3>");
    up_report_svg_forest(out, b, bi);
    lift_table(out, b, bi);
    sb_table(out, b);
    up_buf_adds(out, "<h3>Cost</h3>");
    up_report_svg_pareto(out, b, bi);
    cost_table(out, b);
    up_buf_adds(out, "<h3>Agent mode</h3>");
    agent_table(out, b);
    up_buf_adds(out, "<h3>Cases</h3>");
    matrix(out, b, bi);
    provenance(out, b);
    up_buf_adds(out, "<h3>Transcripts</h3>");
    rc = up_report_transcripts(out, b, bi, err);
    up_buf_adds(out, "</section>");
    return rc;
}

int up_report_html(up_buf *out, const up_report_batch *b, size_t n,
                   up_error *err)
{
    int rc = 0;

    up_buf_addf(out,
                "<!DOCTYPE html><html lang=\"en\"><head><meta "
                "charset=\"utf-8\"><meta name=\"viewport\" content="
                "\"width=device-width\"><meta name=\"color-scheme\" "
                "content=\"light dark\"><title>upskill report</title>"
                "<style>%s</style></head><body><h1>upskill report</h1>"
                "<p class=\"mut\">%zu batch(es); numbers recomputed "
                "from the run files (docs/report.md).</p>",
                css, n);
    up_report_board(out, b, n); /* the sweeps' leaderboards */
    for (size_t i = 0; i < n && !rc; i++)
        rc = batch(out, &b[i], i, err);
    up_buf_addf(out, "<script>%s</script></body></html>\n", script);
    return rc;
}
