/*
 * upskill report, charts: inline SVG drawn here, each with a <title> and
 * a <desc> that say in words what it shows (the page's tables hold the
 * same numbers).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "upskill/alloc.h"

#define W     720 /* chart width */
#define LEFT  220 /* room for the model names */
#define RIGHT 60
#define ROW   34

static double xpos(double v, double lo, double hi)
{
    return LEFT + (v - lo) / (hi - lo) * (W - LEFT - RIGHT);
}

static void svg_open(up_buf *out, int h, const char *title, const char *id)
{
    up_buf_addf(out,
                "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 %d %d\" "
                "width=\"%d\" height=\"%d\" aria-labelledby=\"%s-t %s-d\">"
                "<title id=\"%s-t\">",
                W, h, W, h, id, id, id);
    up_report_esc(out, title);
    up_buf_addf(out, "</title><desc id=\"%s-d\">", id);
}

static void axis(up_buf *out, int y0, int y1, double lo, double hi, double step,
                 const char *unit)
{
    for (double v = lo; v <= hi + 1e-9; v += step) {
        double x = xpos(v, lo, hi);

        up_buf_addf(out,
                    "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
                    "y2=\"%d\"/><text class=\"tick\" x=\"%.1f\" y=\"%d\" "
                    "text-anchor=\"middle\">%s%.0f%s</text>",
                    x, y0, x, y1, x, y1 + 14, lo < 0 && v > 0 ? "+" : "",
                    v * 100, unit);
    }
}

static void label(up_buf *out, int y, const char *s)
{
    up_buf_addf(out,
                "<text class=\"lab\" x=\"%d\" y=\"%d\" "
                "text-anchor=\"end\">",
                LEFT - 8, y);
    up_report_esc(out, s);
    up_buf_adds(out, "</text>");
}

static void bar(up_buf *out, int y, const up_rate *r, const char *cls)
{
    double x0 = xpos(0, 0, 1);

    up_buf_addf(out,
                "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                "height=\"11\"/><line class=\"ci\" x1=\"%.1f\" y1=\"%d\" "
                "x2=\"%.1f\" y2=\"%d\"/><text class=\"val\" x=\"%.1f\" "
                "y=\"%d\">%.0f%%</text>",
                cls, x0, y, xpos(r->rate, 0, 1) - x0, xpos(r->lo, 0, 1), y + 5,
                xpos(r->hi, 0, 1), y + 5, xpos(r->hi, 0, 1) + 4, y + 10,
                r->rate * 100);
}

void up_report_svg_rates(up_buf *out, const up_report_batch *b, size_t bi)
{
    int h = (int)b->nmodels * ROW + 40;
    up_buf id = UP_BUF_INIT;

    up_buf_addf(&id, "rates-%zu", bi);
    svg_open(out, h, "Pass rate per model, baseline and with skill", id.data);
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_comparison *c = &b->models[i].cmp;

        up_report_esc(out, b->models[i].model);
        up_buf_addf(out,
                    ": baseline %.0f%% (95%% interval %.0f-%.0f%%), with skill "
                    "%.0f%% (%.0f-%.0f%%). ",
                    c->base.rate * 100, c->base.lo * 100, c->base.hi * 100,
                    c->skill.rate * 100, c->skill.lo * 100, c->skill.hi * 100);
    }
    up_buf_adds(out, "</desc>");
    axis(out, 4, h - 24, 0, 1, 0.25, "%");
    up_buf_addf(out,
                "<rect class=\"base\" x=\"%d\" y=\"%d\" width=\"10\" "
                "height=\"10\"/><text x=\"%d\" y=\"%d\">baseline</text>"
                "<rect class=\"skill\" x=\"%d\" y=\"%d\" width=\"10\" "
                "height=\"10\"/><text x=\"%d\" y=\"%d\">with skill</text>",
                8, h - 20, 22, h - 11, 92, h - 20, 106, h - 11);
    for (size_t i = 0; i < b->nmodels; i++) {
        int y = 8 + (int)i * ROW;

        label(out, y + 16, b->models[i].model);
        bar(out, y, &b->models[i].cmp.base, "base");
        bar(out, y + 13, &b->models[i].cmp.skill, "skill");
    }
    up_buf_adds(out, "</svg>");
    up_buf_release(&id);
}

void up_report_svg_forest(up_buf *out, const up_report_batch *b, size_t bi)
{
    int h = (int)b->nmodels * ROW + 40;
    up_buf id = UP_BUF_INIT;

    up_buf_addf(&id, "forest-%zu", bi);
    svg_open(out, h, "Lift of the skill per model (forest plot)", id.data);
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_paired *l = &b->models[i].cmp.lift;
        double m = b->models[i].cmp.margin;
        char fd[UP_STATS_FMT_LEN], fl[UP_STATS_FMT_LEN], fh[UP_STATS_FMT_LEN];

        up_report_esc(out, b->models[i].model);
        up_buf_addf(out, ": lift %s points, 95%% interval %s to %s, ",
                    up_stats_fmt_bound(fd, sizeof(fd), l->diff, m),
                    up_stats_fmt_bound(fl, sizeof(fl), l->ci_lo, m),
                    up_stats_fmt_bound(fh, sizeof(fh), l->ci_hi, m));
        up_report_esc(out, up_stats_verdict_label(b->models[i].cmp.verdict));
        up_buf_adds(out, ". ");
    }
    up_buf_adds(out, "</desc>");
    axis(out, 4, h - 24, -1, 1, 0.5, "");
    up_buf_addf(out,
                "<line class=\"ci\" x1=\"%.1f\" y1=\"4\" x2=\"%.1f\" "
                "y2=\"%d\" stroke-dasharray=\"2 3\"/>",
                xpos(0, -1, 1), xpos(0, -1, 1), h - 24);
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_paired *l = &b->models[i].cmp.lift;
        int y = 8 + (int)i * ROW + 12;
        char fd[UP_STATS_FMT_LEN];

        label(out, y + 4, b->models[i].model);
        up_buf_addf(out,
                    "<line class=\"ci\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
                    "y2=\"%d\"/><rect class=\"pt\" x=\"%.1f\" y=\"%d\" "
                    "width=\"9\" height=\"9\"/><text class=\"val\" x=\"%.1f\" "
                    "y=\"%d\">%s</text>",
                    xpos(l->ci_lo, -1, 1), y, xpos(l->ci_hi, -1, 1), y,
                    xpos(l->diff, -1, 1) - 4.5, y - 4, xpos(l->diff, -1, 1) - 8,
                    y - 7,
                    up_stats_fmt_bound(fd, sizeof(fd), l->diff,
                                       b->models[i].cmp.margin));
    }
    up_buf_adds(out, "</svg>");
    up_buf_release(&id);
}

/* One point of the cost chart: a model and arm. */
struct pt {
    double x, y;
    size_t m;
    int skill;
};

static int dominated(const struct pt *p, const struct pt *all, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (all[i].x <= p->x && all[i].y >= p->y &&
            (all[i].x < p->x || all[i].y > p->y))
            return 1;
    return 0;
}

/* x of each point: cost per case when every cost is known, else tokens. */
static int points(struct pt *p, const up_report_batch *b)
{
    int cost = 1;

    for (size_t i = 0; i < b->nmodels; i++)
        cost = cost && b->models[i].cost[0] >= 0 && b->models[i].cost[1] >= 0;
    for (size_t i = 0; i < 2 * b->nmodels; i++) {
        const up_report_model *m = &b->models[i / 2];
        int s = (int)(i % 2);
        size_t t = up_report_trials(m, b->ncases, s);

        p[i].m = i / 2;
        p[i].skill = s;
        p[i].y = s ? m->cmp.skill.rate : m->cmp.base.rate;
        p[i].x = (cost ? m->cost[s] : m->tokens[s]) / (double)(t ? t : 1);
    }
    return cost;
}

static void pareto_desc(up_buf *out, const struct pt *p, size_t n,
                        const up_report_batch *b, int cost)
{
    for (size_t i = 0; i < n; i++) {
        up_report_esc(out, b->models[p[i].m].model);
        up_buf_addf(out, " %s: %.0f%% at %s%.6g per case%s. ",
                    p[i].skill ? "with skill" : "baseline", p[i].y * 100,
                    cost ? "$" : "", p[i].x * (cost ? 1 : 1),
                    dominated(&p[i], p, n) ? "" : " (on the Pareto frontier)");
    }
}

static int cmp_x(const void *a, const void *b)
{
    const struct pt *p = a, *q = b;

    return (p->x > q->x) - (p->x < q->x);
}

static void pareto_draw(up_buf *out, struct pt *p, size_t n, double xmax, int h,
                        const up_report_batch *b)
{
    const char *sep = "";

    qsort(p, n, sizeof(*p), cmp_x);
    up_buf_adds(out, "<polyline class=\"front\" points=\"");
    for (size_t i = 0; i < n; i++)
        if (!dominated(&p[i], p, n)) {
            up_buf_addf(out, "%s%.1f,%.1f", sep, xpos(p[i].x, 0, xmax),
                        (h - 30) - p[i].y * (h - 50));
            sep = " ";
        }
    up_buf_adds(out, "\"/>");
    for (size_t i = 0; i < n; i++) {
        double x = xpos(p[i].x, 0, xmax), y = (h - 30) - p[i].y * (h - 50);
        int right = x > (LEFT + W - RIGHT) / 2.0;

        up_buf_addf(out,
                    "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" "
                    "r=\"6\"/><text class=\"val\" x=\"%.1f\" y=\"%.1f\" "
                    "text-anchor=\"%s\">",
                    p[i].skill ? "skill" : "base", x, y,
                    right ? x - 10 : x + 10, y - 8, right ? "end" : "start");
        up_report_esc(out, b->models[p[i].m].model);
        up_buf_addf(out, " (%s)</text>", p[i].skill ? "skill" : "base");
    }
}

void up_report_svg_pareto(up_buf *out, const up_report_batch *b, size_t bi)
{
    size_t n = 2 * b->nmodels;
    struct pt *p = up_xcalloc(n ? n : 1, sizeof(*p));
    int cost = points(p, b), h = 260;
    double xmax = 0;
    up_buf id = UP_BUF_INIT;

    for (size_t i = 0; i < n; i++)
        xmax = fmax(xmax, p[i].x);
    xmax = xmax > 0 ? xmax * 1.15 : 1;
    up_buf_addf(&id, "pareto-%zu", bi);
    svg_open(out, h,
             cost ? "Pass rate against cost per case, Pareto frontier marked"
                  : "Pass rate against tokens per case (no prices), Pareto "
                    "frontier marked",
             id.data);
    pareto_desc(out, p, n, b, cost);
    up_buf_adds(out, "</desc>");
    up_buf_addf(out,
                "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
                "<text class=\"tick\" x=\"%d\" y=\"%d\">%s per case (0 to "
                "%.4g)</text><text class=\"tick\" x=\"%d\" y=\"24\" "
                "text-anchor=\"end\">pass rate 100%%</text>"
                "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">"
                "0%%</text>",
                LEFT, h - 30, W - RIGHT, h - 30, LEFT, h - 10,
                cost ? "cost (USD)" : "tokens", xmax, LEFT - 8, LEFT - 8,
                h - 30);
    pareto_draw(out, p, n, xmax, h, b);
    up_buf_adds(out, "</svg>");
    up_buf_release(&id);
    free(p);
}
