/*
 * upskill report, the leaderboard of a sweep (eval SKILL...: several
 * skills in one batch folder, docs/report.md).  The loader shows each
 * skill of a sweep as its own view of the folder (up_report_batch_load_
 * skill), consecutive; here each run of such views becomes one skill x
 * model table: the lift in points with its 95% interval and the verdict,
 * the figures of each view's own lift table.  A click on a column header
 * sorts the rows by it (a small inline script; nothing fetched).  Every
 * skill and model name is escaped.
 */
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "upskill/alloc.h"

static const char sort_script[] =
    "document.querySelectorAll('table.board').forEach(function(t){"
    "t.querySelectorAll('th').forEach(function(h,c){h.addEventListener("
    "'click',function(){var b=t.tBodies[0],r=[].slice.call(b.rows),"
    "d=h.dataset.dir==='desc'?'asc':'desc';h.dataset.dir=d;"
    "r.sort(function(x,y){var a=x.cells[c].dataset.v,z=y.cells[c].dataset.v;"
    "if(!c)return d==='asc'?a.localeCompare(z):z.localeCompare(a);"
    "if(a==='')return z===''?0:1;if(z==='')return -1;"
    "return d==='asc'?a-z:z-a;});r.forEach(function(e){b.appendChild(e);});"
    "});});});";

/* 1 when b[i] and b[j] are views of one sweep folder. */
static int same_sweep(const up_report_batch *b, size_t i, size_t j)
{
    return b[i].only_skill && b[j].only_skill && !strcmp(b[i].dir, b[j].dir);
}

/* The model of view v named name, or NULL. */
static const up_report_model *model_of(const up_report_batch *v,
                                       const char *name)
{
    for (size_t m = 0; m < v->nmodels; m++)
        if (!strcmp(v->models[m].model, name))
            return &v->models[m];
    return NULL;
}

/* The models of views b[0..n), in their first order, borrowed. */
static size_t models(const char ***out, const up_report_batch *b, size_t n)
{
    size_t k = 0, cap = 0;

    for (size_t i = 0; i < n; i++)
        for (size_t m = 0; m < b[i].nmodels; m++) {
            size_t j = 0;

            while (j < k && strcmp((*out)[j], b[i].models[m].model))
                j++;
            if (j < k)
                continue;
            UP_GROW(*out, cap, k + 1);
            (*out)[k++] = b[i].models[m].model;
        }
    return k;
}

static void cell(up_buf *out, const up_report_model *m)
{
    const up_comparison *c = m ? &m->cmp : NULL;
    char d[UP_STATS_FMT_LEN], lo[UP_STATS_FMT_LEN], hi[UP_STATS_FMT_LEN];

    if (!c || !c->paired) {
        up_buf_adds(out, "<td data-v=\"\" class=\"mut\">not measured</td>");
        return;
    }
    up_buf_addf(out,
                "<td data-v=\"%.6f\">%s points <span class=\"mut\">"
                "[%s, %s]</span> <span class=\"verdict\">%s</span>"
                "</td>",
                c->lift.diff,
                up_stats_fmt_bound(d, sizeof(d), c->lift.diff, c->margin),
                up_stats_fmt_bound(lo, sizeof(lo), c->lift.ci_lo, c->margin),
                up_stats_fmt_bound(hi, sizeof(hi), c->lift.ci_hi, c->margin),
                up_stats_verdict_label(c->verdict));
}

/* The comparisons of views b[0..n) as one family. */
static void family_of(up_report_batch *b, size_t n)
{
    size_t k = 0, all = 0;
    up_comparison **c;

    if (b[0].kept_attempt) /* generate judges each model alone, as its own
                              report does (docs/generate.md) */
        return;
    for (size_t i = 0; i < n; i++)
        all += b[i].nmodels;
    c = up_xcalloc(all ? all : 1, sizeof(*c));
    for (size_t i = 0; i < n; i++)
        for (size_t m = 0; m < b[i].nmodels; m++)
            if (b[i].ncases)
                c[k++] = &b[i].models[m].cmp;
    up_stats_family(c, k, (up_family_control)b[0].family, UP_STATS_ALPHA);
    free(c);
}

void up_report_family(up_report_batch *b, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;

        while (j < n && same_sweep(b, i, j))
            j++;
        family_of(b + i, j - i);
        i = j;
    }
}

/* The family line of views b[0..n) before a table, when several;
 * returns 1 when its intervals are not the 95% ones. */
static int family_line(up_buf *out, const up_report_batch *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t m = 0; m < b[i].nmodels; m++)
            if (b[i].models[m].cmp.family > 1) {
                up_buf t = UP_BUF_INIT;

                up_buf_adds(out, "<p class=\"mut family\">");
                up_stats_family_text(&t, &b[i].models[m].cmp);
                up_report_esc(out, t.data);
                up_buf_release(&t);
                up_buf_adds(out, "</p>");
                return b[i].models[m].cmp.alpha != UP_STATS_ALPHA;
            }
    return 0;
}

/* One sweep's table over its views b[0..n); id numbers it on the page. */
static void board(up_buf *out, const up_report_batch *b, size_t n, size_t id)
{
    const char **names = NULL;
    size_t k = models(&names, b, n);
    up_buf sec = UP_BUF_INIT;
    int fam;

    up_buf_addf(out,
                "<section id=\"board-%zu\"><h2>Leaderboard <span "
                "class=\"mut\">batch ",
                id);
    up_report_esc(out, b[0].id);
    up_buf_addf(out, ", %zu skills</span></h2>", n);
    fam = family_line(out, b, n);
    up_buf_addf(&sec, "board-%zu", id);
    up_report_card_open(out);
    for (size_t m = 0; m < k; m++)
        up_report_card_head(out, sec.data, (int)m + 2, names[m], NULL);
    up_report_card_close(out);
    up_buf_addf(out,
                "<table class=\"board\"><caption>"
                "The lift with each skill (points, %s) and the "
                "verdict; click a column header to sort</caption><thead>"
                "<tr><th style=\"cursor:pointer\">skill</th>",
                fam ? "interval at the family's level" : "95% interval");
    for (size_t m = 0; m < k; m++) {
        up_buf_adds(out, "<th style=\"cursor:pointer\">");
        up_report_esc(out, names[m]);
        up_buf_adds(out, "</th>");
    }
    up_buf_adds(out, "</tr></thead><tbody>");
    for (size_t i = 0; i < n; i++) {
        up_buf_adds(out, "<tr><td data-v=\"");
        up_report_esc(out, b[i].only_skill);
        up_buf_adds(out, "\">");
        up_report_esc(out, b[i].only_skill);
        up_buf_adds(out, "</td>");
        for (size_t m = 0; m < k; m++)
            cell(out, model_of(&b[i], names[m]));
        up_buf_adds(out, "</tr>");
    }
    up_buf_adds(out, "</tbody></table></section>");
    up_buf_release(&sec);
    free(names);
}

void up_report_board(up_buf *out, const up_report_batch *b, size_t n)
{
    size_t boards = 0;

    for (size_t i = 0; i < n;) {
        size_t j = i + 1;

        while (j < n && same_sweep(b, i, j))
            j++;
        if (b[i].only_skill)
            board(out, b + i, j - i, boards++);
        i = j;
    }
    if (boards)
        up_buf_addf(out, "<script>%s</script>", sort_script);
}
