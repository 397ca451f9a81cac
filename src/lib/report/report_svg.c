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

/*
 * Each chart is drawn twice: wide (720 units, the model names left of the
 * rows) and narrow (360 units, each name above its row, for a phone's
 * width); the page's CSS shows one (.cw / .cn, by a media query), and
 * either scales to the width (viewBox, width 100%), its text >= 10 px.
 */
struct geo {
    int w, left, right, row; /* width, plot's left and right margins */
    int above;               /* 1: names above the rows (narrow) */
    int leg2;                /* x of the second legend entry */
    const char *cls;         /* "w" or "n": CSS .chart.w, box .cw */
};

static const struct geo geo_wide = {720, 220, 60, 34, 0, 118, "w"};
static const struct geo geo_narrow = {360, 12, 40, 50, 1, 180, "n"};
static const struct geo *const geos[] = {&geo_wide, &geo_narrow};

static double xpos(const struct geo *g, double v, double lo, double hi)
{
    return g->left + (v - lo) / (hi - lo) * (g->w - g->left - g->right);
}

/* The chart's box and <svg>; id gets the variant's suffix (wide: none). */
static void svg_open(up_buf *out, const struct geo *g, int h, const char *title,
                     const char *id)
{
    const char *sfx = g->above ? "-n" : "";

    up_buf_addf(out,
                "<div class=\"scroll c%s\"><svg class=\"chart %s\" "
                "role=\"img\" viewBox=\"0 0 %d %d\" "
                "width=\"%d\" height=\"%d\" aria-labelledby=\"%s%s-t "
                "%s%s-d\"><title id=\"%s%s-t\">",
                g->cls, g->cls, g->w, h, g->w, h, id, sfx, id, sfx, id, sfx);
    up_report_esc(out, title);
    up_buf_addf(out, "</title><desc id=\"%s%s-d\">", id, sfx);
}

static void axis(up_buf *out, const struct geo *g, int y0, int y1, double lo,
                 double hi, double step, const char *unit)
{
    for (double v = lo; v <= hi + 1e-9; v += step) {
        double x = xpos(g, v, lo, hi);

        up_buf_addf(out,
                    "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
                    "y2=\"%d\"/><text class=\"tick\" x=\"%.1f\" y=\"%d\" "
                    "text-anchor=\"middle\">%s%.0f%s</text>",
                    x, y0, x, y1, x, y1 + 14, lo < 0 && v > 0 ? "+" : "",
                    v * 100, unit);
    }
}

#define NAME_SHOWN 28 /* bytes of a model name beside a chart row */

/* A model's name left of its row (narrow: above it), cut to fit (the
 * whole in a title); y0 is the row's top. */
static void label(up_buf *out, const struct geo *g, int y0, const char *s)
{
    up_buf_addf(out,
                "<text class=\"lab\" x=\"%d\" y=\"%d\" "
                "text-anchor=\"%s\"><title>",
                g->above ? g->left : g->left - 8, y0 + (g->above ? 12 : 16),
                g->above ? "start" : "end");
    up_report_esc(out, s);
    up_buf_adds(out, "</title>");
    up_report_esc_cut(out, s, NAME_SHOWN);
    up_buf_adds(out, "</text>");
}

/* Where a row's marks start below its top: under the name when above. */
static int marks_at(const struct geo *g)
{
    return g->above ? 22 : 0;
}

static void bar(up_buf *out, const struct geo *g, int y, const up_rate *r,
                const char *cls)
{
    double x0 = xpos(g, 0, 0, 1);

    up_buf_addf(out,
                "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                "height=\"11\"/><line class=\"ci\" x1=\"%.1f\" y1=\"%d\" "
                "x2=\"%.1f\" y2=\"%d\"/><text class=\"val\" x=\"%.1f\" "
                "y=\"%d\">%.0f%%</text>",
                cls, x0, y, xpos(g, r->rate, 0, 1) - x0, xpos(g, r->lo, 0, 1),
                y + 5, xpos(g, r->hi, 0, 1), y + 5, xpos(g, r->hi, 0, 1) + 4,
                y + 10, r->rate * 100);
}

/* An arm not measured: no bar, no point; its words where it would be. */
static void unmeasured(up_buf *out, const struct geo *g, int y,
                       const up_report_model *m, int s)
{
    up_buf_addf(out, "<text class=\"nm\" x=\"%d\" y=\"%d\">", g->left + 4, y);
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

static void rates_one(up_buf *out, const struct geo *g,
                      const up_report_batch *b, const char *id)
{
    int leg = g->above ? 18 : 0; /* narrow: the legend below the ticks */
    int h = (int)b->nmodels * g->row + 40 + leg;

    svg_open(out, g, h, "Pass rate per model, baseline and with skill", id);
    for (size_t i = 0; i < b->nmodels; i++)
        rates_desc(out, b, &b->models[i]);
    up_buf_adds(out, "</desc>");
    axis(out, g, 4, h - 24 - leg, 0, 1, 0.25, "%");
    up_buf_addf(out,
                "<rect class=\"base\" x=\"%d\" y=\"%d\" width=\"10\" "
                "height=\"10\"/><text x=\"%d\" y=\"%d\">",
                8, h - 20, 22, h - 11);
    up_report_esc(out, up_report_arm(b, 0));
    up_buf_addf(out,
                "</text><rect class=\"skill\" x=\"%d\" y=\"%d\" "
                "width=\"10\" height=\"10\"/><text x=\"%d\" y=\"%d\">",
                g->leg2, h - 20, g->leg2 + 14, h - 11);
    up_report_esc(out, up_report_arm(b, 1));
    up_buf_adds(out, "</text>");
    for (size_t i = 0; i < b->nmodels; i++) {
        const up_report_model *m = &b->models[i];
        int y0 = 8 + (int)i * g->row, y = y0 + marks_at(g);

        label(out, g, y0, m->model);
        for (int s = 0; s < 2; s++)
            if (up_report_measured(b, m, s))
                bar(out, g, y + 13 * s, s ? &m->cmp.skill : &m->cmp.base,
                    s ? "skill" : "base");
            else
                unmeasured(out, g, y + 13 * s + 10, m, s);
    }
    up_buf_adds(out, "</svg></div>");
}

void up_report_svg_rates(up_buf *out, const up_report_batch *b, size_t bi)
{
    up_buf id = UP_BUF_INIT;

    up_buf_addf(&id, "rates-%zu", bi);
    for (size_t k = 0; k < sizeof(geos) / sizeof(geos[0]); k++)
        rates_one(out, geos[k], b, id.data);
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
static void margin_band(up_buf *out, const struct geo *g, double margin,
                        int bottom)
{
    double x0 = xpos(g, -margin, -1, 1), x1 = xpos(g, margin, -1, 1);

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

/* One model's marker: its interval, point and lift, verdict-coloured. */
static void forest_mark(up_buf *out, const struct geo *g, int y,
                        const up_report_model *m)
{
    const up_paired *l = &m->cmp.lift;
    char fd[UP_STATS_FMT_LEN];

    up_buf_addf(out, "<g class=\"v-%s\">",
                verdict_class[m->cmp.verdict % UP_VERDICT_COUNT]);
    up_buf_addf(out,
                "<line class=\"ci\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
                "y2=\"%d\"/><rect class=\"pt\" x=\"%.1f\" y=\"%d\" "
                "width=\"9\" height=\"9\"/><text class=\"val\" x=\"%.1f\" "
                "y=\"%d\">%s</text>",
                xpos(g, l->ci_lo, -1, 1), y, xpos(g, l->ci_hi, -1, 1), y,
                xpos(g, l->diff, -1, 1) - 4.5, y - 4,
                xpos(g, l->diff, -1, 1) - 8, y - 7,
                up_stats_fmt_bound(fd, sizeof(fd), l->diff, m->cmp.margin));
    up_buf_adds(out, "</g>");
}

static void forest_one(up_buf *out, const struct geo *g,
                       const up_report_batch *b, const char *id)
{
    int h = (int)b->nmodels * g->row + 40;

    svg_open(out, g, h,
             b->arm_name[0] ? "Lift of B over A per model (forest plot)"
                            : "Lift of the skill per model (forest plot)",
             id);
    forest_desc(out, b);
    margin_band(out, g, b->margin, h - 24);
    axis(out, g, 4, h - 24, -1, 1, 0.5, "");
    up_buf_addf(out,
                "<line class=\"ci\" x1=\"%.1f\" y1=\"4\" x2=\"%.1f\" "
                "y2=\"%d\" stroke-dasharray=\"2 3\"/>",
                xpos(g, 0, -1, 1), xpos(g, 0, -1, 1), h - 24);
    for (size_t i = 0; i < b->nmodels; i++) {
        int y0 = 8 + (int)i * g->row, y = y0 + marks_at(g) + 12;

        label(out, g, y0, b->models[i].model);
        if (!b->models[i].cmp.paired) { /* no marker: nothing measured */
            up_buf_addf(out,
                        "<text class=\"nm\" x=\"%d\" y=\"%d\">not "
                        "measured: no case answered in both arms</text>",
                        g->left + 4, y + 4);
            continue;
        }
        forest_mark(out, g, y, &b->models[i]);
    }
    up_buf_adds(out, "</svg></div>");
}

void up_report_svg_forest(up_buf *out, const up_report_batch *b, size_t bi)
{
    up_buf id = UP_BUF_INIT;

    up_buf_addf(&id, "forest-%zu", bi);
    for (size_t k = 0; k < sizeof(geos) / sizeof(geos[0]); k++)
        forest_one(out, geos[k], b, id.data);
    up_buf_release(&id);
}

/* The cost chart: pass rate against cost (or tokens) per answered case
 * on a log axis, each point labelled in a column right of the plot (one
 * row per point, sorted by height, so labels never overlap), joined to
 * its point by a thin line. */
#define PX0    80 /* plot area, x (wide) */
#define PX1    440
#define LABX   470 /* the label column (wide) */
#define NPX0   56  /* plot area, x (narrow: the labels listed below it) */
#define NPX1   310
#define NPH    260 /* narrow: the plot's height above the list */
#define LROW   15  /* its row height */
#define LCHARS 34  /* characters of a label shown (the whole in a title) */
#define NCHARS 44  /* narrow: of a label in the list below the plot */

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
    int x0, x1;    /* the plot area's left and right */
    int narrow;    /* 1: decade ticks alone, at most 5 */
};

static double lx(const struct logax *a, double v)
{
    double l = v > 0 ? log10(v) : a->lo; /* 0 sits at the left end */

    return a->x0 + (l - a->lo) / (a->hi - a->lo) * (a->x1 - a->x0);
}

static struct logax log_range(const struct pt *p, size_t n, int narrow)
{
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    struct logax a = {0, 0, narrow ? NPX0 : PX0, narrow ? NPX1 : PX1, narrow};

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

/* Ticks at each decade, and at 2 and 5 times it over a short range
 * (labelled over one decade alone: over two, their values would
 * overlap); narrow: at every decade, or every k-th, so that at most 5
 * fit. */
static void log_ticks(up_buf *out, const struct logax *a, int bottom, int cost)
{
    static const double sub[] = {1, 2, 5};
    int few = !a->narrow && a->hi - a->lo <= 2;
    double step = a->narrow ? ceil((a->hi - a->lo) / 4) : 1;

    for (double d = a->lo; d <= a->hi + 1e-9; d += step)
        for (size_t k = 0; k < (few ? 3u : 1u); k++) {
            double v = sub[k] * pow(10, d), x = lx(a, v);

            if (x > a->x1 + 0.5)
                break;
            up_buf_addf(out,
                        "<line class=\"grid\" x1=\"%.1f\" y1=\"20\" "
                        "x2=\"%.1f\" y2=\"%d\"/>",
                        x, x, bottom);
            if (k && a->hi - a->lo > 1)
                continue;
            up_buf_addf(out,
                        "<text class=\"tick\" x=\"%.1f\" y=\"%d\" "
                        "text-anchor=\"middle\">",
                        x, bottom + 14);
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

/* Narrow: each point numbered beside it, and listed below the plot
 * from top, one row per point (its number, name and arm). */
static void point_list(up_buf *out, const struct pt *p, size_t n, int top,
                       const up_report_batch *b)
{
    for (size_t i = 0; i < n; i++) {
        up_buf full = UP_BUF_INIT;
        int y = top + (int)i * LROW;

        up_buf_addf(&full, "%s (%s)", b->models[p[i].m].model,
                    b->arm_name[p[i].skill] ? b->arm_name[p[i].skill]
                    : p[i].skill            ? "skill"
                                            : "base");
        up_buf_addf(out,
                    "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">%zu</text>"
                    "<circle class=\"%s\" cx=\"14\" cy=\"%d\" r=\"4\"/>"
                    "<text class=\"val\" x=\"24\" y=\"%d\"><title>",
                    p[i].lxp + 8, p[i].sy - 6, i + 1,
                    p[i].skill ? "skill" : "base", y - 4, y);
        up_report_esc(out, full.data);
        up_buf_addf(out, "</title>%zu ", i + 1);
        up_report_esc_cut(out, full.data, NCHARS);
        up_buf_adds(out, "</text>");
        up_buf_release(&full);
    }
}

/* The points, the frontier and their labels; h is the plot's height
 * (narrow: the list starts at list). */
static void pareto_draw(up_buf *out, struct pt *p, size_t n,
                        const struct logax *a, int h, int list,
                        const up_report_batch *b)
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
    if (a->narrow) {
        point_list(out, p, n, list, b);
        return;
    }
    place_labels(p, n, 24, h - 40);
    for (size_t i = 0; i < n; i++)
        point_label(out, &p[i], b);
}

/* Why the chart shows tokens: the models without a price, named (narrow:
 * on three lines, each name cut). */
static void no_price_note(up_buf *out, const up_report_batch *b, int y,
                          int narrow)
{
    size_t k = 0;

    up_buf_addf(out,
                "<text class=\"tick\" x=\"%d\" y=\"%d\">tokens, not cost: "
                "no price configured for %s",
                8, y, narrow ? "</text><text class=\"tick\" x=\"8\" y=\"" : "");
    if (narrow)
        up_buf_addf(out, "%d\">", y + 16);
    for (size_t i = 0; i < b->nmodels; i++)
        if (b->models[i].cost[0] < 0 || b->models[i].cost[1] < 0) {
            if (k++ == 3) {
                up_buf_adds(out, ", …");
                break;
            }
            up_buf_adds(out, k > 1 ? ", " : "");
            if (narrow)
                up_report_esc_cut(out, b->models[i].model, 12);
            else
                up_report_esc(out, b->models[i].model);
        }
    if (narrow)
        up_buf_addf(out, "</text><text class=\"tick\" x=\"8\" y=\"%d\">",
                    y + 32);
    up_buf_adds(out, narrow ? "(prices: in the config)</text>"
                            : " (prices: in the config)</text>");
}

static void pareto_one(up_buf *out, int narrow, const up_report_batch *b,
                       const char *id)
{
    struct pt *p = up_xcalloc(2 * b->nmodels + 1, sizeof(*p));
    int cost = all_priced(b);
    size_t n = points(p, b, cost);
    int h = narrow ? NPH : 80 + (int)(n > 12 ? n : 12) * LROW;
    int note = cost ? 0 : narrow ? 48 : 16, list = h + note + 12;
    int total = narrow ? list + (int)n * LROW : h + note;
    struct logax a = log_range(p, n, narrow);

    svg_open(out, geos[narrow], total,
             cost ? "Pass rate against cost per case (log scale), Pareto "
                    "frontier marked"
                  : "Pass rate against tokens per case (log scale; not "
                    "cost: a price is missing), Pareto frontier marked",
             id);
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
                a.x0, h - 40, a.x1, h - 40, a.x0, h - 8,
                cost ? "cost (USD)" : "tokens", a.x0 - 6, a.x0 - 6,
                (h - 40 + 20) / 2 + 4, a.x0 - 6, h - 36);
    if (!cost)
        no_price_note(out, b, h + 8, narrow);
    pareto_draw(out, p, n, &a, h, list, b);
    up_buf_adds(out, "</svg></div>");
    free(p);
}

void up_report_svg_pareto(up_buf *out, const up_report_batch *b, size_t bi)
{
    up_buf id = UP_BUF_INIT;

    up_buf_addf(&id, "pareto-%zu", bi);
    pareto_one(out, 0, b, id.data);
    pareto_one(out, 1, b, id.data);
    up_buf_release(&id);
}
