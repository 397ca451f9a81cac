/*
 * Pooling graded jobs into per-model, per-arm totals and the paired
 * statistics of the lift (see docs/statistics.md).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "lib/eval/eval_job.h"
#include "upskill/alloc.h"
#include "upskill/eval.h"
#include "upskill/model.h"

long up_eval_estimate_tokens(const char *text)
{
    size_t n = text ? strlen(text) : 0;

    return (long)((n + 3) / 4);
}

double up_eval_cost(const up_price *price, const up_usage *u)
{
    double fresh = (double)(u->input - u->cached);

    if (!price)
        return -1;
    return (fresh * price->input + (double)u->cached * price->cached +
            (double)u->output * price->output) /
           1e6;
}

double up_eval_job_cost(const up_price *price, const up_eval_job *j)
{
    up_usage u;

    up_eval_job_usage(j, &u);
    return up_eval_cost(price, &u);
}

/* One more conversation, with agent part x, into s. */
static void sum_agent(up_eval_agent_sum *s, const up_eval_agent_job *x)
{
    s->llm_ms += x->llm_ms;
    s->convs++;
    s->skill_reads += x->skill_read > 0;
    s->ref_reads += x->refs_read > 0;
    s->disagree += x->events_disagree > 0;
    s->turns += x->turns;
    s->tool_calls += x->tool_calls;
    s->tool_errors += x->tool_errors;
    for (size_t i = 0; i < UP_TOOL_ROWS; i++) {
        s->calls[i] += x->tool_count[i].calls;
        s->errors[i] += x->tool_count[i].errors;
    }
}

/* The conversations of s into arm totals t. */
static void arm_add_sum(up_arm_totals *t, const up_eval_agent_sum *s)
{
    t->agent_jobs += (size_t)s->convs;
    t->skill_reads += (size_t)s->skill_reads;
    t->ref_reads += (size_t)s->ref_reads;
    t->disagree += (size_t)s->disagree;
    t->turns += s->turns;
    t->tool_calls += s->tool_calls;
    t->tool_errors += s->tool_errors;
}

static size_t sum_index(const up_eval_plan *p, size_t m, int repeat,
                        enum up_arm arm)
{
    return (m * (size_t)p->runs + (size_t)(repeat - 1)) * 2 + (size_t)arm;
}

/* The folded counters of model m, repeat (1-based), arm; NULL: none. */
static const up_eval_agent_sum *sum_of(const up_eval_plan *p, size_t m,
                                       int repeat, enum up_arm arm)
{
    return p->agent_sums ? &p->agent_sums[sum_index(p, m, repeat, arm)] : NULL;
}

void up_eval_job_fold_agent(up_eval_plan *p, up_eval_job *j)
{
    const up_eval_agent_job *x = j->ag;

    if (!x || !j->agent || j->error || x->limit || j->folded)
        return;
    if (!p->agent_sums)
        p->agent_sums = up_xcalloc(p->nmodels * (size_t)p->runs * 2,
                                   sizeof(*p->agent_sums));
    sum_agent(&p->agent_sums[sum_index(p, j->model, j->repeat, j->arm)], x);
    j->skill_loaded = x->skill_read > 0;
    j->folded = 1;
    up_eval_job_agent_free(j);
}

int up_eval_job_skill_loaded(const up_eval_job *j)
{
    return j->ag ? j->ag->skill_read > 0 : j->skill_loaded;
}

static void add_job(up_arm_totals *t, const up_eval_job *j,
                    const up_price *price)
{
    double c = up_eval_job_cost(price, j);
    const up_eval_agent_job *x;
    up_eval_agent_sum one = {0};

    t->jobs++;
    t->passed += j->passed != 0 && !j->error;
    t->errors += up_eval_job_errored(j);
    t->outgrew += up_eval_job_outgrew(j);
    t->own_failed += up_eval_job_own_failure(j) && !up_eval_job_outgrew(j);
    if (!j->error && j->ungradable && !t->ungradable++)
        t->ungradable_why = j->ungradable;
    t->checks_passed += j->ungradable ? 0 : j->checks_passed;
    t->checks_total +=
        j->ungradable || up_eval_job_errored(j) ? 0 : j->checks_total;
    t->cached += j->from_cache != 0;
    t->cut += j->cut_at != 0;
    t->asserts_passed += j->asserts_passed;
    t->asserts_total += j->asserts_total;
    t->usage.input += j->usage.input;
    t->usage.output += j->usage.output;
    t->usage.cached += j->usage.cached;
    t->usage.reasoning += j->usage.reasoning;
    t->usage.estimated |= j->usage.estimated;
    t->latency_ms += j->latency_ms;
    t->cost_usd = c < 0 ? -1 : t->cost_usd + c;
    t->paid_usd = c < 0 ? -1 : t->paid_usd + (j->from_cache ? 0.0 : c);
    if (!j->agent || j->error || j->folded) /* folded: summed per run */
        return;
    x = up_eval_job_agent_view(j);
    sum_agent(&one, x);
    arm_add_sum(t, &one);
    t->limited += x->limit != NULL;
}

void up_eval_activation_text(up_buf *out, const up_eval_summary *s)
{
    const up_arm_totals *w = &s->arm[UP_ARM_SKILL];

    /* a reference student (oracle, null) reads no skill by design: its
     * activation says nothing of the description */
    if (!w->agent_jobs || up_model_reference(s->model))
        return;
    up_buf_addf(out, "skill read in %zu of %zu conversations (%.0f%%)",
                w->skill_reads, w->agent_jobs,
                100.0 * (double)w->skill_reads / (double)w->agent_jobs);
    if (!w->skill_reads)
        up_buf_adds(out, ": its description never made the model open "
                         "SKILL.md, so the skill was never used; rewrite the "
                         "description to say when to use it");
    else if (2 * w->skill_reads < w->agent_jobs)
        up_buf_adds(out, ": its description made the model open SKILL.md in "
                         "fewer than half of the conversations, so most ran "
                         "without the skill; rewrite the description to say "
                         "when to use it");
    else if (w->ref_reads)
        up_buf_addf(out, ", a reference file in %zu", w->ref_reads);
    if (w->disagree)
        up_buf_addf(out,
                    "\n  warning: in %zu conversation(s) the CLI's own events "
                    "disagree with what reached the model about SKILL.md; "
                    "the model's requests count (the case artifacts' "
                    "tools.activation_disagrees marks them)",
                    w->disagree);
}

up_stats_case *up_eval_cases(const up_eval_plan *p, size_t m)
{
    up_stats_case *cs = up_xcalloc(p->suite->ncases + 1, sizeof(*cs));

    for (size_t i = 0; i < p->njobs; i++) {
        const up_eval_job *j = &p->jobs[i];
        up_stats_case *c = &cs[j->kase];
        double tokens = (double)j->usage.input + (double)j->usage.output;

        if (j->model != m || up_eval_job_errored(j) || j->ungradable ||
            !j->done)
            continue; /* errors are no evidence either way, nor are
                         checks that could not run; a failure the
                         student caused (up_eval_job_own_failure) is a
                         failure of its arm */
        if (up_eval_job_outgrew(j)) /* failed, its tokens untold */
            tokens = 0.0;
        if (j->arm == UP_ARM_SKILL) {
            c->skill_runs++;
            c->skill_pass += j->passed != 0;
            c->skill_tokens += tokens;
            c->skill_untold += up_eval_job_outgrew(j);
        } else {
            c->base_runs++;
            c->base_pass += j->passed != 0;
            c->base_tokens += tokens;
            c->base_untold += up_eval_job_outgrew(j);
        }
    }
    return cs;
}

/* Distinct cases with a conversation of model m in arm a. */
static size_t arm_cases(const up_eval_plan *p, size_t m, int a)
{
    unsigned char *seen = up_xcalloc(p->suite->ncases + 1, 1);
    size_t n = 0;

    for (size_t i = 0; i < p->njobs; i++) {
        const up_eval_job *j = &p->jobs[i];

        if (j->model == m && (int)j->arm == a && !seen[j->kase]) {
            seen[j->kase] = 1;
            n++;
        }
    }
    free(seen);
    return n;
}

int up_eval_summarize(const up_eval_plan *p, size_t m, const up_price *price,
                      uint64_t seed, up_eval_summary *out, up_error *err)
{
    up_stats_case *cs;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    out->model = p->models[m];
    out->has_baseline = p->baseline;
    out->aa = p->aa;
    out->skill_tokens = /* the skill block after the neutral prompt */
        up_tokens_estimate(p->system_skill + strlen(up_eval_neutral_prompt),
                           strlen(p->system_skill) -
                               strlen(up_eval_neutral_prompt));
    for (size_t i = 0; i < p->njobs; i++)
        if (p->jobs[i].model == m && p->jobs[i].done)
            add_job(&out->arm[p->jobs[i].arm], &p->jobs[i], price);
    for (int a = 0; p->agent_sums && a < 2; a++)
        for (int r = 1; r <= p->runs; r++)
            arm_add_sum(&out->arm[a], sum_of(p, m, r, (enum up_arm)a));
    for (int a = 0; a < 2; a++)
        out->arm[a].cases = arm_cases(p, m, a);
    cs = up_eval_cases(p, m);
    for (int a = 0; a < 2; a++)
        up_stats_arm_rate(&out->arm[a].rate, cs, p->suite->ncases,
                          a == UP_ARM_SKILL);
    for (int a = 0; a < 2; a++) {
        up_arm_totals *t = &out->arm[a];

        t->cost_per_pass = t->cost_usd >= 0 && t->passed
                               ? t->cost_usd / (double)t->passed
                               : -1;
    }
    if (p->baseline && p->suite->ncases)
        rc = up_stats_compare(&out->cmp, cs, p->suite->ncases, seed, p->margin,
                              err);
    free(cs);
    return rc;
}

struct arm_sum {
    long passed, total, tokens;
};

static struct arm_sum arm_sum(const up_eval_plan *p, size_t m, int repeat,
                              enum up_arm arm)
{
    struct arm_sum s = {0, 0, 0};

    for (size_t i = 0; i < p->njobs; i++) {
        const up_eval_job *j = &p->jobs[i];

        if (j->model != m || j->repeat != repeat || j->arm != arm)
            continue;
        s.total++;
        s.passed += j->passed != 0;
        s.tokens += (long)j->usage.input + (long)j->usage.output;
    }
    return s;
}

static double sum_rate(struct arm_sum s)
{
    return s.total ? (double)s.passed / (double)s.total : 0.0;
}

int up_eval_upstream_benchmark(const up_eval_plan *p)
{
    return (p->nmodels > 1 || p->runs > 1) && !p->per_model;
}

/*
 * Upstream's "passed" for a run: benchmark mode (several models or runs,
 * but not generate's evaluations, each of which upstream runs as a
 * single-model eval) every case passed; otherwise a baseline, or a with-skill
 * run without one, passes above 50%, and a with-skill run with a baseline
 * passes when upstream's is_beneficial holds (lift above 5 points, or no loss
 * and more than 20% fewer tokens).
 */
static int upstream_passed(const up_eval_plan *p, size_t m, int repeat,
                           enum up_arm arm)
{
    struct arm_sum w = arm_sum(p, m, repeat, arm), b;
    double lift, savings;

    if (up_eval_upstream_benchmark(p))
        return w.total && w.passed == w.total;
    if (arm == UP_ARM_BASELINE || !p->baseline)
        return sum_rate(w) > 0.5;
    b = arm_sum(p, m, repeat, UP_ARM_BASELINE);
    lift = sum_rate(w) - sum_rate(b);
    savings = b.tokens ? 1.0 - (double)w.tokens / (double)b.tokens : 0.0;
    return lift > 0.05 || (lift >= 0 && savings > 0.2);
}

/* A {tool: count} JSON object of the non-zero counts. */
static char *tool_map(const long *counts)
{
    json_t *o = json_object();
    char *text;

    for (size_t i = 0; up_tool_stat_name(i); i++)
        if (counts[i])
            json_object_set_new(o, up_tool_stat_name(i),
                                json_integer(counts[i]));
    text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    return text;
}

/* The tool-loop conversations of s into r (upstream's fields). */
static void run_add_sum(up_run_record *r, const up_eval_agent_sum *s,
                        long *calls, long *errors)
{
    r->llm_time_ms += s->llm_ms;
    r->model_turns += s->turns;
    r->agent_convs += s->convs;
    r->skill_reads += s->skill_reads;
    r->tool_calls += s->tool_calls;
    r->tool_errors += s->tool_errors;
    r->execute_calls += s->tool_calls; /* none of ours is an MCP call */
    for (size_t i = 0; i < UP_TOOL_ROWS; i++) {
        calls[i] += s->calls[i];
        errors[i] += s->errors[i];
    }
}

/* One conversation's time and tool counts into r; a folded one's are
 * in the plan's sums (up_eval_run_totals adds them). */
static void add_agent(up_run_record *r, const up_eval_job *j, long *calls,
                      long *errors)
{
    up_eval_agent_sum one = {0};

    r->span_ms += j->latency_ms;
    if (!j->agent) { /* one model call */
        r->llm_time_ms += j->latency_ms;
        r->model_turns++;
        return;
    }
    if (j->folded)
        return;
    sum_agent(&one, up_eval_job_agent_view(j));
    run_add_sum(r, &one, calls, errors);
}

void up_eval_run_totals(up_run_record *r, const up_eval_plan *p, size_t m,
                        int repeat, enum up_arm arm, const up_price *price)
{
    long calls[UP_TOOL_ROWS] = {0}, errors[UP_TOOL_ROWS] = {0};

    r->cost_usd = price ? 0 : -1;
    for (size_t i = 0; i < p->njobs; i++) {
        const up_eval_job *j = &p->jobs[i];

        if (j->model != m || j->repeat != repeat || j->arm != arm)
            continue;
        r->cases_total++;
        r->cases_passed += j->passed != 0;
        r->cases_errored += up_eval_job_errored(j);
        r->input_tokens += j->usage.input;
        r->output_tokens += j->usage.output;
        r->cached_tokens += j->usage.cached;
        r->reasoning_tokens += j->usage.reasoning;
        r->turns++; /* upstream: one fresh user message per case */
        add_agent(r, j, calls, errors);
        if (price)
            r->cost_usd += up_eval_job_cost(price, j);
    }
    if (p->agent_sums)
        run_add_sum(r, sum_of(p, m, repeat, arm), calls, errors);
    /* upstream's tool time: the span not spent waiting for the model */
    r->tool_time_ms =
        r->span_ms > r->llm_time_ms ? r->span_ms - r->llm_time_ms : 0;
    r->tool_call_map = tool_map(calls);
    r->tool_error_map = tool_map(errors);
    r->model = up_xstrdup(p->models[m]);
    r->run_type = up_xstrdup(arm == UP_ARM_SKILL ? "with_skill" : "baseline");
    r->skill_name = up_xstrdup(p->skill->name ? p->skill->name : "");
    if (p->skill_base) { /* compare: which skill this arm ran with */
        const up_skill *k = up_eval_arm_skill(p, arm);

        r->compare_arm = arm == UP_ARM_SKILL ? "B" : "A";
        r->arm_skill = up_xstrdup(k->name ? k->name : "");
        r->arm_version = k->meta.version ? up_xstrdup(k->meta.version) : NULL;
    }
    r->total_tokens = r->input_tokens + r->output_tokens;
    r->assertions_passed = r->cases_passed;
    r->assertions_total = r->cases_total;
    r->all_passed = r->cases_total && r->cases_passed == r->cases_total;
    r->passed = upstream_passed(p, m, repeat, arm);
    r->repeat = repeat;
    if (arm == UP_ARM_SKILL && p->baseline && p->suite->ncases) {
        up_stats_case *cs = up_eval_cases(p, m); /* the whole batch's */

        up_stats_skillsbench(&r->sb, cs, p->suite->ncases);
        r->has_sb = r->sb.n > 0;
        free(cs);
    }
}

int up_eval_pays(const up_eval_summary *s)
{
    const up_arm_totals *w = &s->arm[UP_ARM_SKILL],
                        *b = &s->arm[UP_ARM_BASELINE];

    /* an arm that answered nothing (every conversation errored) was
     * not measured: no cost verdict about it */
    if (!s->has_baseline || w->cost_usd < 0 || b->cost_usd < 0 ||
        (!w->passed && !b->passed) || w->jobs <= w->errors ||
        b->jobs <= b->errors)
        return -1;
    if (!w->passed)
        return 0;
    if (!b->passed)
        return 1;
    return w->cost_per_pass <= b->cost_per_pass;
}

void up_eval_pays_text(up_buf *out, const up_eval_summary *s)
{
    const up_arm_totals *w = &s->arm[UP_ARM_SKILL],
                        *b = &s->arm[UP_ARM_BASELINE];
    char lift[UP_STATS_FMT_LEN], wd[UP_STATS_FMT_LEN], bd[UP_STATS_FMT_LEN];
    int pays = up_eval_pays(s);

    if (pays < 0)
        return;
    up_buf_adds(out, pays ? "pays for itself: " : "does not pay for itself: ");
    if (!w->passed)
        up_buf_adds(out, "the skill arm passed no case");
    else if (!b->passed)
        up_buf_addf(out,
                    "%s per passed case with the skill, none passed "
                    "without",
                    up_stats_fmt_usd(wd, sizeof(wd), w->cost_per_pass));
    else
        up_buf_addf(out,
                    "a passed case costs %s with the skill against %s "
                    "without",
                    up_stats_fmt_usd(wd, sizeof(wd), w->cost_per_pass),
                    up_stats_fmt_usd(bd, sizeof(bd), b->cost_per_pass));
    if (w->passed && b->passed && b->cost_per_pass > 0)
        up_buf_addf(out, " (%+.0f%%)",
                    (w->cost_per_pass / b->cost_per_pass - 1) * 100);
    if (s->cmp.paired)
        up_buf_addf(out, ", for a lift of %s points at %+.0f%% tokens",
                    up_stats_fmt_bound(lift, sizeof(lift), s->cmp.lift.diff,
                                       s->cmp.margin),
                    s->cmp.token_change * 100);
}
