/*
 * Statistics for skill-lift evaluation (docs/statistics.md).
 *
 * Design: the unit of evidence is the case answered in both arms.  The
 * lift is the mean of the per-case differences d_i = skill_i - base_i of
 * pass rates, and its interval and p-value come from one procedure so
 * that "the interval excludes 0" holds exactly when "p < 0.05": with one
 * run per case, Tango's score interval for paired proportions and the
 * score (McNemar) test it inverts; with several, the t interval and t-test
 * on the d_i, whose variance is floored at the runs' binomial noise so no
 * interval is ever a single point.  The verdict is a table of rules over
 * that interval, the test and the token comparison.
 *
 * Tokens keep the sign-flip permutation test (exact by dynamic
 * programming over integer sums, by enumeration for m <= 20, else seeded
 * Monte Carlo) with a bootstrap interval.  Power is the real power of
 * the lift test: an exact sum over outcomes with one run, a seeded
 * simulation with several.
 *
 * Randomness (bootstrap, Monte Carlo, power simulation) comes from our own
 * xoshiro256** seeded through splitmix64, never rand(), so results are
 * reproducible across libcs.  Every output is finite for every input,
 * including n = 0.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"
#include "upskill/stats.h"

#define ITER_MAX     1000000u   /* cap on caller-chosen iterations */
#define LATTICE_QMAX 1000u      /* largest 1/q grid tried for |d| */
#define LATTICE_TOL  1e-6       /* |d*q - round(d*q)| counted as zero */
#define LATTICE_WORK (1u << 27) /* cap on m * T steps of the DP */
#define NEED_MAX     1e9        /* cap on the cases-needed estimate */
#define MC_STREAM    0x6d6f6e7465636172u /* separates MC from bootstrap */

/* ---- xoshiro256** seeded by splitmix64 (Blackman & Vigna) ---- */

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

__extension__ typedef unsigned __int128 u128;

/*
 * Uniform in [0, n), n > 0, without modulo bias: Lemire's multiply-shift
 * with rejection, which needs a division only in the rare rejection case
 * (the bootstrap draws millions of these).
 */
static size_t rng_below(rng *r, size_t n)
{
    u128 m = (u128)rng_next(r) * n;
    uint64_t low = (uint64_t)m;

    if (low < n) {
        uint64_t t = -(uint64_t)n % n;

        while (low < t) {
            m = (u128)rng_next(r) * n;
            low = (uint64_t)m;
        }
    }
    return (size_t)(m >> 64);
}

/* ---- Wilson ---- */

/* Wilson over a possibly fractional n (an effective sample size). */
static void wilson(double k, double nn, double z, double *lo, double *hi)
{
    double p = k / nn, z2 = z * z, denom = 1.0 + z2 / nn, center, half;

    center = (p + z2 / (2.0 * nn)) / denom;
    half = z / denom * sqrt(p * (1.0 - p) / nn + z2 / (4.0 * nn * nn));
    /* The bounds at the extremes are exactly 0 and 1, not 1e-17 off. */
    *lo = k <= 0.0 ? 0.0 : fmax(0.0, center - half);
    *hi = k >= nn ? 1.0 : fmin(1.0, center + half);
}

void up_stats_wilson(size_t successes, size_t n, double z, double *lo,
                     double *hi)
{
    if (!n) {
        *lo = 0.0;
        *hi = 1.0;
        return;
    }
    if (successes > n)
        successes = n;
    wilson((double)successes, (double)n, z, lo, hi);
}

void up_stats_rate(up_rate *r, size_t successes, size_t trials)
{
    if (successes > trials)
        successes = trials;
    r->successes = successes;
    r->trials = trials;
    r->n_eff = (double)trials;
    r->rate = trials ? (double)successes / (double)trials : 0.0;
    up_stats_wilson(successes, trials, UP_STATS_Z95, &r->lo, &r->hi);
}

/*
 * The ANOVA estimate of the intra-case correlation of pass/fail over
 * cases with k[i] passes of m[i] runs (N runs in all, pooled rate p),
 * clamped to [0, 1]; 1 when nothing varies at all (the cautious side).
 * *m0 gets the average cluster size corrected for unequal sizes.
 */
static double intra_case(const unsigned *k, const unsigned *m, size_t n,
                         double N, double p, double *m0)
{
    double ssb = 0.0, ssw = 0.0, sm2 = 0.0, msb, msw, den;

    for (size_t i = 0; i < n; i++) {
        double pi = (double)k[i] / m[i];

        ssb += m[i] * (pi - p) * (pi - p);
        ssw += k[i] * (1.0 - pi); /* sum of squares within a 0/1 case */
        sm2 += (double)m[i] * m[i];
    }
    *m0 = (N - sm2 / N) / (double)(n - 1);
    msb = ssb / (double)(n - 1);
    msw = ssw / (N - (double)n);
    den = msb + (*m0 - 1.0) * msw;
    if (den <= 0.0)
        return 1.0;
    return fmin(1.0, fmax(0.0, (msb - msw) / den));
}

void up_stats_rate_cases(up_rate *r, const unsigned *k, const unsigned *m,
                         size_t n)
{
    size_t passes = 0, runs = 0;
    double m0, deff;

    for (size_t i = 0; i < n; i++) {
        passes += k[i] < m[i] ? k[i] : m[i];
        runs += m[i];
    }
    up_stats_rate(r, passes, runs);
    if (n < 2 || runs <= n)
        return; /* one case, or one run per case: independent trials */
    deff = 1.0 + (intra_case(k, m, n, (double)runs, r->rate, &m0) * (m0 - 1.0));
    r->n_eff = (double)runs / deff;
    wilson(r->rate * r->n_eff, r->n_eff, UP_STATS_Z95, &r->lo, &r->hi);
}

void up_stats_arm_rate(up_rate *r, const up_stats_case *c, size_t n, int skill)
{
    unsigned *k = up_xcalloc(2 * n + 1, sizeof(*k)), *runs = k + n;
    size_t used = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned m = skill ? c[i].skill_runs : c[i].base_runs;

        if (!m)
            continue;
        k[used] = skill ? c[i].skill_pass : c[i].base_pass;
        runs[used++] = m;
    }
    up_stats_rate_cases(r, k, runs, used);
    free(k);
}

/* ---- sign-flip p-value ---- */

static double sum_abs(const double *d, size_t m)
{
    double t = 0.0;

    for (size_t i = 0; i < m; i++)
        t += fabs(d[i]);
    return t;
}

static double sum_of(const double *d, size_t m)
{
    double t = 0.0;

    for (size_t i = 0; i < m; i++)
        t += d[i];
    return t;
}

/* Tolerance for "as extreme as observed" on real-valued sums. */
static double tie_eps(const double *d, size_t m)
{
    return 1e-9 * sum_abs(d, m) + 1e-12;
}

/*
 * Smallest q <= LATTICE_QMAX putting every |d_i| on the grid k_i / q
 * with k_i >= 1, filling k; 0 when there is none or the DP would cost
 * more than LATTICE_WORK steps.  *total gets sum k_i.
 */
static unsigned lattice_scale(const double *d, size_t m, uint64_t *k,
                              uint64_t *total)
{
    for (unsigned q = 1; q <= LATTICE_QMAX; q++) {
        uint64_t t = 0;
        size_t i;

        for (i = 0; i < m; i++) {
            double x = fabs(d[i]) * q, r = nearbyint(x);

            if (r < 1.0 || fabs(x - r) > LATTICE_TOL || r > LATTICE_WORK)
                break;
            k[i] = (uint64_t)r;
            t += k[i];
        }
        if (i < m)
            continue;
        if (t > LATTICE_WORK / m)
            return 0;
        *total = t;
        return q;
    }
    return 0;
}

/*
 * Exact p by DP: with U the sum of the k_i that get a plus sign, the
 * statistic is 2U - T; prob[u] = P(U = u) over fair independent signs.
 */
static double pvalue_lattice(const uint64_t *k, const double *d, size_t m,
                             uint64_t total)
{
    double *prob = up_xcalloc(total + 1, sizeof(*prob));
    int64_t obs = 0;
    uint64_t reach = 0;
    double p = 0.0;

    for (size_t i = 0; i < m; i++)
        obs += d[i] > 0 ? (int64_t)k[i] : -(int64_t)k[i];
    obs = obs < 0 ? -obs : obs;
    prob[0] = 1.0;
    for (size_t i = 0; i < m; i++) {
        reach += k[i];
        for (uint64_t u = reach; u >= k[i]; u--)
            prob[u] = 0.5 * (prob[u] + prob[u - k[i]]);
        for (uint64_t u = 0; u < k[i]; u++)
            prob[u] *= 0.5;
    }
    for (uint64_t u = 0; u <= total; u++) {
        int64_t s = 2 * (int64_t)u - (int64_t)total;

        if (s >= obs || -s >= obs)
            p += prob[u];
    }
    free(prob);
    return fmin(1.0, p);
}

/* Exact p by visiting all 2^m sign assignments in Gray-code order. */
static double pvalue_enum(const double *d, size_t m)
{
    double *cur = up_xmalloc(m * sizeof(*cur));
    double obs = fabs(sum_of(d, m)) - tie_eps(d, m);
    double s = sum_of(d, m);
    uint64_t count = 1, all = (uint64_t)1 << m;

    memcpy(cur, d, m * sizeof(*cur));
    for (uint64_t g = 1; g < all; g++) {
        unsigned j = 0;

        while (!((g >> j) & 1u))
            j++;
        s -= 2.0 * cur[j];
        cur[j] = -cur[j];
        count += fabs(s) >= obs;
    }
    free(cur);
    return (double)count / (double)all;
}

/* Monte Carlo p with the +1 correction, so it is never 0. */
static double pvalue_mc(const double *d, size_t m, uint64_t seed,
                        unsigned iterations)
{
    double obs = fabs(sum_of(d, m)) - tie_eps(d, m);
    uint64_t count = 0;
    rng r;

    rng_seed(&r, seed ^ MC_STREAM);
    for (unsigned it = 0; it < iterations; it++) {
        double s = 0.0;
        uint64_t bits = 0;

        for (size_t i = 0; i < m; i++) {
            if (i % 64 == 0)
                bits = rng_next(&r);
            s += (bits & 1u) ? d[i] : -d[i];
            bits >>= 1;
        }
        count += fabs(s) >= obs;
    }
    return (double)(count + 1) / (double)(iterations + 1);
}

static unsigned clamp_iter(unsigned iterations)
{
    if (!iterations)
        return UP_STATS_ITER;
    return iterations > ITER_MAX ? ITER_MAX : iterations;
}

/*
 * Bootstrap resamples: as asked, or by default UP_STATS_ITER capped so
 * that resamples x cases stays under UP_STATS_BOOT_WORK (never below
 * UP_STATS_BOOT_MIN): a 1,000-case suite gets 4,000 resamples, plenty for
 * a 95% percentile interval, instead of ten million draws per arm pair.
 */
static unsigned boot_iter(unsigned iterations, size_t n)
{
    size_t cap = n ? UP_STATS_BOOT_WORK / n : UP_STATS_ITER;

    if (iterations)
        return clamp_iter(iterations);
    if (cap < UP_STATS_BOOT_MIN)
        cap = UP_STATS_BOOT_MIN;
    return cap < UP_STATS_ITER ? (unsigned)cap : UP_STATS_ITER;
}

double up_stats_signflip(const double *d, size_t n, uint64_t seed,
                         unsigned iterations, int *method)
{
    double *nz = up_xmalloc((n ? n : 1) * sizeof(*nz));
    uint64_t *k = up_xmalloc((n ? n : 1) * sizeof(*k));
    uint64_t total = 0;
    size_t m = 0;
    int how;
    double p;

    for (size_t i = 0; i < n; i++)
        if (d[i] != 0.0)
            nz[m++] = d[i];
    if (!m) {
        how = UP_P_TRIVIAL;
        p = 1.0;
    } else if (lattice_scale(nz, m, k, &total)) {
        how = UP_P_LATTICE;
        p = pvalue_lattice(k, nz, m, total);
    } else if (m <= UP_STATS_ENUM_MAX) {
        how = UP_P_ENUM;
        p = pvalue_enum(nz, m);
    } else {
        how = UP_P_MONTE_CARLO;
        p = pvalue_mc(nz, m, seed, clamp_iter(iterations));
    }
    if (method)
        *method = how;
    free(nz);
    free(k);
    return p;
}

/* ---- bootstrap ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Quantile q of sorted x[0..n-1], linear interpolation (R's type 7). */
static double quantile(const double *x, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);

    if (lo + 1 >= n)
        return x[n - 1];
    return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}

/* Percentile 95% interval of the mean of d over resampled cases. */
static void bootstrap(up_paired *out, const double *d, size_t n, uint64_t seed,
                      unsigned iterations)
{
    double *means = up_xmalloc(iterations * sizeof(*means));
    rng r;

    rng_seed(&r, seed);
    for (unsigned b = 0; b < iterations; b++) {
        double s = 0.0;

        for (size_t i = 0; i < n; i++)
            s += d[rng_below(&r, n)];
        means[b] = s / (double)n;
    }
    qsort(means, iterations, sizeof(*means), cmp_double);
    out->ci_lo = quantile(means, iterations, 0.025);
    out->ci_hi = quantile(means, iterations, 0.975);
    free(means);
}

/* ---- paired analysis ---- */

static int check_finite(const double *x, size_t n, const char *arm,
                        up_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return up_error_set(err, UP_EINVALID,
                                "stats: %s value for case %zu is not a "
                                "finite number",
                                arm, i);
    return 0;
}

/*
 * a - b, two means of n shares each, or 0 when they differ by no more
 * than the rounding of their sums can (n ulps of 1 each): rates made of
 * counts that are equal print as a lift of exactly 0, not -1e-14, and
 * no real difference of counts is that small.
 */
static double mean_diff(double a, double b, size_t n)
{
    double d = a - b;

    return fabs(d) <= 2.0 * (double)(n + 1) * DBL_EPSILON ? 0.0 : d;
}

/* Means, counts and m2 of the differences, which go into d. */
static void describe(up_paired *out, const double *base, const double *skill,
                     double *d, size_t n)
{
    double sb = 0.0, ss = 0.0, s2 = 0.0;

    for (size_t i = 0; i < n; i++) {
        d[i] = skill[i] - base[i];
        sb += base[i];
        ss += skill[i];
        s2 += d[i] * d[i];
        out->better += d[i] > 0.0;
        out->worse += d[i] < 0.0;
    }
    out->base_mean = sb / (double)n;
    out->skill_mean = ss / (double)n;
    out->diff = mean_diff(out->skill_mean, out->base_mean, n);
    out->m2 = s2 / (double)n;
}

int up_stats_paired(up_paired *out, const double *base, const double *skill,
                    size_t n, uint64_t seed, unsigned iterations, up_error *err)
{
    double *d = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    out->p = 1.0;
    rc = check_finite(base, n, "baseline", err);
    if (!rc)
        rc = check_finite(skill, n, "skill", err);
    if (rc || !n)
        return rc;
    out->n = n;
    d = up_xmalloc(n * sizeof(*d));
    describe(out, base, skill, d, n);
    bootstrap(out, d, n, seed, boot_iter(iterations, n));
    out->p = up_stats_signflip(d, n, seed, iterations, &out->pmethod);
    free(d);
    return 0;
}

/* ---- Student's t and the normal ---- */

/* Continued fraction of the incomplete beta (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;

    d = 1.0 / (fabs(d) < 1e-300 ? 1e-300 : d);
    h = d;
    for (int m = 1; m <= 300; m++) {
        for (int pass = 0; pass < 2; pass++) {
            double aa = pass
                            ? -(a + m) * (a + b + m) * x /
                                  ((a + 2 * m) * (a + 2 * m + 1))
                            : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
            double del;

            d = 1.0 + aa * d;
            d = 1.0 / (fabs(d) < 1e-300 ? 1e-300 : d);
            c = 1.0 + aa / c;
            c = fabs(c) < 1e-300 ? 1e-300 : c;
            del = d * c;
            h *= del;
            if (pass && fabs(del - 1.0) < 1e-15)
                return h;
        }
    }
    return h;
}

/* Regularized incomplete beta I_x(a, b). */
static double ibeta(double a, double b, double x)
{
    double front;

    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    front =
        exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * beta_cf(a, b, x) / a;
    return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

double up_stats_t_cdf(double t, double df)
{
    double tail = 0.5 * ibeta(df / 2.0, 0.5, df / (df + t * t));

    return t >= 0 ? 1.0 - tail : tail;
}

double up_stats_t_quantile(double p, double df)
{
    double lo = -1e6, hi = 1e6;

    for (int i = 0; i < 200 && hi - lo > 1e-12 * (1.0 + fabs(lo)); i++) {
        double mid = 0.5 * (lo + hi);

        if (up_stats_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Two-sided normal p-value of z. */
static double normal_p(double z)
{
    return erfc(fabs(z) / M_SQRT2);
}

/* ---- Tango's score interval and test (one run per case) ---- */

/*
 * The score statistic for "the difference is delta" with b pairs passing
 * only in the second arm and c only in the first, out of n: the
 * restricted ML estimate of the c cell's probability solves Tango's
 * quadratic; the variance of b - c - n delta is n (2 q21 + delta (1 -
 * delta)).  Decreasing in delta.
 */
static double tango_z(double b, double c, double n, double delta)
{
    double w = -b - c + (2.0 * n - b + c) * delta;
    double q21 =
        (sqrt(fmax(0.0, w * w + 8.0 * n * c * delta * (1 - delta))) - w) /
        (4.0 * n);
    double var = n * (2.0 * q21 + delta * (1.0 - delta));
    double num = b - c - n * delta;

    if (var <= 1e-300)
        return num > 0 ? HUGE_VAL : num < 0 ? -HUGE_VAL : 0.0;
    return num / sqrt(var);
}

/* The delta in [from, to] where tango_z crosses target (bisection). */
static double tango_root(double b, double c, double n, double target,
                         double from, double to)
{
    for (int i = 0; i < 200 && to - from > 1e-13; i++) {
        double mid = 0.5 * (from + to);

        if (tango_z(b, c, n, mid) > target)
            from = mid;
        else
            to = mid;
    }
    return 0.5 * (from + to);
}

void up_stats_tango(size_t b, size_t c, size_t n, double z, double *lo,
                    double *hi)
{
    double db = (double)b, dc = (double)c, dn = (double)n, est;

    *lo = -1.0;
    *hi = 1.0;
    if (!n)
        return;
    est = (db - dc) / dn;
    if (tango_z(db, dc, dn, -1.0) > z)
        *lo = tango_root(db, dc, dn, z, -1.0, est);
    if (tango_z(db, dc, dn, 1.0) < -z)
        *hi = tango_root(db, dc, dn, -z, est, 1.0);
}

double up_stats_score_p(size_t b, size_t c)
{
    if (!b && !c)
        return 1.0;
    return normal_p(((double)b - (double)c) / sqrt((double)(b + c)));
}

/* ---- the lift ---- */

/*
 * Per-case difference variance below which the sample variance is not
 * believed: the binomial noise of the runs at the pooled rates, shrunk
 * towards 1/2 (one pass and one failure added per arm) so that it is
 * never 0.  Mean over cases of p~s(1-p~s)/rs + p~b(1-p~b)/rb.
 */
static double noise_floor(const up_stats_case *c, size_t n)
{
    double ks = 1, ms = 2, kb = 1, mb = 2, ps, pb, v = 0;
    size_t used = 0;

    for (size_t i = 0; i < n; i++) {
        if (!c[i].base_runs || !c[i].skill_runs)
            continue;
        ks += c[i].skill_pass, ms += c[i].skill_runs;
        kb += c[i].base_pass, mb += c[i].base_runs;
    }
    ps = ks / ms;
    pb = kb / mb;
    for (size_t i = 0; i < n; i++) {
        if (!c[i].base_runs || !c[i].skill_runs)
            continue;
        v += ps * (1 - ps) / c[i].skill_runs + pb * (1 - pb) / c[i].base_runs;
        used++;
    }
    return used ? v / (double)used : 0.25;
}

/* Standard error of the mean difference (mean diff, mean square m2,
 * over n cases), its variance floored at floor_var. */
static double t_se(double diff, double m2, double n, double floor_var)
{
    double var = n > 1 ? (m2 - diff * diff) * n / (n - 1) : 0;

    return sqrt(fmax(var, floor_var) / n);
}

/* t interval and test on differences with mean out->diff and m2. */
static void lift_t(up_paired *out, double floor_var)
{
    double n = (double)out->n, df = n > 1 ? n - 1 : 1;
    double se = t_se(out->diff, out->m2, n, floor_var);
    double half = up_stats_t_quantile(1 - UP_STATS_ALPHA / 2, df) * se;

    out->ci_lo = fmax(-1.0, out->diff - half);
    out->ci_hi = fmin(1.0, out->diff + half);
    out->p = 2.0 * up_stats_t_cdf(-fabs(out->diff) / se, df);
    out->pmethod = UP_P_T;
    out->se = se;
}

void up_stats_lift(up_paired *out, const up_stats_case *c, size_t n)
{
    double *v = up_xmalloc((2 * n + 1) * sizeof(*v)), *d = v + n;
    double *base = up_xmalloc((n + 1) * sizeof(*base));
    size_t used = 0;
    int one_run = 1;

    memset(out, 0, sizeof(*out));
    out->p = 1.0;
    for (size_t i = 0; i < n; i++) {
        if (!c[i].base_runs || !c[i].skill_runs)
            continue;
        base[used] = (double)c[i].base_pass / c[i].base_runs;
        v[used++] = (double)c[i].skill_pass / c[i].skill_runs;
        one_run &= c[i].base_runs == 1 && c[i].skill_runs == 1;
    }
    if (used) {
        out->n = used;
        describe(out, base, v, d, used);
        if (one_run) {
            up_stats_tango(out->better, out->worse, used, UP_STATS_Z95,
                           &out->ci_lo, &out->ci_hi);
            out->p = up_stats_score_p(out->better, out->worse);
            out->pmethod = UP_P_SCORE;
        } else
            lift_t(out, noise_floor(c, n));
    }
    free(v);
    free(base);
}

/* ---- SkillsBench's across-task view ---- */

/* 1.96 * sample sd (n - 1) / sqrt(n) of the n >= 2 values x */
static double sb_half(const double *x, size_t n)
{
    double mean = 0, ss = 0;

    for (size_t i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    return UP_STATS_Z95 * sqrt(ss / (double)(n - 1)) / sqrt((double)n);
}

void up_stats_skillsbench(up_sbview *out, const up_stats_case *c, size_t n)
{
    double *v = up_xmalloc((3 * n + 1) * sizeof(*v));
    double *w = v, *wo = v + n, *d = v + 2 * n;
    size_t k = 0;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        if (!c[i].base_runs || !c[i].skill_runs)
            continue;
        w[k] = (double)c[i].skill_pass / c[i].skill_runs;
        wo[k] = (double)c[i].base_pass / c[i].base_runs;
        d[k] = w[k] - wo[k];
        out->with += w[k];
        out->without += wo[k];
        k++;
    }
    out->n = k;
    if (k) {
        out->with /= (double)k;
        out->without /= (double)k;
        out->diff = mean_diff(out->with, out->without, k);
        out->has_g = out->without < 1.0;
        out->g = out->has_g ? out->diff / (1.0 - out->without) : 0.0;
    }
    if (k >= 2) {
        out->has_ci = 1;
        out->ci_with = sb_half(w, k);
        out->ci_without = sb_half(wo, k);
        out->ci_diff = sb_half(d, k);
    }
    free(v);
}

void up_stats_skillsbench_text(up_buf *out, const up_sbview *v)
{
    if (!v->n) {
        up_buf_adds(out, "no task answered in both arms");
        return;
    }
    up_buf_addf(out, "with %.1f%%, without %.1f%%, %+.1f points, ",
                v->with * 100, v->without * 100, v->diff * 100);
    if (v->has_g)
        up_buf_addf(out, "g = %.2f, ", v->g);
    else
        up_buf_adds(out, "g undefined (the baseline passes every task), ");
    if (v->has_ci)
        up_buf_addf(out, "95%% CI +/-%.1f points", v->ci_diff * 100);
    else
        up_buf_adds(out, "no interval (one task)");
    up_buf_addf(out, " over %zu task%s", v->n, v->n == 1 ? "" : "s");
}

/* ---- verdict ---- */

static int is_helpful(const up_paired *l, const up_paired *t, double margin,
                      double alpha)
{
    (void)t, (void)margin;
    return l->p < alpha && l->diff > 0.0;
}

static int saves_tokens(const up_paired *t, double alpha)
{
    return t && t->n && t->p < alpha && t->base_mean > 0.0 &&
           t->diff <= -UP_STATS_SAVER_MIN * t->base_mean;
}

static int is_harmful(const up_paired *l, const up_paired *t, double margin,
                      double alpha)
{
    (void)margin;
    return l->p < alpha && l->diff < 0.0 && !saves_tokens(t, alpha);
}

static int is_saver(const up_paired *l, const up_paired *t, double margin,
                    double alpha)
{
    return saves_tokens(t, alpha) && l->ci_lo > -margin;
}

static int is_trade_off(const up_paired *l, const up_paired *t, double margin,
                        double alpha)
{
    (void)l, (void)margin;
    return saves_tokens(t, alpha);
}

static int is_no_effect(const up_paired *l, const up_paired *t, double margin,
                        double alpha)
{
    (void)t, (void)alpha;
    return l->ci_lo >= -margin && l->ci_hi <= margin;
}

/* Checked in order; the first that holds wins; none: inconclusive. */
static const struct {
    up_verdict verdict;
    int (*holds)(const up_paired *lift, const up_paired *tokens, double margin,
                 double alpha);
} verdict_rules[] = {
    {UP_VERDICT_BENEFICIAL, is_helpful},  {UP_VERDICT_HARMFUL, is_harmful},
    {UP_VERDICT_TOKEN_SAVER, is_saver},   {UP_VERDICT_TRADE_OFF, is_trade_off},
    {UP_VERDICT_NO_EFFECT, is_no_effect},
};

/* Each verdict's JSON id, its words in eval's output and in compare's
 * (skill A in the baseline slot): the one table of them all. */
static const struct {
    const char *id;
    const char *label;
    const char *ab;
} verdict_names[UP_VERDICT_COUNT] = {
    [UP_VERDICT_NOT_MEASURED] = {NULL, "not measured", "not measured"},
    [UP_VERDICT_BENEFICIAL] = {"beneficial", "beneficial", "B is better"},
    [UP_VERDICT_HARMFUL] = {"harmful", "harmful", "B is worse"},
    [UP_VERDICT_TOKEN_SAVER] = {"token_saver", "token saver", "B saves tokens"},
    [UP_VERDICT_TRADE_OFF] = {"trade_off", "trade-off", "trade-off"},
    [UP_VERDICT_NO_EFFECT] = {"no_effect", "no meaningful effect",
                              "no meaningful effect"},
    [UP_VERDICT_INCONCLUSIVE] = {"inconclusive", "inconclusive",
                                 "inconclusive"},
};

up_verdict up_stats_verdict_at(const up_paired *lift, const up_paired *tokens,
                               double margin, double alpha)
{
    size_t nrules = sizeof(verdict_rules) / sizeof(verdict_rules[0]);

    if (!lift->n)
        return UP_VERDICT_NOT_MEASURED;
    for (size_t i = 0; i < nrules; i++)
        if (verdict_rules[i].holds(lift, tokens, margin, alpha))
            return verdict_rules[i].verdict;
    return UP_VERDICT_INCONCLUSIVE;
}

up_verdict up_stats_verdict(const up_paired *lift, const up_paired *tokens,
                            double margin)
{
    return up_stats_verdict_at(lift, tokens, margin, UP_STATS_ALPHA);
}

static up_verdict verdict_index(up_verdict v)
{
    return (unsigned)v < UP_VERDICT_COUNT ? v : UP_VERDICT_NOT_MEASURED;
}

const char *up_stats_verdict_id(up_verdict v)
{
    return verdict_names[verdict_index(v)].id;
}

const char *up_stats_verdict_label(up_verdict v)
{
    return verdict_names[verdict_index(v)].label;
}

const char *up_stats_verdict_ab_label(up_verdict v)
{
    return verdict_names[verdict_index(v)].ab;
}

/* ---- numbers as printed ---- */

#define FMT_MOST 12   /* the most decimals printed: never an exponent */
#define FMT_SNAP 1e-9 /* within this of a bar, a value is on it */

/* -1, 0, 1: a below, at, above b. */
static int side_of(double a, double b)
{
    return (a > b) - (a < b);
}

/*
 * v, or the bar it is within FMT_SNAP of: values computed in floating
 * point (0.5333 - 0.5333 = -1e-14) carry rounding noise many orders
 * below any difference counts can make, and noise is not a side.
 */
static double snap_to_bar(double v, const double *bars, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fabs(v - bars[i]) <= FMT_SNAP * fmax(1.0, fabs(bars[i])))
            return bars[i];
    return v;
}

/* 1 when text, read back, is on v's side of every bar. */
static int keeps_sides(const char *text, double v, const double *bars, size_t n)
{
    double shown = strtod(text, NULL);

    for (size_t i = 0; i < n; i++)
        if (side_of(shown, bars[i]) != side_of(v, bars[i]))
            return 0;
    return 1;
}

const char *up_stats_fmt_num(char *out, size_t size, double v, int digits,
                             int plus, const double *bars, size_t nbars)
{
    int most = digits > FMT_MOST ? digits : FMT_MOST;

    v = snap_to_bar(v, bars, nbars);
    for (int d = digits; d <= most; d++) {
        snprintf(out, size, plus ? "%+.*f" : "%.*f", d, v);
        if (keeps_sides(out, v, bars, nbars))
            break;
    }
    if (strtod(out, NULL) == 0.0) /* never "-0": 0 is no side here */
        snprintf(out, size, plus ? "%+.*f" : "%.*f", digits, 0.0);
    return out;
}

const char *up_stats_fmt_bound(char *out, size_t size, double share,
                               double margin)
{
    double bars[3] = {0.0, -margin * 100.0, margin * 100.0};

    return up_stats_fmt_num(out, size, share * 100.0, 0, 1, bars,
                            margin > 0 ? 3 : 1);
}

const char *up_stats_fmt_usd(char *out, size_t size, double v)
{
    int d = 2;

    if (v > 0 && v < 1)
        d = 2 - (int)floor(log10(v));
    snprintf(out, size, "$%.*f", d > 24 ? 24 : d, v); /* fits the length */
    return out;
}

/* "+12" / "-30" / "+0.4" points of a lift's bound at c's margin. */
static void add_pts(up_buf *out, const up_comparison *c, double x)
{
    char t[UP_STATS_FMT_LEN];

    up_buf_adds(out, up_stats_fmt_bound(t, sizeof(t), x, c->margin));
}

/* "could be anywhere from -10 to +60 points" */
static void add_range(up_buf *out, const up_comparison *c)
{
    up_buf_adds(out, "the lift could be anywhere from ");
    add_pts(out, c, c->lift.ci_lo);
    up_buf_adds(out, " to ");
    add_pts(out, c, c->lift.ci_hi);
    up_buf_adds(out, " points");
}

/* "+35 to +100" */
static void add_span(up_buf *out, const up_comparison *c)
{
    add_pts(out, c, c->lift.ci_lo);
    up_buf_adds(out, " to ");
    add_pts(out, c, c->lift.ci_hi);
}

/* A drop of -x points, unsigned, on its side of 0 and of the margin. */
static void add_down(up_buf *out, const up_comparison *c, double x)
{
    char t[UP_STATS_FMT_LEN];
    double bars[2] = {0.0, c->margin * 100.0};

    up_buf_adds(out, up_stats_fmt_num(t, sizeof(t), -x * 100.0, 0, 0, bars,
                                      c->margin > 0 ? 2 : 1));
}

/* "22 to 70 points": a drop given by the lift interval [lo, hi] < 0 */
static void add_drop(up_buf *out, const up_comparison *c)
{
    add_down(out, c, c->lift.ci_hi);
    up_buf_adds(out, " to ");
    add_down(out, c, c->lift.ci_lo);
    up_buf_adds(out, " points");
}

static void text_beneficial(up_buf *out, const up_comparison *c)
{
    up_buf_adds(out, "a lift of ");
    add_span(out, c);
    up_buf_adds(out, " points");
}

static void text_harmful(up_buf *out, const up_comparison *c)
{
    up_buf_adds(out, "a drop of ");
    add_drop(out, c);
}

/* The level c's claims are judged at (a comparison built by hand, with
 * no level, is alone). */
static double level_of(const up_comparison *c)
{
    return c->alpha > 0 ? c->alpha : UP_STATS_ALPHA;
}

/* 1 when the pass rate drops significantly. */
static int drops(const up_comparison *c)
{
    return c->lift.p < level_of(c) && c->lift.diff < 0;
}

static void text_saver(up_buf *out, const up_comparison *c)
{
    up_buf_addf(out, "%.0f%% fewer tokens, and the pass rate ",
                -c->token_change * 100);
    if (drops(c)) { /* real, but inside the margin */
        up_buf_adds(out, "drops by ");
        add_drop(out, c);
        up_buf_addf(out, ": a real drop, within the margin of %.0f points",
                    c->margin * 100);
        return;
    }
    up_buf_adds(out, "drops by no more than ");
    add_down(out, c, fmin(0.0, c->lift.ci_lo));
    up_buf_adds(out, " points");
}

static void text_trade(up_buf *out, const up_comparison *c)
{
    up_buf_addf(out, "%.0f%% fewer tokens, but ", -c->token_change * 100);
    if (drops(c)) {
        up_buf_adds(out, "the pass rate drops by ");
        add_drop(out, c);
        return;
    }
    up_buf_adds(out, "the pass rate may drop (");
    add_range(out, c);
    up_buf_adds(out, ")");
}

static void text_no_effect(up_buf *out, const up_comparison *c)
{
    up_buf_adds(out, "the lift lies within ");
    add_span(out, c);
    up_buf_addf(out, " points, inside the margin of %.0f points",
                c->margin * 100);
}

static void text_none(up_buf *out, const up_comparison *c)
{
    (void)c;
    up_buf_adds(out, "no case was answered in both arms");
}

static void text_inconclusive(up_buf *out, const up_comparison *c)
{
    add_range(out, c);
}

/* The words after "verdict: ", per verdict. */
static void (*const verdict_text[UP_VERDICT_COUNT])(up_buf *,
                                                    const up_comparison *) = {
    [UP_VERDICT_NOT_MEASURED] = text_none,
    [UP_VERDICT_BENEFICIAL] = text_beneficial,
    [UP_VERDICT_HARMFUL] = text_harmful,
    [UP_VERDICT_TOKEN_SAVER] = text_saver,
    [UP_VERDICT_TRADE_OFF] = text_trade,
    [UP_VERDICT_NO_EFFECT] = text_no_effect,
    [UP_VERDICT_INCONCLUSIVE] = text_inconclusive,
};

void up_stats_verdict_text(up_buf *out, const up_comparison *c)
{
    up_verdict v = verdict_index(c->verdict);

    up_buf_addf(out, "%s: ", up_stats_verdict_label(v));
    verdict_text[v](out, c);
}

double up_stats_token_savings(double base_total, double skill_total)
{
    return base_total == 0.0 ? 0.0 : 1.0 - skill_total / base_total;
}

int up_stats_is_beneficial(double lift, double token_savings)
{
    return lift > 0.05 || (lift >= 0.0 && token_savings > 0.2);
}

/* ---- power ---- */

#define PLAN_CASES_MAX 20000u    /* cap on the cases a plan searches */
#define PLAN_RUNS_MAX  100u      /* cap on the runs a plan searches */
#define SIM_WORK       4000000.0 /* simulated runs per power estimate */
#define SIM_MIN        400.0     /* ... but never fewer suites */
#define SIM_MAX        4000.0    /* ... nor more */
#define TAIL_SD        12.0      /* binomial mass beyond is ignored */

unsigned up_stats_min_discordant(double alpha)
{
    unsigned m = 1;

    while (m < 64 && 2.0 * ldexp(1.0, -(int)m) >= alpha)
        m++;
    return m;
}

static double binom_pmf(size_t k, size_t n, double p)
{
    double lc;

    if (p <= 0.0)
        return k == 0;
    if (p >= 1.0)
        return k == n;
    lc = lgamma((double)n + 1) - lgamma((double)k + 1) -
         lgamma((double)(n - k) + 1);
    return exp(lc + (double)k * log(p) + (double)(n - k) * log1p(-p));
}

/*
 * The smallest b > m/2 whose score test (b of m discordant pairs in
 * favour of the skill) is significant, searched upward from from; m + 1
 * when none is.  The threshold grows with m, so a caller walking m
 * upwards passes the last one back and the search is amortised.
 */
static size_t score_crit(size_t m, size_t from)
{
    size_t b = from > m / 2 ? from : m / 2 + 1;

    while (b <= m && up_stats_score_p(b, m - b) >= UP_STATS_ALPHA)
        b++;
    return b;
}

/*
 * P(Bin(m, pi) >= b0), from b0's mass (one lgamma) and the ratio of
 * successive terms, ignoring the mass beyond TAIL_SD deviations.
 */
static double upper_tail(size_t m, double pi, size_t b0)
{
    double sd = sqrt((double)m * pi * (1 - pi)), stop = (double)m * pi;
    double t, p = 0.0, odds = pi / (1 - pi);

    if (pi >= 1.0)
        return b0 <= m;
    if (pi <= 0.0 || b0 > m)
        return b0 == 0;
    if ((double)b0 < stop - TAIL_SD * sd - 1)
        b0 = (size_t)(stop - TAIL_SD * sd - 1);
    stop += TAIL_SD * sd + 1;
    t = binom_pmf(b0, m, pi);
    for (size_t b = b0; b <= m && (double)b <= stop; b++) {
        p += t;
        t *= (double)(m - b) / (double)(b + 1) * odds;
    }
    return p;
}

/* Exact power with one run per case: sum over the discordant count m of
 * P(m) P(the score test calls m pairs, b ~ Bin(m, p12 / q), beneficial). */
static double power_one_run(size_t n, double p0, double p1)
{
    double p12 = p1 * (1 - p0), p21 = p0 * (1 - p1), q = p12 + p21;
    double sd = sqrt((double)n * q * (1 - q)), power = 0.0;
    double lo = (double)n * q - TAIL_SD * sd - 1,
           hi = (double)n * q + TAIL_SD * sd + 1;
    size_t crit = 0;

    if (q <= 0.0)
        return 0.0;
    for (size_t m = lo > 0 ? (size_t)lo : 0; m <= n && (double)m <= hi; m++) {
        crit = score_crit(m, crit);
        power += binom_pmf(m, n, q) * upper_tail(m, p12 / q, crit);
    }
    return fmin(1.0, power);
}

static double rng_unit(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static unsigned draw_passes(rng *r, unsigned runs, double p)
{
    unsigned k = 0;

    for (unsigned i = 0; i < runs; i++)
        k += rng_unit(r) < p;
    return k;
}

/*
 * One simulated suite of n cases x runs: does lift_t's test call it
 * beneficial (t >= tcrit, the two-sided 5% point)?
 */
static int sim_suite(rng *r, up_stats_case *c, size_t n, unsigned runs,
                     double p0, double p1, double tcrit)
{
    double sum = 0.0, s2 = 0.0, dn = (double)n, diff;

    for (size_t i = 0; i < n; i++) {
        double d;

        c[i].base_runs = c[i].skill_runs = runs;
        c[i].base_pass = draw_passes(r, runs, p0);
        c[i].skill_pass = draw_passes(r, runs, p1);
        d = ((double)c[i].skill_pass - (double)c[i].base_pass) / runs;
        sum += d;
        s2 += d * d;
    }
    diff = sum / dn;
    return diff > 0 &&
           diff / t_se(diff, s2 / dn, dn, noise_floor(c, n)) >= tcrit;
}

/* Simulated power with several runs per case (common random numbers:
 * the same seed for every lift, so power grows smoothly with it). */
static double power_sim(size_t n, unsigned runs, double p0, double p1,
                        uint64_t seed)
{
    double sims = fmin(SIM_MAX, fmax(SIM_MIN, SIM_WORK / ((double)n * runs)));
    double tcrit =
        up_stats_t_quantile(1 - UP_STATS_ALPHA / 2, n > 1 ? (double)n - 1 : 1);
    up_stats_case *c = up_xcalloc(n, sizeof(*c));
    size_t hits = 0, s;
    rng r;

    rng_seed(&r, seed);
    for (s = 0; (double)s < sims; s++)
        hits += (size_t)sim_suite(&r, c, n, runs, p0, p1, tcrit);
    free(c);
    return (double)hits / (double)s;
}

double up_stats_power(size_t n, unsigned runs, double p0, double lift,
                      uint64_t seed)
{
    double p1 = fmin(1.0, fmax(0.0, p0 + lift));

    p0 = fmin(1.0, fmax(0.0, p0));
    if (!n || !runs)
        return 0.0;
    if (runs == 1)
        return power_one_run(n, p0, p1);
    return power_sim(n, runs, p0, p1, seed);
}

double up_stats_mde(size_t n, unsigned runs, double p0, uint64_t seed)
{
    double lo = 0.0, hi = 1.0 - p0;

    if (hi <= 0.0 || up_stats_power(n, runs, p0, hi, seed) < UP_STATS_POWER)
        return -1.0;
    while (hi - lo > 0.0025) {
        double mid = 0.5 * (lo + hi);

        if (up_stats_power(n, runs, p0, mid, seed) >= UP_STATS_POWER)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* Smallest x in [1, max] with power(x) >= target: doubling, bisection. */
static size_t smallest(double (*power)(size_t x, const void *ctx),
                       const void *ctx, size_t max)
{
    size_t lo = 0, hi = 1;

    while (power(hi, ctx) < UP_STATS_POWER) {
        if (hi >= max)
            return 0;
        lo = hi;
        hi = hi * 2 > max ? max : hi * 2;
    }
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;

        if (power(mid, ctx) >= UP_STATS_POWER)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

struct need {
    double lift, p0;
    size_t n;
    unsigned runs;
    uint64_t seed;
};

static double power_at_cases(size_t x, const void *ctx)
{
    const struct need *q = ctx;

    return up_stats_power(x, q->runs, q->p0, q->lift, q->seed);
}

static double power_at_runs(size_t x, const void *ctx)
{
    const struct need *q = ctx;

    return up_stats_power(q->n, (unsigned)x, q->p0, q->lift, q->seed);
}

size_t up_stats_cases_for(double lift, unsigned runs, double p0, uint64_t seed)
{
    struct need q = {lift, p0, 0, runs ? runs : 1, seed};

    if (lift <= 0.0 || p0 + lift > 1.0 + 1e-12)
        return 0;
    return smallest(power_at_cases, &q, PLAN_CASES_MAX);
}

unsigned up_stats_runs_for(double lift, size_t n, double p0, uint64_t seed)
{
    struct need q = {lift, p0, n, 1, seed};

    if (lift <= 0.0 || !n || p0 + lift > 1.0 + 1e-12)
        return 0;
    return (unsigned)smallest(power_at_runs, &q, PLAN_RUNS_MAX);
}

/* "10 cases x 3 runs" */
static void add_size(up_buf *out, size_t n, unsigned runs)
{
    up_buf_addf(out, "%zu case%s x %u run%s", n, n == 1 ? "" : "s", runs,
                runs == 1 ? "" : "s");
}

static void plan_mde(up_buf *out, const up_stats_plan *pl)
{
    double mde = up_stats_mde(pl->cases, pl->runs, pl->p0, pl->seed);

    add_size(out, pl->cases, pl->runs);
    up_buf_addf(out, " per arm at a %.0f%% baseline: ", pl->p0 * 100);
    if (mde < 0)
        up_buf_adds(out, "no lift, however large, is detected with 80% "
                         "power\n");
    else
        up_buf_addf(out,
                    "the smallest lift detected with 80%% power is "
                    "+%.0f points\n",
                    ceil(mde * 100 - 1e-9));
}

/* Which lever reaches the target with fewer conversations. */
static void plan_levers(up_buf *out, const up_stats_plan *pl, size_t cases,
                        unsigned runs)
{
    size_t by_cases = cases * pl->runs, by_runs = pl->cases * runs;

    if (cases)
        up_buf_addf(out,
                    "  more cases: about %zu cases x %u run%s (%zu "
                    "conversations per arm)\n",
                    cases, pl->runs, pl->runs == 1 ? "" : "s", by_cases);
    if (runs)
        up_buf_addf(out,
                    "  more runs: --runs %u on the %zu cases (%zu "
                    "conversations per arm, no new case to write)\n",
                    runs, pl->cases, by_runs);
    if (!cases && !runs)
        up_buf_adds(out, "  not reachable within 20000 cases or 100 runs\n");
    else if (runs && (!cases || by_runs <= by_cases))
        up_buf_adds(out, "  --runs is the cheaper lever here\n");
    else
        up_buf_adds(out, "  more cases are the cheaper lever here\n");
}

void up_stats_plan_text(up_buf *out, const up_stats_plan *pl)
{
    double power;

    plan_mde(out, pl);
    if (pl->target <= 0.0)
        return;
    if (pl->p0 + pl->target > 1.0 + 1e-12) {
        up_buf_addf(out,
                    "a lift of +%.0f points is impossible from a %.0f%% "
                    "baseline\n",
                    pl->target * 100, pl->p0 * 100);
        return;
    }
    power = up_stats_power(pl->cases, pl->runs, pl->p0, pl->target, pl->seed);
    up_buf_addf(out,
                "a true lift of +%.0f points is detected with %.0f%% "
                "power\n",
                pl->target * 100, floor(power * 100));
    if (power >= UP_STATS_POWER)
        return;
    up_buf_adds(out, "to reach 80% power:\n");
    plan_levers(out, pl,
                up_stats_cases_for(pl->target, pl->runs, pl->p0, pl->seed),
                up_stats_runs_for(pl->target, pl->cases, pl->p0, pl->seed));
}

int up_stats_power_sentence(up_buf *out, const up_comparison *c)
{
    if (!c->paired) {
        up_buf_adds(out, "No case was answered in both arms, so there is "
                         "nothing to compare.");
        return 1;
    }
    if (c->lift.p < level_of(c))
        return 0;
    if (c->lift.base_mean >= 1.0) {
        up_buf_adds(out, "The baseline passes every case: there is no room "
                         "for a lift, only for a drop.");
        return 1;
    }
    up_buf_adds(out, "This suite (");
    add_size(out, c->paired, c->runs);
    if (c->mde < 0)
        up_buf_adds(out, ") cannot detect any lift with 80% power; add cases "
                         "or --runs (upskill eval --plan).");
    else
        up_buf_addf(out,
                    ") detects a true lift of +%.0f points or more with "
                    "80%% power; smaller effects can go unseen (upskill eval "
                    "--plan: what more cases or --runs would buy).",
                    ceil(c->mde * 100 - 1e-9));
    return 1;
}

/* ---- the whole comparison ---- */

static int check_case(const up_stats_case *c, size_t i, up_error *err)
{
    const char *what = NULL;

    if (c->base_pass > c->base_runs || c->skill_pass > c->skill_runs)
        what = "more passes than runs";
    else if (c->base_untold > c->base_runs || c->skill_untold > c->skill_runs)
        what = "more runs without tokens than runs";
    else if (!isfinite(c->base_tokens) || !isfinite(c->skill_tokens) ||
             c->base_tokens < 0 || c->skill_tokens < 0)
        what = "tokens must be finite and not negative";
    if (what)
        return up_error_set(err, UP_EINVALID, "stats: case %zu: %s", i, what);
    return 0;
}

/* What the paired cases hold: how many, their runs, and how many have
 * runs with known tokens in both arms (the token comparison's cases). */
struct pairs {
    size_t cases, runs, tokens;
};

/* Mean tokens per run (of the runs whose tokens are known) of the paired
 * cases into v (2 arrays of n) and their totals; the counts into p. */
static void paired_tokens(const up_stats_case *c, size_t n, double *v,
                          double totals[2], struct pairs *p)
{
    for (size_t i = 0; i < n; i++) {
        unsigned bt = c[i].base_runs - c[i].base_untold,
                 st = c[i].skill_runs - c[i].skill_untold;

        if (!c[i].base_runs || !c[i].skill_runs)
            continue;
        p->cases++;
        p->runs += c[i].base_runs + c[i].skill_runs;
        if (!bt || !st) /* a failure that cost no known tokens saves none */
            continue;
        v[p->tokens] = c[i].base_tokens / bt;
        v[n + p->tokens] = c[i].skill_tokens / st;
        totals[0] += c[i].base_tokens;
        totals[1] += c[i].skill_tokens;
        p->tokens++;
    }
}

int up_stats_compare(up_comparison *out, const up_stats_case *cases, size_t n,
                     uint64_t seed, double margin, up_error *err)
{
    double totals[2] = {0.0, 0.0};
    double *v = NULL;
    struct pairs p = {0, 0, 0};
    int rc = 0;

    memset(out, 0, sizeof(*out));
    out->margin = margin;
    out->family = 1;
    out->rate = out->alpha = UP_STATS_ALPHA;
    for (size_t i = 0; i < n && !rc; i++)
        rc = check_case(&cases[i], i, err);
    if (rc)
        goto out;
    v = up_xmalloc((2 * n + 1) * sizeof(*v));
    paired_tokens(cases, n, v, totals, &p);
    up_stats_arm_rate(&out->base, cases, n, 0);
    up_stats_arm_rate(&out->skill, cases, n, 1);
    up_stats_lift(&out->lift, cases, n);
    up_stats_skillsbench(&out->sb, cases, n);
    rc = up_stats_paired(&out->tokens, v, v + n, p.tokens, seed, 0, err);
    if (rc || !p.cases)
        goto out;
    out->paired = p.cases;
    out->runs = (unsigned)lround((double)p.runs / (2.0 * (double)p.cases));
    out->mde = up_stats_mde(p.cases, out->runs, out->lift.base_mean, seed);
    if (out->tokens.base_mean > 0.0)
        out->token_change = out->tokens.skill_mean / out->tokens.base_mean - 1;
    out->token_savings = up_stats_token_savings(totals[0], totals[1]);
    out->is_beneficial =
        up_stats_is_beneficial(out->lift.diff, out->token_savings);
out:
    out->p_adj = out->lift.p;
    out->verdict = up_stats_verdict(&out->lift, &out->tokens, margin);
    free(v);
    return rc;
}
