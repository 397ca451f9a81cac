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
                "<div class=\"scroll\"><svg class=\"chart\" role=\"img\" "
                "viewBox=\"0 0 %d %d\" "
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

#define NAME_SHOWN 28 /* bytes of a model name left of a chart */

/* A model's name left of its row, cut to fit (the whole in a title). */
static void label(up_buf *out, int y, const char *s)
{
    up_buf_addf(out,
                "<text class=\"lab\" x=\"%d\" y=\"%d\" "
                "text-anchor=\"end\"><title>",
                LEFT - 8, y);
    up_report_esc(out, s);
    up_buf_adds(out, "</title>");
    up_report_esc_cut(out, s, NAME_SHOWN);
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

/* An arm not measured: no bar, no point; its words where it would be. */
static void unmeasured(up_buf *out, int y, const up_report_model *m, int s)
{
    up_buf_addf(out, "<text class=\"nm\" x=\"%d\" y=\"%d\">", LEFT + 4, y);
    up_report_unmeasured(out, m, s);
    up_buf_adds(out, "</text>");
}

static void rates_desc(up_buf *out, const up_report_batch *b,
                       const up_report_model *m)
{
    up_report_esc(out, m->model);
    for (int s = 0; s < 2; s++) {
        const up_rate *r = s ? &m->cmp.skill : &m->cmp.base;

        up_buf_adds(out, s ? ", " : ": ");
        up_report_esc(out, up_report_arm(b, s));
        if (!up_report_measured(b, m, s)) {
            up_buf_adds(out, " ");
            up_report_unmeasured(out, m, s);
        } else {
            up_buf_addf(out, " %.0f%% (95%% interval %.0f-%.0f%%)",
                        r->rate * 100, r->lo * 100, r->hi * 100);
        }
    }
    up_buf_adds(out, ". ");
}

void up_report_svg_rates(up_buf *out, const up_report_batch *b, size_t bi)
{
    int h = (int)b->nmodels * ROW + 40;
    up_buf id = UP_BUF_INIT;

    up_buf_addf(&id, "rates-%zu", bi);
    svg_open(out, h, "Pass rate per model, baseline and with skill", id.data);
    for (size_t i = 0; i < b->nmodels; i++)
        rates_desc(out, b, &b->models[i]);
    up_buf_adds(out, "</desc>");
    axis(out, 4, h - 24, 0, 1, 0.25, "%");
    up_buf_addf(out,
                "<rect class=\"base\" x=\"%d\" y=\"%d\" width=\"10\" "
                "height=\"10\"/><text x=\"%d\" y=\"%d\">",
                8, h - 20, 22, h - 11);
    up_report_esc(out, up_report_arm(b, 0));
    up_buf_addf(out,
                "</text><rect class=\"skill\" x=\"%d\" y=\"%d\" "
                "width=\"10\" height=\"10\"/><text x=\"%d\" y=\"%d\">",
                8 + LEFT / 2, h - 20, 22 + LEFT / 2, h - 11);
    up_report_esc(out, up_report_arm(b, 1));
    up_buf_adds(out, "</text>");
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_report_model *m = &b->models[i];
        int y = 8 + (int)i * ROW;

        label(out, y + 16, m->model);
        for (int s = 0; s < 2; s++)
            if (up_report_measured(b, m, s))
                bar(out, y + 13 * s, s ? &m->cmp.skill : &m->cmp.base,
                    s ? "skill" : "base");
            else
                unmeasured(out, y + 13 * s + 10, m, s);
    }
    up_buf_adds(out, "</svg></div>");
    up_buf_release(&id);
}

/* A marker's colour is its verdict's (CSS .v-NAME). */
static const char *const verdict_class[UP_VERDICT_COUNT] = {
    [UP_VERDICT_NOT_MEASURED] = "none",
    [UP_VERDICT_BENEFICIAL] = "beneficial",
    [UP_VERDICT_HARMFUL] = "harmful",
    [UP_VERDICT_TOKEN_SAVER] = "token_saver",
    [UP_VERDICT_TRADE_OFF] = "trade_off",
    [UP_VERDICT_NO_EFFECT] = "no_effect",
    [UP_VERDICT_INCONCLUSIVE] = "inconclusive",
};

/* The --margin band: lifts inside it are no meaningful effect. */
static void margin_band(up_buf *out, double margin, int bottom)
{
    double x0 = xpos(-margin, -1, 1), x1 = xpos(margin, -1, 1);

    up_buf_addf(out,
                "<rect class=\"band\" x=\"%.1f\" y=\"4\" width=\"%.1f\" "
                "height=\"%d\"><title>no-meaningful-effect margin: "
                "&#177;%g points</title></rect><text class=\"tick\" "
                "x=\"%.1f\" y=\"%d\" text-anchor=\"start\">&#177;%g "
                "margin</text>",
                x0, x1 - x0, bottom - 4, margin * 100, x1 + 3, bottom - 4,
                margin * 100);
}

/* The forest plot's words: the margin, and each model's lift. */
static void forest_desc(up_buf *out, const up_report_batch *b)
{
    up_buf_addf(out,
                "The band is the no-meaningful-effect margin, -%g to +%g "
                "points. ",
                b->margin * 100, b->margin * 100);
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_paired *l = &b->models[i].cmp.lift;
        double m = b->models[i].cmp.margin;
        char fd[UP_STATS_FMT_LEN], fl[UP_STATS_FMT_LEN], fh[UP_STATS_FMT_LEN];

        up_report_esc(out, b->models[i].model);
        if (!b->models[i].cmp.paired) {
            up_buf_adds(out, ": not measured (no case answered in both "
                             "arms). ");
            continue;
        }
        up_buf_addf(out, ": lift %s points, 95%% interval %s to %s, ",
                    up_stats_fmt_bound(fd, sizeof(fd), l->diff, m),
                    up_stats_fmt_bound(fl, sizeof(fl), l->ci_lo, m),
                    up_stats_fmt_bound(fh, sizeof(fh), l->ci_hi, m));
        up_report_esc(out,
                      up_report_verdict_label(b, b->models[i].cmp.verdict));
        up_buf_adds(out, ". ");
    }
    up_buf_adds(out, "</desc>");
}

void up_report_svg_forest(up_buf *out, const up_report_batch *b, size_t bi)
{
    int h = (int)b->nmodels * ROW + 40;
    up_buf id = UP_BUF_INIT;

    up_buf_addf(&id, "forest-%zu", bi);
    svg_open(out, h,
             b->arm_name[0] ? "Lift of B over A per model (forest plot)"
                            : "Lift of the skill per model (forest plot)",
             id.data);
    forest_desc(out, b);
    margin_band(out, b->margin, h - 24);
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
        if (!b->models[i].cmp.paired) { /* no marker: nothing measured */
            up_buf_addf(out,
                        "<text class=\"nm\" x=\"%d\" y=\"%d\">not "
                        "measured: no case answered in both arms</text>",
                        LEFT + 4, y + 4);
            continue;
        }
        up_buf_addf(out, "<g class=\"v-%s\">",
                    verdict_class[b->models[i].cmp.verdict % UP_VERDICT_COUNT]);
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
        up_buf_adds(out, "</g>");
    }
    up_buf_adds(out, "</svg></div>");
    up_buf_release(&id);
}

/* The cost chart: pass rate against cost (or tokens) per answered case
 * on a log axis, each point labelled in a column right of the plot (one
 * row per point, sorted by height, so labels never overlap), joined to
 * its point by a thin line. */
#define PX0    80 /* plot area, x */
#define PX1    440
#define LABX   470 /* the label column */
#define LROW   15  /* its row height */
#define LCHARS 34  /* characters of a label shown (the whole in a title) */

/* One point of the cost chart: a measured model and arm. */
struct pt {
    double x, y; /* per case; pass rate */
    size_t m;
    int skill;
    double lxp, sy, ly; /* screen x and y of the point, y of its label */
};

static int dominated(const struct pt *p, const struct pt *all, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (all[i].x <= p->x && all[i].y >= p->y &&
            (all[i].x < p->x || all[i].y > p->y))
            return 1;
    return 0;
}

/* Cost is drawn when every measured arm has a price, else tokens. */
static int all_priced(const up_report_batch *b)
{
    for (size_t i = 0; i < 2 * b->nmodels; i++)
        if (up_report_measured(b, &b->models[i / 2], (int)(i % 2)) &&
            b->models[i / 2].cost[i % 2] < 0)
            return 0;
    return 1;
}

/* The measured arms' points; returns how many.  An arm that answered
 * nothing has no point (it is not a point at $0). */
static size_t points(struct pt *p, const up_report_batch *b, int cost)
{
    size_t n = 0;

    for (size_t i = 0; i < 2 * b->nmodels; i++) {
        const up_report_model *m = &b->models[i / 2];
        int s = (int)(i % 2);
        size_t t = up_report_trials(m, b->ncases, s);

        if (!t)
            continue;
        p[n].m = i / 2;
        p[n].skill = s;
        p[n].y = s ? m->cmp.skill.rate : m->cmp.base.rate;
        p[n].x = (cost ? m->cost[s] : m->tokens[s]) / (double)t;
        n++;
    }
    return n;
}

/* The log axis: whole decades around the positive values. */
struct logax {
    double lo, hi; /* log10 of the ends */
};

static double lx(const struct logax *a, double v)
{
    double l = v > 0 ? log10(v) : a->lo; /* 0 sits at the left end */

    return PX0 + (l - a->lo) / (a->hi - a->lo) * (PX1 - PX0);
}

static struct logax log_range(const struct pt *p, size_t n)
{
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    struct logax a;

    for (size_t i = 0; i < n; i++)
        if (p[i].x > 0) {
            lo = fmin(lo, log10(p[i].x));
            hi = fmax(hi, log10(p[i].x));
        }
    if (lo > hi)
        lo = hi = 0;
    a.lo = floor(lo);
    a.hi = ceil(hi);
    if (a.hi <= a.lo)
        a.hi = a.lo + 1;
    if (a.hi - a.lo > 12) /* a wilder range is clipped on the left */
        a.lo = a.hi - 12;
    return a;
}

static void tick_value(up_buf *out, double v, int cost)
{
    if (cost)
        up_report_usd(out, v);
    else
        up_buf_addf(out, "%g", v);
}

/* Ticks at each decade, and at 2 and 5 times it over a short range. */
static void log_ticks(up_buf *out, const struct logax *a, int bottom, int cost)
{
    static const double sub[] = {1, 2, 5};
    int few = a->hi - a->lo <= 2;

    for (double d = a->lo; d <= a->hi + 1e-9; d++)
        for (size_t k = 0; k < (few ? 3u : 1u); k++) {
            double v = sub[k] * pow(10, d), x = lx(a, v);

            if (x > PX1 + 0.5)
                break;
            up_buf_addf(out,
                        "<line class=\"grid\" x1=\"%.1f\" y1=\"20\" "
                        "x2=\"%.1f\" y2=\"%d\"/><text class=\"tick\" "
                        "x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
                        x, x, bottom, x, bottom + 14);
            tick_value(out, v, cost);
            up_buf_adds(out, "</text>");
        }
}

static void pareto_desc(up_buf *out, const struct pt *p, size_t n,
                        const up_report_batch *b, int cost)
{
    for (size_t i = 0; i < n; i++) {
        up_report_esc(out, b->models[p[i].m].model);
        up_buf_adds(out, " ");
        up_report_esc(out, up_report_arm(b, p[i].skill));
        up_buf_addf(out, ": %.0f%% at ", p[i].y * 100);
        tick_value(out, p[i].x, cost);
        up_buf_addf(out, "%s per case%s. ", cost ? "" : " tokens",
                    dominated(&p[i], p, n) ? "" : " (on the Pareto frontier)");
    }
    for (size_t i = 0; i < 2 * b->nmodels; i++)
        if (!up_report_measured(b, &b->models[i / 2], (int)(i % 2))) {
            up_report_esc(out, b->models[i / 2].model);
            up_buf_adds(out, " ");
            up_report_esc(out, up_report_arm(b, (int)(i % 2)));
            up_buf_adds(out, ": no point, ");
            up_report_unmeasured(out, &b->models[i / 2], (int)(i % 2));
            up_buf_adds(out, ". ");
        }
}

static int cmp_x(const void *a, const void *b)
{
    const struct pt *p = a, *q = b;

    return (p->x > q->x) - (p->x < q->x);
}

static int cmp_sy(const void *a, const void *b)
{
    const struct pt *p = a, *q = b;

    return (p->sy > q->sy) - (p->sy < q->sy);
}

/* Label rows: each at its point's height, pushed down to keep LROW
 * apart, then up again where the column ran past the bottom. */
static void place_labels(struct pt *p, size_t n, double top, double bottom)
{
    qsort(p, n, sizeof(*p), cmp_sy);
    for (size_t i = 0; i < n; i++)
        p[i].ly = fmax(p[i].sy + 4, i ? p[i - 1].ly + LROW : top);
    for (size_t i = n; i-- > 0;)
        p[i].ly = fmin(p[i].ly, i + 1 < n ? p[i + 1].ly - LROW : bottom);
}

static void point_label(up_buf *out, const struct pt *p,
                        const up_report_batch *b)
{
    up_buf full = UP_BUF_INIT;

    up_buf_addf(&full, "%s (%s)", b->models[p->m].model,
                b->arm_name[p->skill] ? b->arm_name[p->skill]
                : p->skill            ? "skill"
                                      : "base");
    up_buf_addf(out,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%d\" "
                "y2=\"%.1f\"/><circle class=\"%s\" cx=\"%d\" cy=\"%.1f\" "
                "r=\"4\"/><text class=\"val\" x=\"%d\" y=\"%.1f\"><title>",
                p->lxp, p->sy, LABX - 2, p->ly - 4, p->skill ? "skill" : "base",
                LABX + 4, p->ly - 4, LABX + 12, p->ly);
    up_report_esc(out, full.data);
    up_buf_adds(out, "</title>");
    up_report_esc_cut(out, full.data, LCHARS);
    up_buf_adds(out, "</text>");
    up_buf_release(&full);
}

static void pareto_draw(up_buf *out, struct pt *p, size_t n,
                        const struct logax *a, int h, const up_report_batch *b)
{
    const char *sep = "";

    qsort(p, n, sizeof(*p), cmp_x);
    for (size_t i = 0; i < n; i++) {
        p[i].lxp = lx(a, p[i].x);
        p[i].sy = (h - 40) - p[i].y * (h - 60);
    }
    up_buf_adds(out, "<polyline class=\"front\" points=\"");
    for (size_t i = 0; i < n; i++)
        if (!dominated(&p[i], p, n)) {
            up_buf_addf(out, "%s%.1f,%.1f", sep, p[i].lxp, p[i].sy);
            sep = " ";
        }
    up_buf_adds(out, "\"/>");
    for (size_t i = 0; i < n; i++)
        up_buf_addf(out,
                    "<circle class=\"%s pt-%s\" cx=\"%.1f\" cy=\"%.1f\" "
                    "r=\"6\"/>",
                    p[i].skill ? "skill" : "base",
                    dominated(&p[i], p, n) ? "in" : "front", p[i].lxp, p[i].sy);
    place_labels(p, n, 24, h - 40);
    for (size_t i = 0; i < n; i++)
        point_label(out, &p[i], b);
}

/* Why the chart shows tokens: the models without a price, named. */
static void no_price_note(up_buf *out, const up_report_batch *b, int y)
{
    size_t k = 0;

    up_buf_addf(out,
                "<text class=\"tick\" x=\"%d\" y=\"%d\">tokens, not cost: "
                "no price configured for ",
                8, y);
    for (size_t i = 0; i < b->nmodels; i++)
        if (b->models[i].cost[0] < 0 || b->models[i].cost[1] < 0) {
            if (k++ == 3) {
                up_buf_adds(out, ", …");
                break;
            }
            up_buf_adds(out, k > 1 ? ", " : "");
            up_report_esc(out, b->models[i].model);
        }
    up_buf_adds(out, " (prices: in the config)</text>");
}

void up_report_svg_pareto(up_buf *out, const up_report_batch *b, size_t bi)
{
    struct pt *p = up_xcalloc(2 * b->nmodels + 1, sizeof(*p));
    int cost = all_priced(b);
    size_t n = points(p, b, cost);
    int h = 80 + (int)(n > 12 ? n : 12) * LROW;
    struct logax a = log_range(p, n);
    up_buf id = UP_BUF_INIT;

    up_buf_addf(&id, "pareto-%zu", bi);
    svg_open(out, h + (cost ? 0 : 16),
             cost ? "Pass rate against cost per case (log scale), Pareto "
                    "frontier marked"
                  : "Pass rate against tokens per case (log scale; not "
                    "cost: a price is missing), Pareto frontier marked",
             id.data);
    pareto_desc(out, p, n, b, cost);
    up_buf_adds(out, "</desc>");
    log_ticks(out, &a, h - 40, cost);
    up_buf_addf(out,
                "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
                "<text class=\"tick\" x=\"%d\" y=\"%d\">%s per answered case "
                "(log scale)</text><text class=\"tick\" x=\"%d\" y=\"24\" "
                "text-anchor=\"end\">100%%</text><text class=\"tick\" "
                "x=\"%d\" y=\"%d\" text-anchor=\"end\">50%%</text>"
                "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">"
                "0%%</text><text class=\"tick\" x=\"8\" y=\"14\">pass rate"
                "</text>",
                PX0, h - 40, PX1, h - 40, PX0, h - 8,
                cost ? "cost (USD)" : "tokens", PX0 - 6, PX0 - 6,
                (h - 40 + 20) / 2 + 4, PX0 - 6, h - 36);
    if (!cost)
        no_price_note(out, b, h + 8);
    pareto_draw(out, p, n, &a, h, b);
    up_buf_adds(out, "</svg></div>");
    up_buf_release(&id);
    free(p);
}
