/*
 * Shared terminal rendering: upstream's 20-cell bars and percentages,
 * lift and token-change strings, thousands separators.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Round half to even, as Python's round(). */
static long round_even(double x)
{
    double r = nearbyint(x);

    return (long)r;
}

void render_bar(FILE *fp, double v)
{
    long filled;

    if (!(v >= 0))
        v = 0;
    if (v > 1)
        v = 1;
    filled = round_even(v * 20);
    for (long i = 0; i < 20; i++)
        fputs(i < filled ? "\u2588" : "\u2591", fp);
}

void render_pct(char *out, size_t n, double v)
{
    snprintf(out, n, "%ld%%", round_even(v * 100));
}

void render_lift(char *out, size_t n, double lift)
{
    long p = round_even(lift * 100);

    snprintf(out, n, "%s%ld%%", p >= 0 ? "+" : "", p);
}

const char *render_ci(char *out, size_t n, const up_paired *l, double margin)
{
    char lo[UP_STATS_FMT_LEN], hi[UP_STATS_FMT_LEN];

    snprintf(out, n, "[%s, %s]",
             up_stats_fmt_bound(lo, sizeof(lo), l->ci_lo, margin),
             up_stats_fmt_bound(hi, sizeof(hi), l->ci_hi, margin));
    return out;
}

void render_arm_errors(const char *name, const up_arm_totals *t)
{
    if (t->errors)
        printf("  %s%s: %zu of %zu conversations errored, excluded from "
               "the rates and the verdict (the provider's or the host's "
               "errors, outside the student's reach)%s\n",
               out_c(C_YELLOW), name, t->errors, t->jobs, out_c(C_RESET));
    if (t->outgrew)
        printf("  %s%s: %zu of %zu conversations failed: %s (counted as "
               "failures)%s\n",
               out_c(C_YELLOW), name, t->outgrew, t->jobs,
               up_strerror(UP_ECONTEXT), out_c(C_RESET));
    if (t->own_failed)
        printf("  %s%s: %zu of %zu conversations failed by the student's "
               "own doing: its CLI exited non-zero, broke a limit or ran "
               "over its wall clock (counted as failures)%s\n",
               out_c(C_YELLOW), name, t->own_failed, t->jobs, out_c(C_RESET));
}

void render_thousands(char *out, size_t n, long v)
{
    char tmp[32];
    size_t len, j = 0;
    int neg = v < 0;

    snprintf(tmp, sizeof(tmp), "%ld", neg ? -v : v);
    len = strlen(tmp);
    if (neg && j + 1 < n)
        out[j++] = '-';
    for (size_t i = 0; i < len && j + 1 < n; i++) {
        if (i && (len - i) % 3 == 0 && j + 2 < n)
            out[j++] = ',';
        out[j++] = tmp[i];
    }
    out[j] = '\0';
}

void render_arm(FILE *fp, const char *label, double rate, const char *tail)
{
    char pct[16];

    render_pct(pct, sizeof(pct), rate);
    fprintf(fp, "  %-10s ", label);
    render_bar(fp, rate);
    fprintf(fp, "  %5s%s\n", pct, tail ? tail : "");
}

/* Columns a string takes: UTF-8 code points, escape sequences skipped. */
static size_t visible_width(const char *s)
{
    size_t w = 0;

    while (*s) {
        if (*s == '\033') {
            while (*s && *s != 'm')
                s++;
            if (*s)
                s++;
            continue;
        }
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
        s++;
    }
    return w;
}

static void rule(FILE *fp, const size_t *w, size_t ncols, const char *l,
                 const char *m, const char *r)
{
    fputs(l, fp);
    for (size_t c = 0; c < ncols; c++) {
        for (size_t i = 0; i < w[c] + 2; i++)
            fputs("\u2500", fp);
        fputs(c + 1 < ncols ? m : r, fp);
    }
    fputc('\n', fp);
}

static void row(FILE *fp, const char *const *cells, const size_t *w,
                size_t ncols)
{
    fputs("\u2502", fp);
    for (size_t c = 0; c < ncols; c++) {
        size_t pad = w[c] - visible_width(cells[c]);

        fprintf(fp, " %s%*s \u2502", cells[c], (int)pad, "");
    }
    fputc('\n', fp);
}

void render_table(FILE *fp, const char *const *head, const char *const *cells,
                  size_t ncols, size_t nrows)
{
    size_t *w = calloc(ncols, sizeof(*w));

    if (!w)
        abort();
    for (size_t c = 0; c < ncols; c++) {
        w[c] = visible_width(head[c]);
        for (size_t r = 0; r < nrows; r++) {
            size_t v = visible_width(cells[r * ncols + c]);

            w[c] = v > w[c] ? v : w[c];
        }
    }
    rule(fp, w, ncols, "\u250c", "\u252c", "\u2510");
    row(fp, head, w, ncols);
    rule(fp, w, ncols, "\u251c", "\u253c", "\u2524");
    for (size_t r = 0; r < nrows; r++)
        row(fp, cells + r * ncols, w, ncols);
    rule(fp, w, ncols, "\u2514", "\u2534", "\u2518");
    free(w);
}
