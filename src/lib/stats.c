/*
 * Statistics for skill-lift evaluation (docs/statistics.md).
 *
 * Design: the unit of evidence is the case.  Both arms ran the same cases,
 * so the lift is a paired difference d_i = skill_i - base_i of per-case
 * values (pass rates passes/runs, or mean tokens).  Under "the skill makes
 * no difference" each d_i is as likely to be +|d_i| as -|d_i|, which gives
 * the sign-flip permutation test: exact, assumption-light, and for 0/1
 * outcomes identical to McNemar's exact test.  Its p-value is computed
 * exactly whenever affordable: by dynamic programming over integer sums
 * when the |d_i| are multiples of a small 1/q (always true for rates from
 * passes/runs and for integer token counts), by enumerating all 2^m sign
 * assignments for m <= 20 otherwise, and only then by seeded Monte Carlo.
 *
 * Randomness (bootstrap, Monte Carlo) comes from our own xoshiro256**
 * seeded through splitmix64, never rand(), so results are reproducible
 * across libcs.  Every output is finite for every input, including n = 0.
 */
#include <math.h>
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
    out->diff = out->skill_mean - out->base_mean;
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

/* ---- verdict ---- */

static int is_helpful(const up_paired *l, const up_paired *t)
{
    (void)t;
    return l->p < UP_STATS_ALPHA && l->diff > 0.0;
}

static int is_harmful(const up_paired *l, const up_paired *t)
{
    (void)t;
    return l->p < UP_STATS_ALPHA && l->diff < 0.0;
}

static int saves_tokens(const up_paired *l, const up_paired *t)
{
    (void)l;
    return t && t->p < UP_STATS_ALPHA && t->base_mean > 0.0 &&
           t->diff <= -UP_STATS_SAVER_MIN * t->base_mean;
}

/* Checked in order; the first that holds wins. */
static const struct {
    up_verdict verdict;
    int (*holds)(const up_paired *lift, const up_paired *tokens);
} verdict_rules[] = {
    {UP_VERDICT_BENEFICIAL, is_helpful},
    {UP_VERDICT_HARMFUL, is_harmful},
    {UP_VERDICT_TOKEN_SAVER, saves_tokens},
};

static const struct {
    const char *id;
    const char *label;
} verdict_names[] = {
    [UP_VERDICT_NONE] = {"no_effect", "no measurable effect"},
    [UP_VERDICT_BENEFICIAL] = {"beneficial", "beneficial"},
    [UP_VERDICT_HARMFUL] = {"harmful", "harmful"},
    [UP_VERDICT_TOKEN_SAVER] = {"token_saver", "token saver"},
};

up_verdict up_stats_verdict(const up_paired *lift, const up_paired *tokens)
{
    size_t nrules = sizeof(verdict_rules) / sizeof(verdict_rules[0]);

    for (size_t i = 0; i < nrules; i++)
        if (verdict_rules[i].holds(lift, tokens))
            return verdict_rules[i].verdict;
    return UP_VERDICT_NONE;
}

static up_verdict verdict_index(up_verdict v)
{
    return (unsigned)v <= UP_VERDICT_TOKEN_SAVER ? v : UP_VERDICT_NONE;
}

const char *up_stats_verdict_id(up_verdict v)
{
    return verdict_names[verdict_index(v)].id;
}

const char *up_stats_verdict_label(up_verdict v)
{
    return verdict_names[verdict_index(v)].label;
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

unsigned up_stats_min_discordant(double alpha)
{
    unsigned m = 1;

    while (m < 64 && 2.0 * ldexp(1.0, -(int)m) >= alpha)
        m++;
    return m;
}

size_t up_stats_cases_needed(const up_paired *lift)
{
    size_t nonzero = lift->better + lift->worse;
    double delta = fabs(lift->diff), a, need, floor_need;

    if (!lift->n || !nonzero || delta == 0.0)
        return 0;
    a = UP_STATS_Z95 * sqrt(lift->m2) +
        UP_STATS_Z80 * sqrt(fmax(0.0, lift->m2 - delta * delta));
    need = ceil(a * a / (delta * delta) - 1e-9);
    /* The exact test needs this many cases that change outcome. */
    floor_need = ceil((double)up_stats_min_discordant(UP_STATS_ALPHA) *
                          (double)lift->n / (double)nonzero -
                      1e-9);
    need = fmin(fmax(need, floor_need), NEED_MAX);
    return (size_t)need;
}

/* "lift of +20 points" or "drop of 20 points". */
static void add_change(up_buf *out, double diff)
{
    double pts = fabs(diff) * 100.0;
    int prec = pts < 0.95 ? 1 : 0;

    if (diff > 0)
        up_buf_addf(out, "lift of +%.*f points", prec, pts);
    else
        up_buf_addf(out, "drop of %.*f points", prec, pts);
}

int up_stats_power_sentence(up_buf *out, const up_paired *lift)
{
    unsigned mmin = up_stats_min_discordant(UP_STATS_ALPHA);
    size_t need = up_stats_cases_needed(lift);
    int wrote = 0;

    if (!lift->n) {
        up_buf_adds(out, "No cases were run, so there is nothing to compare.");
        return 1;
    }
    if (lift->n < mmin) {
        up_buf_addf(out,
                    "With %zu case%s, even a perfect record could not show "
                    "a significant difference (at least %u cases that "
                    "change outcome are needed).",
                    lift->n, lift->n == 1 ? "" : "s", mmin);
        wrote = 1;
    }
    if (lift->p >= UP_STATS_ALPHA && need > lift->n) {
        up_buf_addf(out, "%sAbout %zu cases would be needed to detect a ",
                    wrote ? " " : "", need);
        add_change(out, lift->diff);
        up_buf_adds(out, " (80% power).");
        wrote = 1;
    }
    return wrote;
}

/* ---- the whole comparison ---- */

static int check_case(const up_stats_case *c, size_t i, up_error *err)
{
    const char *what = NULL;

    if (!c->base_runs || !c->skill_runs)
        what = "an arm has no runs";
    else if (c->base_pass > c->base_runs || c->skill_pass > c->skill_runs)
        what = "more passes than runs";
    else if (!isfinite(c->base_tokens) || !isfinite(c->skill_tokens) ||
             c->base_tokens < 0 || c->skill_tokens < 0)
        what = "tokens must be finite and not negative";
    if (what)
        return up_error_set(err, UP_EINVALID, "stats: case %zu: %s", i, what);
    return 0;
}

/* Per-case rates and mean tokens into v (4 arrays of n), pooled rates. */
static void per_case(up_comparison *out, const up_stats_case *c, size_t n,
                     double *v, double totals[2])
{
    for (size_t i = 0; i < n; i++) {
        v[i] = (double)c[i].base_pass / c[i].base_runs;
        v[n + i] = (double)c[i].skill_pass / c[i].skill_runs;
        v[2 * n + i] = c[i].base_tokens / c[i].base_runs;
        v[3 * n + i] = c[i].skill_tokens / c[i].skill_runs;
        totals[0] += c[i].base_tokens;
        totals[1] += c[i].skill_tokens;
    }
    up_stats_arm_rate(&out->base, c, n, 0);
    up_stats_arm_rate(&out->skill, c, n, 1);
}

int up_stats_compare(up_comparison *out, const up_stats_case *cases, size_t n,
                     uint64_t seed, up_error *err)
{
    double totals[2] = {0.0, 0.0};
    double *v = NULL;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < n && !rc; i++)
        rc = check_case(&cases[i], i, err);
    if (rc)
        goto out;
    v = up_xmalloc((4 * n + 1) * sizeof(*v));
    per_case(out, cases, n, v, totals);
    rc = up_stats_paired(&out->lift, v, v + n, n, seed, 0, err);
    if (!rc)
        rc = up_stats_paired(&out->tokens, v + 2 * n, v + 3 * n, n, seed, 0,
                             err);
    if (rc)
        goto out;
    if (out->tokens.base_mean > 0.0)
        out->token_change = out->tokens.skill_mean / out->tokens.base_mean - 1;
    out->token_savings = up_stats_token_savings(totals[0], totals[1]);
    out->is_beneficial = up_stats_is_beneficial(
        out->skill.rate - out->base.rate, out->token_savings);
    out->verdict = up_stats_verdict(&out->lift, &out->tokens);
out:
    free(v);
    return rc;
}
