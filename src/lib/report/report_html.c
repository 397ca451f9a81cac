/*
 * upskill report, the page: one self-contained HTML file (inline CSS and
 * SVG, one small script to filter the case matrix; nothing fetched),
 * per batch its rates, lift and verdict, cost, agent use, the case x
 * model matrix linked to the embedded transcripts, and its provenance.
 * Light and dark by prefers-color-scheme; printable; below 680 px the
 * narrow charts and the tables as cards (docs/report.md "Layout").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config/config_lib.h"
#include "lib/store/store_lib.h"
#include "report_int.h"
#include "upskill/alloc.h"
#include "upskill/store.h"
#include "upskill/version.h"

/* Below 680 px the narrow charts; below 1,024 px (a phone, a tablet)
 * the tables as cards, whose natural width is more than such a screen's
 * (docs/report.md "Layout"). */
#define CARDS "@media (max-width:1023px)"

static const char css[] =
    ":root{--fg:#1b1f24;--bg:#fff;--mut:#5b636e;--line:#d0d7de;"
    "--base:#8c959f;--skill:#0969da;--pass:#1a7f37;--fail:#cf222e;"
    "--warn:#9a6700}"
    "@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;"
    "--mut:#9da7b3;--line:#30363d;--base:#6e7681;--skill:#4493f8;"
    "--pass:#3fb950;--fail:#f85149;--warn:#d29922}}"
    "body{font:15px/1.45 system-ui,sans-serif;color:var(--fg);"
    "background:var(--bg);margin:2em auto;max-width:1240px;padding:0 1em}"
    "table{border-collapse:collapse;margin:.5em 0 1.2em}"
    "th,td{border:1px solid var(--line);padding:3px 8px;text-align:right}"
    "th:first-child,td:first-child{text-align:left}"
    ".chart{width:100%;height:auto}.chart.w{max-width:720px}"
    ".chart.n{max-width:480px}.cn{display:none}"
    "@media (max-width:679px){.cw{display:none}.cn{display:block}}" CARDS "{"
    "table:is(.card,.board),:is(.card,.board) :is(caption,tbody,tr,td)"
    "{display:block}:is(.card,.board) thead{display:none}"
    ":is(.card,.board) caption{text-align:left}:is(.card,.board) tr{border:"
    "1px solid var(--line);margin:0 0 .5em;padding:.2em .5em}"
    ":is(.card,.board) td{border:0;padding:1px 0;text-align:left;"
    "min-width:0;max-width:none}:is(.card,.board) td::before{display:block;"
    "color:var(--mut);font-size:.85em;white-space:normal}"
    ":is(.card,.board) td:first-child{font-weight:600}"
    ".card td.nm{white-space:normal}.mx.card tr{display:grid;"
    "grid-template-columns:1fr 1fr;column-gap:.6em}.mx.card td.text{"
    "grid-column:1/-1}.mx.card td{align-self:end}"
    ".mx.card td::before{overflow-wrap:anywhere}"
    ":is(.card,.board) tr[hidden]{display:none}"
    ".prov td:first-child{font-weight:400;color:var(--mut)}"
    ".lift tr{display:flex;flex-direction:column}"
    ".lift td:first-child{order:-2}.lift td.verdict{order:-1}}"
    ".chart text{fill:var(--fg);"
    "font-size:12px}.chart .tick{fill:var(--mut)}.grid,.axis{stroke:"
    "var(--line)}.ci{stroke:var(--fg);stroke-width:2}rect.base,circle.base"
    "{fill:var(--base)}rect.skill,circle.skill{fill:var(--skill)}"
    ".pt{fill:var(--skill)}.front{fill:none;stroke:var(--pass);"
    "stroke-width:2;stroke-dasharray:5 3}.pass{color:var(--pass)}"
    ".fail{color:var(--fail)}td.pass a,td.fail a{color:inherit}"
    "pre{white-space:pre-wrap;margin:.2em 0 .6em;padding:.4em;"
    "border-left:3px solid var(--line)}details{margin:.2em 0}"
    ".verdict{font-weight:600}.mut{color:var(--mut)}"
    ".scroll{overflow-x:auto;max-width:100%}.scroll>table{margin-top:0}"
    "th,td{white-space:nowrap}td.verdict,td.text{white-space:normal;"
    "min-width:12em}td.text{max-width:24em}.nw{white-space:nowrap}"
    "table.mx th{white-space:normal;overflow-wrap:break-word}"
    ".prov td{white-space:normal}.prov td:last-child{overflow-wrap:anywhere}"
    "pre,summary,h2,p{overflow-wrap:anywhere}"
    ".nm{color:var(--mut);font-style:italic}.chart .nm{fill:var(--mut)}"
    ".band{fill:var(--line);opacity:.6}"
    ".headline{font-size:1.05em;margin:.3em 0 1em;padding-left:1.2em}"
    ".headline li{overflow-wrap:anywhere}"
    ".v-beneficial .pt,.v-beneficial .val{fill:var(--pass)}"
    ".v-beneficial .ci{stroke:var(--pass)}"
    ".v-harmful .pt,.v-harmful .val{fill:var(--fail)}"
    ".v-harmful .ci{stroke:var(--fail)}"
    ".v-trade_off .pt,.v-trade_off .val{fill:var(--warn)}"
    ".v-trade_off .ci{stroke:var(--warn)}"
    ".v-no_effect .pt,.v-inconclusive .pt{fill:var(--base)}"
    ".v-no_effect .ci,.v-inconclusive .ci{stroke:var(--base)}"
    "@media print{details{display:none}body{max-width:none}"
    ".scroll{overflow:visible}.cw{display:block}.cn{display:none}"
    "a{color:inherit;text-decoration:none}}";

/* The filter: "9", "case 9" or "#9" is that case alone, other words
 * match the case's text and the row; a link to a transcript or a system
 * prompt opens its <details>, as does the page's own #anchor. */
static const char script[] =
    "function op(h){var e=h&&document.getElementById(decodeURIComponent("
    "h.slice(1)));if(e&&e.tagName==='DETAILS'){e.open=true;"
    "e.scrollIntoView();}}"
    "document.addEventListener('click',function(e){var a=e.target.closest&&"
    "e.target.closest('a[href^=\"#\"]');if(a)op(a.getAttribute('href'));});"
    "window.addEventListener('hashchange',function(){op(location.hash);});"
    "op(location.hash);"
    "document.querySelectorAll('input.filter').forEach(function(i){"
    "i.addEventListener('input',function(){var t=document.getElementById("
    "i.dataset.table),q=i.value.trim().toLowerCase(),"
    "n=q.match(/^(?:case\\s*)?#?(\\d+)$/);"
    "t.querySelectorAll('tbody tr').forEach(function(r){r.hidden=q!==''&&"
    "(n?r.dataset.case!==n[1]:r.textContent.toLowerCase().indexOf(q)<0);"
    "});});});";

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

void up_report_esc_cut(up_buf *out, const char *s, size_t max)
{
    size_t n = s ? strlen(s) : 0, keep = n > max ? max : n;
    char *cut;

    while (keep < n && keep && ((unsigned char)s[keep] & 0xC0) == 0x80)
        keep--; /* s[keep] starts the first character left out */
    cut = up_xstrndup(s ? s : "", keep);
    up_report_esc(out, cut);
    up_buf_adds(out, keep < n ? "…" : "");
    free(cut);
}

/* Dollars, one format for every price and cost on the page and in the
 * text (up_stats_fmt_usd). */
void up_report_usd(up_buf *out, double v)
{
    char t[UP_STATS_FMT_LEN];

    up_buf_adds(out, up_stats_fmt_usd(t, sizeof(t), v));
}

const char *up_report_arm(const up_report_batch *b, int skill)
{
    if (b->arm_name[skill])
        return b->arm_name[skill];
    return skill ? "with skill" : "baseline";
}

int up_report_measured(const up_report_batch *b, const up_report_model *m,
                       int skill)
{
    return up_report_trials(m, b->ncases, skill) > 0;
}

/* "not measured: all N conversations errored" (or none ran). */
void up_report_unmeasured(up_buf *out, const up_report_model *m, int skill)
{
    if (m->errors[skill])
        up_buf_addf(out, "not measured: %s %zu conversation%s errored",
                    m->errors[skill] == 1 ? "its" : "all", m->errors[skill],
                    m->errors[skill] == 1 ? "" : "s");
    else
        up_buf_adds(out, "not measured: no conversation ran");
}

/* A compare batch's verdict in A/B words (docs/compare.md), else eval's. */
const char *up_report_verdict_label(const up_report_batch *b, up_verdict v)
{
    if (b->arm_name[0])
        return up_stats_verdict_ab_label(v);
    return up_stats_verdict_label(v);
}

static void verdict_text(up_buf *out, const up_report_batch *b,
                         const up_comparison *c)
{
    up_buf v = UP_BUF_INIT;
    const char *rest;

    up_stats_verdict_text(&v, c);
    rest = strchr(v.data ? v.data : "", ':');
    if (b->arm_name[0]) {
        up_buf_adds(out, up_stats_verdict_ab_label(c->verdict));
        up_buf_adds(out, rest ? rest : "");
    } else {
        up_buf_adds(out, v.data ? v.data : "");
    }
    up_buf_release(&v);
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

/* A rate's cell, and its errored conversations when there were some. */
static void rate_cell(up_buf *out, const up_rate *r, size_t errors)
{
    up_buf_addf(out,
                "<td data-rate=\"%.4f\">%.0f%% <span class=\"mut\">[%.0f–"
                "%.0f%%]</span> (%zu/%zu)",
                r->rate, r->rate * 100, r->lo * 100, r->hi * 100, r->successes,
                r->trials);
    if (errors)
        up_buf_addf(out, " <span class=\"mut\">%zu errored</span>", errors);
    up_buf_adds(out, "</td>");
}

static void td_name(up_buf *out, const char *s)
{
    up_buf_adds(out, "<tr><td>");
    up_report_esc(out, s);
    up_buf_adds(out, "</td>");
}

/* A table in its own horizontal scroll box: the page never widens. */
static void box(up_buf *out, int open)
{
    up_buf_adds(out, open ? "<div class=\"scroll\">" : "</div>");
}

/* A name in a CSS string: no name ends the string or the <style>. */
static void css_str(up_buf *out, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c < 0x20 || c == '"' || c == '\\' || c == '<' || c == 0x7f)
            up_buf_addf(out, "\\%x ", c); /* never ends the string or <style> */
        else
            up_buf_addc(out, *s);
    }
}

void up_report_card_open(up_buf *out)
{
    up_buf_adds(out, "<style>" CARDS "{");
}

void up_report_card_head(up_buf *out, const char *id, int k, const char *a,
                         const char *b)
{
    up_buf_addf(out, "#%s td:nth-child(%d)::before{content:\"", id, k);
    css_str(out, a);
    if (b) {
        up_buf_adds(out, " ");
        css_str(out, b);
    }
    up_buf_adds(out, "\"}");
}

void up_report_card_close(up_buf *out)
{
    up_buf_adds(out, "}</style>");
}

/* The heads of a table whose columns after the first are named in h. */
static void card_heads(up_buf *out, const char *id, const char *const *h,
                       size_t n)
{
    up_report_card_open(out);
    for (size_t k = 0; k < n; k++)
        up_report_card_head(out, id, (int)k + 2, h[k], NULL);
    up_report_card_close(out);
}

static void td_unmeasured(up_buf *out, const up_report_model *m, int skill,
                          int span)
{
    up_buf_addf(out, "<td class=\"nm\" colspan=\"%d\">", span);
    up_report_unmeasured(out, m, skill);
    up_buf_adds(out, "</td>");
}

static void arm_rate(up_buf *out, const up_report_batch *b,
                     const up_report_model *m, int skill)
{
    if (!up_report_measured(b, m, skill)) {
        td_unmeasured(out, m, skill, 1);
        return;
    }
    rate_cell(out, skill ? &m->cmp.skill : &m->cmp.base, m->errors[skill]);
}

/* The caption's interval: "95% intervals", or the family's line. */
static void lift_caption(up_buf *out, const up_report_batch *b)
{
    for (size_t i = 0; i < b->nmodels; i++)
        if (b->models[i].cmp.family > 1) {
            up_buf t = UP_BUF_INIT;

            up_stats_family_text(&t, &b->models[i].cmp);
            up_buf_adds(out, "Pass rates and lift (");
            up_report_esc(out, t.data);
            up_buf_adds(out, ")");
            up_buf_release(&t);
            return;
        }
    up_buf_adds(out, "Pass rates and lift (95% intervals)");
}

static void lift_head(up_buf *out, const up_report_batch *b, size_t bi)
{
    const char *h[] = {up_report_arm(b, 0), up_report_arm(b, 1),
                       b->arm_name[0] ? "lift (B − A)" : "lift", "p",
                       "verdict"};
    char id[32];

    snprintf(id, sizeof(id), "lift-%zu", bi);
    box(out, 1);
    card_heads(out, id, h, sizeof(h) / sizeof(h[0]));
    up_buf_addf(out, "<table class=\"lift card\" id=\"%s\"><caption>", id);
    lift_caption(out, b);
    up_buf_adds(out, "</caption><thead><tr><th>model</th><th>");
    up_report_esc(out, up_report_arm(b, 0));
    up_buf_adds(out, "</th><th>");
    up_report_esc(out, up_report_arm(b, 1));
    up_buf_adds(out,
                b->arm_name[0] ? "</th><th>lift (B − A)" : "</th><th>lift");
    up_buf_adds(out, "</th><th>p</th><th>verdict</th></tr></thead><tbody>");
}

static void lift_table(up_buf *out, const up_report_batch *b, size_t bi)
{
    lift_head(out, b, bi);
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_comparison *c = &b->models[i].cmp;
        up_buf v = UP_BUF_INIT;
        char fd[UP_STATS_FMT_LEN], fl[UP_STATS_FMT_LEN], fh[UP_STATS_FMT_LEN];

        td_name(out, b->models[i].model);
        arm_rate(out, b, &b->models[i], 0);
        arm_rate(out, b, &b->models[i], 1);
        if (!c->paired) { /* no case answered in both arms */
            up_buf_adds(out, "<td class=\"nm\" colspan=\"3\">not measured: "
                             "no case was answered in both arms</td></tr>");
            continue;
        }
        up_buf_addf(
            out,
            "<td class=\"liftv\">%s points <span class=\"mut\">"
            "[%s, %s]</span></td><td>%.3g</td><td "
            "class=\"verdict\">",
            up_stats_fmt_bound(fd, sizeof(fd), c->lift.diff, c->margin),
            up_stats_fmt_bound(fl, sizeof(fl), c->lift.ci_lo, c->margin),
            up_stats_fmt_bound(fh, sizeof(fh), c->lift.ci_hi, c->margin),
            c->lift.p);
        verdict_text(&v, b, c);
        up_report_esc(out, v.data);
        up_buf_adds(out, "</td></tr>");
        up_buf_release(&v);
    }
    up_buf_adds(out, "</tbody></table>");
    box(out, 0);
}

/* SkillsBench's across-task view (docs/statistics.md): a case is a task. */
static void sb_table(up_buf *out, const up_report_batch *b, size_t bi)
{
    const char *h[] = {"tasks", b->arm_name[1] ? b->arm_name[1] : "with skill",
                       b->arm_name[0] ? b->arm_name[0] : "without",
                       "difference", "g"};
    char id[32];

    snprintf(id, sizeof(id), "sb-%zu", bi);
    box(out, 1);
    card_heads(out, id, h, sizeof(h) / sizeof(h[0]));
    up_buf_addf(out, "<table class=\"sbview card\" id=\"%s\">", id);
    up_buf_adds(out, "<caption>SkillsBench view: "
                     "mean of the per-task pass rates, normalized gain g, "
                     "95% interval 1.96 sd / &radic;N</caption><thead><tr>"
                     "<th>model</th><th>tasks</th><th>");
    up_report_esc(out, b->arm_name[1] ? b->arm_name[1] : "with skill");
    up_buf_adds(out, "</th><th>");
    up_report_esc(out, b->arm_name[0] ? b->arm_name[0] : "without");
    up_buf_adds(out, "</th><th>difference</th><th>g</th></tr></thead><tbody>");
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
    box(out, 0);
}

static void per_pass(up_buf *out, const up_report_batch *b,
                     const up_report_model *m, int s, int usd)
{
    double total = usd ? m->cost[s] : m->tokens[s];
    size_t passes = up_report_passes(m, b->ncases, s);

    if (!up_report_measured(b, m, s)) {
        up_buf_adds(out, "<td class=\"nm\">not measured</td>");
    } else if (total < 0) {
        up_buf_adds(out, "<td>no price</td>");
    } else if (!passes) {
        up_buf_adds(out, "<td>no pass</td>");
    } else if (usd) {
        up_buf_adds(out, "<td>");
        up_report_usd(out, total / (double)passes);
        up_buf_adds(out, "</td>");
    } else {
        up_buf_addf(out, "<td>%.0f</td>", total / (double)passes);
    }
}

static void cost_head(up_buf *out, const up_report_batch *b, size_t bi)
{
    static const char *const what[] = {"tokens/pass ", "cost/pass "};

    box(out, 1);
    up_report_card_open(out);
    for (int k = 0; k < 4; k++) {
        char id[32];

        snprintf(id, sizeof(id), "cost-%zu", bi);
        up_report_card_head(out, id, k + 2, what[k / 2],
                            up_report_arm(b, k % 2));
        if (k == 3)
            up_report_card_head(out, id, 6, "cost total", NULL);
    }
    up_report_card_close(out);
    up_buf_addf(out,
                "<table class=\"card\" id=\"cost-%zu\"><caption>Tokens "
                "and cost per passed case</caption><thead><tr><th>model</th>",
                bi);
    for (int k = 0; k < 4; k++) {
        up_buf_addf(out, "<th>%s", what[k / 2]);
        up_report_esc(out, up_report_arm(b, k % 2));
        up_buf_adds(out, "</th>");
    }
    up_buf_adds(out, "<th>cost total</th></tr></thead><tbody>");
}

static void cost_table(up_buf *out, const up_report_batch *b, size_t bi)
{
    cost_head(out, b, bi);
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_report_model *m = &b->models[i];

        td_name(out, m->model);
        per_pass(out, b, m, 0, 0);
        per_pass(out, b, m, 1, 0);
        per_pass(out, b, m, 0, 1);
        per_pass(out, b, m, 1, 1);
        if (m->cost[0] < 0 || m->cost[1] < 0) {
            up_buf_adds(out, "<td>no price configured</td></tr>");
        } else {
            up_buf_adds(out, "<td>");
            up_report_usd(out, m->cost[0] + m->cost[1]);
            up_buf_adds(out, "</td></tr>");
        }
    }
    up_buf_adds(out, "</tbody></table>");
    box(out, 0);
}

static void agent_table(up_buf *out, const up_report_batch *b, size_t bi)
{
    char id[32];
    long any = 0;

    for (size_t i = 0; i < b->nmodels; i++)
        any += b->models[i].agent_convs[0] + b->models[i].agent_convs[1];
    if (!any) {
        up_buf_adds(out, "<p class=\"mut\">Chat mode: no activation or tool "
                         "use to show.</p>");
        return;
    }
    snprintf(id, sizeof(id), "agent-%zu", bi);
    box(out, 1);
    up_report_card_open(out);
    up_report_card_head(out, id, 2, "skill read (activation)", NULL);
    up_report_card_head(out, id, 3, "tool calls", up_report_arm(b, 0));
    up_report_card_head(out, id, 4, "tool calls", up_report_arm(b, 1));
    up_report_card_close(out);
    up_buf_addf(out, "<table class=\"card\" id=\"%s\">", id);
    up_buf_adds(out, "<caption>Agent mode: activation and tool use"
                     "</caption><thead><tr><th>model</th><th>skill read "
                     "(activation)</th><th>tool calls ");
    up_report_esc(out, up_report_arm(b, 0));
    up_buf_adds(out, "</th><th>tool calls ");
    up_report_esc(out, up_report_arm(b, 1));
    up_buf_adds(out, "</th></tr></thead><tbody>");
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_report_model *m = &b->models[i];

        td_name(out, m->model);
        up_buf_addf(out, "<td>%ld of %ld</td><td>%ld</td><td>%ld</td></tr>",
                    m->skill_reads[1], m->agent_convs[1], m->tool_calls[0],
                    m->tool_calls[1]);
    }
    up_buf_adds(out, "</tbody></table>");
    box(out, 0);
}

/* One arm of one case: passes of the answered runs, linked to the
 * transcript that matters (the first failing repeat in a ✗ cell, else
 * the first); errored runs are counted apart. */
static void matrix_cell(up_buf *out, const up_report_cell *c, int s, size_t bi,
                        size_t ci)
{
    unsigned pass = s ? c->c.skill_pass : c->c.base_pass;
    unsigned runs = s ? c->c.skill_runs : c->c.base_runs;
    int run = runs && pass < runs && c->fail_run[s] ? c->fail_run[s]
                                                    : c->first_run[s];
    const char *cls = !runs ? "mut" : pass == runs ? "pass" : "fail";

    up_buf_addf(out, "<td class=\"%s\">", cls);
    if (run)
        up_buf_addf(out, "<a href=\"#t-%zu-%d-%zu\">", bi, run, ci + 1);
    if (runs)
        up_buf_addf(out, "%s %u/%u", pass == runs ? "✓" : "✗", pass, runs);
    else
        up_buf_adds(out, "–");
    if (c->errors[s])
        up_buf_addf(out, " (%u errored)", c->errors[s]);
    up_buf_adds(out, run ? "</a></td>" : "</td>");
}

#define CASE_SHOWN 60 /* bytes of a case's text in the matrix */

/* The case's number and its text cut at CASE_SHOWN bytes (on a UTF-8
 * boundary, one line), the whole text in the title. */
static void case_cell(up_buf *out, const up_report_batch *b, size_t ci)
{
    const char *t = ci < b->ntext ? b->case_text[ci] : NULL;
    char *line = up_xstrdup(t ? t : "");

    up_buf_addf(out, "<tr data-case=\"%zu\"><td class=\"text\" title=\"",
                ci + 1);
    up_report_esc(out, t);
    up_buf_addf(out, "\"><b class=\"nw\">case %zu</b> ", ci + 1);
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
    up_buf_adds(out, "<span class=\"mut\">");
    up_report_esc_cut(out, line, CASE_SHOWN);
    up_buf_adds(out, "</span></td>");
    free(line);
}

/* The matrix's column names on a card: model and arm. */
static void matrix_heads(up_buf *out, const up_report_batch *b, size_t bi)
{
    char id[32];

    snprintf(id, sizeof(id), "matrix-%zu", bi);
    up_report_card_open(out);
    for (size_t i = 0; i < b->nmodels; i++)
        for (int s = 0; s < 2; s++)
            up_report_card_head(out, id, (int)(2 * i) + s + 2,
                                b->models[i].model,
                                b->arm_name[s] ? b->arm_name[s]
                                : s            ? "skill"
                                               : "baseline");
    up_report_card_close(out);
}

/* s escaped, with a line-break chance after each '.', '/', '_' and ':'
 * (a column head narrower than a long model name; '-' is one already). */
static void esc_wbr(up_buf *out, const char *s)
{
    char one[2] = {0, 0};

    for (; s && *s; s++) {
        one[0] = *s;
        up_report_esc(out, one);
        if (strchr("./_:", *s))
            up_buf_adds(out, "<wbr>");
    }
}

static void matrix(up_buf *out, const up_report_batch *b, size_t bi)
{
    matrix_heads(out, b, bi);
    up_buf_addf(out,
                "<p><label>Filter cases (a number, or words of the case): "
                "<input class=\"filter\" data-table=\"matrix-%zu\" "
                "type=\"search\"></label></p><div class=\"scroll\">"
                "<table class=\"mx card\" id=\"matrix-%zu\"><caption>Case × "
                "model: passes "
                "per arm (links open the transcript: a failing repeat in a "
                "✗ cell)</caption><thead><tr><th>case</th>",
                bi, bi);
    for (size_t i = 0; i < b->nmodels; i++)
        for (int s = 0; s < 2; s++) {
            up_buf_adds(out, "<th>");
            esc_wbr(out, b->models[i].model);
            up_buf_adds(out, " <br>");
            up_report_esc(out, b->arm_name[s] ? b->arm_name[s]
                               : s            ? "skill"
                                              : "baseline");
            up_buf_adds(out, "</th>");
        }
    up_buf_adds(out, "</tr></thead><tbody>");
    for (size_t ci = 0; ci < b->ncases; ci++) {
        case_cell(out, b, ci);
        for (size_t i = 0; i < b->nmodels; i++)
            for (int s = 0; s < 2; s++)
                matrix_cell(out, &b->models[i].cells[ci], s, bi, ci);
        up_buf_adds(out, "</tr>");
    }
    up_buf_adds(out, "</tbody></table></div>");
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
    if (p) {
        up_report_usd(&v, p->input);
        up_buf_adds(&v, " input, ");
        up_report_usd(&v, p->output);
        up_buf_adds(&v, " output, ");
        up_report_usd(&v, p->cached);
        up_buf_adds(&v, " cached per million tokens");
    } else
        up_buf_adds(&v, "no price configured");
    up_buf_addf(out,
                "<tr><td>price (config now; the costs are each run's "
                "cost_usd)</td><td>%s</td></tr>",
                v.data);
    up_buf_release(&v);
}

/* Provenance rows saying what the batch is: the statistics' seed and
 * margin and where they come from, the shard, a compare batch's skills. */
static void what_batch(up_buf *out, const up_report_batch *b)
{
    up_buf v = UP_BUF_INIT;

    up_buf_addf(&v, "%llu (%s; statistics recomputed by upskill %s)",
                (unsigned long long)b->seed,
                b->seed_given ? "given to report --seed"
                              : "the batch's, batch_plan.json",
                UPSKILL_VERSION);
    kv(out, "statistics seed", v.data);
    up_buf_reset(&v);
    up_buf_addf(&v, "%g points (%s)", b->margin * 100,
                b->margin_given ? "given to report --margin"
                                : "the batch's, batch_plan.json, else 5");
    kv(out, "\"no meaningful effect\" margin", v.data);
    if (b->shard_count) {
        up_buf_reset(&v);
        up_buf_addf(&v,
                    "shard %ld of %ld: a part of the batch (upskill merge "
                    "joins the shards)",
                    b->shard_index, b->shard_count);
        kv(out, "shard (--shard)", v.data);
    }
    for (int s = 0; s < 2 && b->arm_name[0]; s++)
        kv(out,
           s ? "compare: skill B (with_skill runs)"
             : "compare: skill A (baseline runs)",
           b->arm_name[s]);
    up_buf_release(&v);
}

static void provenance(up_buf *out, const up_report_batch *b)
{
    up_buf seed = UP_BUF_INIT;

    box(out, 1);
    up_buf_adds(out, "<table class=\"prov card\"><caption>Provenance</caption>"
                     "<tbody>");
    kv(out, "batch", b->id);
    kv(out, "folder", b->dir);
    for (size_t i = 0; i < b->nmodels; i++) { /* whole, never broken */
        up_buf_adds(out, "<tr><td>resolved model</td><td><span class=\"nw\">");
        up_report_esc(out, b->models[i].model);
        up_buf_adds(out, "</span></td></tr>");
    }
    kv(out, "suite sha256 (batch_plan.json)", b->suite_sha);
    kv(out, "skill sha256 (batch_plan.json)", b->skill_sha);
    kv(out, "written by upskill", b->version);
    if (b->kept_attempt) {
        up_buf_addf(&seed, "attempt %d (its runs alone are shown)",
                    b->kept_attempt);
        kv(out, "generate batch: kept", seed.data);
    }
    what_batch(out, b);
    for (size_t i = 0; i < b->nmodels; i++)
        price(out, b, b->models[i].model);
    up_buf_adds(out, "</tbody></table>");
    box(out, 0);
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
static void upstream_batch(up_buf *out, const up_report_batch *b, size_t bi)
{
    static const char *const h[] = {"skill", "baseline", "with skill"};
    static const char *const hr[] = {"model", "run_type", "assertions",
                                     "rate",  "passed",   "tokens"};
    char id[32];

    up_buf_adds(out, "<p class=\"mut\">No case artifacts (a batch of "
                     "upstream upskill, or one cut short): the figures "
                     "upstream's <code>runs</code> shows, from the run "
                     "files.</p><div class=\"scroll\">");
    snprintf(id, sizeof(id), "up-%zu", bi);
    card_heads(out, id, h, sizeof(h) / sizeof(h[0]));
    up_buf_addf(out,
                "<table class=\"upstream card\" id=\"%s\"><caption>Pass "
                "rates (assertions passed / total; the best with-skill "
                "run and its baseline)</caption><thead><tr><th>model"
                "</th><th>skill</th><th>baseline</th><th>with skill"
                "</th></tr></thead><tbody>",
                id);
    for (size_t i = 0; i < b->nupstream; i++) {
        const up_compare *c = &b->upstream[i];

        td_name(out, c->model);
        td_text(out, c->skill);
        pct_cell(out, c->base_rate, c->has_baseline);
        pct_cell(out, c->with_rate, 1);
        up_buf_adds(out, "</tr>");
    }
    up_buf_adds(out, "</tbody></table></div><div class=\"scroll\">");
    snprintf(id, sizeof(id), "runs-%zu", bi);
    card_heads(out, id, hr, sizeof(hr) / sizeof(hr[0]));
    up_buf_addf(out,
                "<table class=\"runs card\" id=\"%s\"><caption>Runs"
                "</caption><thead><tr><th>run_number</th><th>model</th>"
                "<th>run_type</th><th>assertions</th><th>rate</th>"
                "<th>passed</th><th>tokens</th></tr></thead><tbody>",
                id);
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
    up_buf_adds(out, "</tbody></table></div>");
}

/* The batch's heading: its skill (a compare batch: A and B), id, cases,
 * and the shard it is; then what a shard or a comparison means. */
static void heading(up_buf *out, const up_report_batch *b, size_t bi)
{
    up_buf_addf(out, "<section id=\"batch-%zu\"><h2>", bi);
    if (b->arm_name[0]) {
        up_buf_adds(out, "compare ");
        up_report_esc(out, b->arm_name[0]);
        up_buf_adds(out, " with ");
        up_report_esc(out, b->arm_name[1]);
    } else {
        up_report_esc(out, b->skill ? b->skill : "(no skill name)");
    }
    up_buf_adds(out, " <span class=\"mut\">batch ");
    up_report_esc(out, b->id);
    up_buf_addf(out, ", %zu cases", b->ncases);
    if (b->shard_count)
        up_buf_addf(out, ", shard %ld of %ld", b->shard_index, b->shard_count);
    up_buf_adds(out, "</span></h2>");
    if (b->shard_count)
        up_buf_addf(out,
                    "<p><b>Shard %ld of %ld</b>: these are only this shard's "
                    "conversations; <code>upskill merge</code> joins the "
                    "shards into the whole batch.</p>",
                    b->shard_index, b->shard_count);
    if (b->arm_name[0])
        up_buf_adds(out, "<p>A comparison of two skills "
                         "(<code>upskill compare</code>): skill A takes the "
                         "baseline's place, the lift is B − A.</p>");
}

/* The headline's words around the model's name, by verdict. */
static const struct {
    const char *pre, *post;
} say[UP_VERDICT_COUNT] = {
    [UP_VERDICT_NOT_MEASURED] = {"", ": not measured"},
    [UP_VERDICT_BENEFICIAL] = {"the skill helps ", ""},
    [UP_VERDICT_HARMFUL] = {"the skill hurts ", ""},
    [UP_VERDICT_TOKEN_SAVER] = {"the skill saves ", " tokens"},
    [UP_VERDICT_TRADE_OFF] = {"the skill saves ",
                              " tokens but may cost passes"},
    [UP_VERDICT_NO_EFFECT] = {"the skill makes no meaningful difference to ",
                              ""},
    [UP_VERDICT_INCONCLUSIVE] = {"not clear yet whether the skill helps ",
                                 " (more cases or runs would tell)"},
};

/*
 * The batch at a glance: one sentence per model, its verdict and lift
 * with the interval ("the skill helps X: +53 points [+9, +98]"); a
 * compare batch's in A/B words.
 */
static void headline(up_buf *out, const up_report_batch *b)
{
    up_buf_adds(out, "<ul class=\"headline\">");
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_comparison *c = &b->models[i].cmp;
        up_verdict v = c->paired && c->verdict < UP_VERDICT_COUNT
                           ? c->verdict
                           : UP_VERDICT_NOT_MEASURED;
        char fd[UP_STATS_FMT_LEN], fl[UP_STATS_FMT_LEN], fh[UP_STATS_FMT_LEN];

        up_buf_adds(out, "<li>");
        if (b->arm_name[0]) {
            up_buf_adds(out, "for ");
            up_report_esc(out, b->models[i].model);
            up_buf_adds(out, ": ");
            up_report_esc(out, up_stats_verdict_ab_label(v));
        } else {
            up_buf_adds(out, say[v].pre);
            up_buf_adds(out, "<b>");
            up_report_esc(out, b->models[i].model);
            up_buf_adds(out, "</b>");
            up_buf_adds(out, say[v].post);
        }
        if (v != UP_VERDICT_NOT_MEASURED)
            up_buf_addf(
                out, ": %s points [%s, %s]",
                up_stats_fmt_bound(fd, sizeof(fd), c->lift.diff, c->margin),
                up_stats_fmt_bound(fl, sizeof(fl), c->lift.ci_lo, c->margin),
                up_stats_fmt_bound(fh, sizeof(fh), c->lift.ci_hi, c->margin));
        up_buf_adds(out, "</li>");
    }
    up_buf_adds(out, "</ul>");
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
        upstream_batch(out, b, bi);
        up_buf_adds(out, "</section>");
        return 0;
    }

    heading(out, b, bi);
    headline(out, b);
    up_buf_adds(out, "<h3>Pass rates</h3>");
    up_report_svg_rates(out, b, bi);
    up_buf_adds(out, "<h3>Lift and verdict</h3>");
    up_report_svg_forest(out, b, bi);
    lift_table(out, b, bi);
    sb_table(out, b, bi);
    up_buf_adds(out, "<h3>Cost</h3>");
    up_report_svg_pareto(out, b, bi);
    cost_table(out, b, bi);
    up_buf_adds(out, "<h3>Agent mode</h3>");
    agent_table(out, b, bi);
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
