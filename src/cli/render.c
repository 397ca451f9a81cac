/*
 * Shared terminal rendering: upstream's 20-cell bars and percentages,
 * lift and token-change strings, thousands separators.
 */
#include <math.h>
#include <stdio.h>
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
