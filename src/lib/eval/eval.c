/*
 * The eval engine's plan: the job matrix and the prompts of both arms.
 *
 * Fairness invariant: system_skill == system_base + skill block, and the
 * user message of a case is the same in both arms, so the skill is the
 * only difference a model sees.  A compare plan (up_eval_plan_set_base)
 * gives the baseline arm skill A in the same injection: the two skills
 * are then the only difference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/cases/suite_lib.h"
#include "upskill/alloc.h"
#include "lib/sandbox/check.h"
#include "lib/eval/eval_job.h"
#include "upskill/eval.h"
#include "util/sha256.h"

static void add_escaped(up_buf *b, const char *s)
{
    static const struct {
        char c;
        const char *esc;
    } tab[] = {{'&', "&amp;"},
               {'<', "&lt;"},
               {'>', "&gt;"},
               {'"', "&quot;"},
               {'\'', "&#x27;"}};

    for (; *s; s++) {
        size_t i = 0;

        while (i < sizeof(tab) / sizeof(tab[0]) && tab[i].c != *s)
            i++;
        if (i < sizeof(tab) / sizeof(tab[0]))
            up_buf_adds(b, tab[i].esc);
        else
            up_buf_addc(b, *s);
    }
}

/* The Agent Skills catalogue entry, then the activated skill's content. */
static void add_agentskills(up_buf *b, const up_skill *s)
{
    up_buf_adds(b, "\n\n<available_skills>\n<skill>\n<name>\n");
    add_escaped(b, s->name ? s->name : "");
    up_buf_adds(b, "\n</name>\n<description>\n");
    add_escaped(b, s->description ? s->description : "");
    up_buf_adds(b, "\n</description>\n</skill>\n</available_skills>\n\n");
    up_buf_addf(b, "<skill_content name=\"%s\">\n", s->name ? s->name : "");
    up_buf_adds(b, s->body ? s->body : "");
    up_buf_adds(b, "\n</skill_content>");
}

static char *system_with_skill(const up_skill *s, enum up_inject inject)
{
    up_buf b = UP_BUF_INIT;

    up_buf_adds(&b, up_eval_neutral_prompt);
    if (inject == UP_INJECT_AGENTSKILLS)
        add_agentskills(&b, s);
    else
        up_buf_addf(&b, "\n\n## Skill: %s\n\n%s", s->name ? s->name : "",
                    s->body ? s->body : "");
    return up_buf_detach(&b);
}

/* Upstream: input, then each context file as a fenced block.  Without
 * files that is the input itself, borrowed: one copy less per case. */
static char *user_message(const up_case *c)
{
    up_buf b = UP_BUF_INIT;
    char *text;

    if (!c->nfiles && c->input)
        return c->input;
    up_buf_adds(&b, c->input ? c->input : "");
    for (size_t i = 0; i < c->nfiles; i++)
        up_buf_addf(&b, "\n\n```%s\n%s\n```", c->files[i].name,
                    c->files[i].content);
    text = up_buf_detach(&b);
    return up_xrealloc(text, strlen(text) + 1); /* one per case: no slack */
}

void up_eval_job_set_usage(up_eval_job *j, const up_usage *u)
{
    j->usage.input = up_eval_count32(u->input);
    j->usage.output = up_eval_count32(u->output);
    j->usage.cached = up_eval_count32(u->cached);
    j->usage.cache_write = up_eval_count32(u->cache_write);
    j->usage.reasoning = up_eval_count32(u->reasoning);
    j->usage.estimated = u->estimated != 0;
}

void up_eval_job_usage(const up_eval_job *j, up_usage *out)
{
    out->input = j->usage.input;
    out->output = j->usage.output;
    out->cached = j->usage.cached;
    out->cache_write = j->usage.cache_write;
    out->reasoning = j->usage.reasoning;
    out->estimated = j->usage.estimated;
}

int up_eval_check_size(size_t nmodels, size_t ncases, up_error *err)
{
    if (nmodels > UP_EVAL_MAX_INDEX || ncases > UP_EVAL_MAX_INDEX)
        return up_error_set(err, UP_ETOOBIG,
                            "a run takes at most %lu models and %lu cases "
                            "(%zu models, %zu cases given)",
                            (unsigned long)UP_EVAL_MAX_INDEX,
                            (unsigned long)UP_EVAL_MAX_INDEX, nmodels, ncases);
    return 0;
}

/* The indexes fit the job's fields: up_eval_plan_init checked the sizes,
 * and runs is at most UP_EVAL_MAX_RUNS. */
static void add_jobs(up_eval_plan *p, size_t cap)
{
    for (uint32_t m = 0; m < p->nmodels; m++)
        for (uint16_t r = 1; r <= p->runs; r++)
            for (int arm = p->baseline ? 0 : 1; arm <= 1; arm++)
                for (uint32_t k = 0; k < p->suite->ncases; k++) {
                    up_eval_job *j = &p->jobs[p->njobs++];

                    if (p->njobs > cap)
                        abort();
                    memset(j, 0, sizeof(*j));
                    j->model = m;
                    j->arm = (unsigned char)arm;
                    j->kase = k;
                    j->repeat = r;
                }
}

void up_eval_plan_init(up_eval_plan *p, const up_skill *skill,
                       const up_suite *suite, const char *const *models,
                       size_t nmodels, int runs, int baseline,
                       enum up_inject inject)
{
    size_t cap;

    if (up_eval_check_size(nmodels, suite->ncases, NULL) ||
        runs > UP_EVAL_MAX_RUNS) {
        fprintf(stderr,
                "upskill: fatal: a plan of %zu models, %zu cases "
                "and %d runs is over its limits\n",
                nmodels, suite->ncases, runs);
        abort();
    }
    memset(p, 0, sizeof(*p));
    p->skill = skill;
    p->suite = suite;
    p->runs = runs < 1 ? 1 : runs;
    p->baseline = baseline;
    p->margin = UP_STATS_MARGIN;
    p->seed = 1; /* the statistics' default seed */
    p->inject = inject;
    p->check_mode = (int)UP_SANDBOX_BWRAP; /* the session's --sandbox wins */
    p->nmodels = nmodels;
    p->models = up_xcalloc(nmodels, sizeof(*p->models));
    for (size_t i = 0; i < nmodels; i++)
        p->models[i] = up_xstrdup(models[i]);
    p->system_base = up_xstrdup(up_eval_neutral_prompt);
    p->system_skill = system_with_skill(skill, inject);
    p->user = up_xcalloc(suite->ncases, sizeof(*p->user));
    p->case_bits = up_xcalloc(suite->ncases, 1);
    for (size_t k = 0; k < suite->ncases; k++) {
        p->user[k] = user_message(&suite->cases[k]);
        if (up_case_needs_workspace(&suite->cases[k]))
            p->case_bits[k] = UP_EVAL_CASE_WORKSPACE;
    }
    cap = nmodels * (size_t)p->runs * 2 * suite->ncases;
    p->jobs = up_xcalloc(cap, sizeof(*p->jobs));
    add_jobs(p, cap);
}

void up_eval_plan_set_aa(up_eval_plan *p)
{
    free(p->system_skill);
    p->system_skill = up_xstrdup(p->system_base);
    p->aa = 1;
}

int up_eval_shard_parse(const char *s, int *index, int *count, up_error *err)
{
    char *end;
    long i, n;

    *index = *count = 0;
    if (!s)
        return 0;
    i = strtol(s, &end, 10);
    n = *end == '/' && end > s ? strtol(end + 1, &end, 10) : -1;
    if (*end || n < 1 || n > UP_EVAL_SHARD_MAX || i < 1 || i > n || s[0] == '+')
        return up_error_set(err, UP_EUSAGE,
                            "--shard '%s': expected I/N with 1 <= I <= N <= %d "
                            "(e.g. 2/4)",
                            s, UP_EVAL_SHARD_MAX);
    *index = (int)i;
    *count = (int)n;
    return 0;
}

/* The shard (0-based) of model m, case k, repeat r among count. */
static int shard_of(const up_eval_plan *p, size_t m, size_t k, int r, int count)
{
    up_buf key = UP_BUF_INIT;
    char hex[65];
    uint64_t h = 0;

    up_buf_adds(&key, p->models[m]);
    up_buf_addc(&key, '\0');
    up_buf_adds(&key, p->user[k]);
    up_buf_addf(&key, "%c%d", '\0', r);
    up_sha256_hex(hex, key.data, key.len);
    up_buf_release(&key);
    for (int i = 0; i < 16; i++)
        h = h << 4 |
            (uint64_t)(hex[i] <= '9' ? hex[i] - '0' : hex[i] - 'a' + 10);
    return (int)(h % (uint64_t)count);
}

void up_eval_plan_shard(up_eval_plan *p, int index, int count)
{
    size_t kept = 0;

    if (count < 1)
        return;
    for (size_t i = 0; i < p->njobs; i++) {
        const up_eval_job *j = &p->jobs[i];

        if (shard_of(p, j->model, j->kase, j->repeat, count) == index - 1)
            p->jobs[kept++] = *j;
    }
    p->njobs = kept;
    p->shard_index = index;
    p->shard_count = count;
}

int up_eval_case_needs_workspace(const up_eval_plan *p, size_t k)
{
    return p->case_bits[k] & UP_EVAL_CASE_WORKSPACE;
}

int up_eval_job_is_agent(const up_eval_plan *p, const up_eval_job *j)
{
    return p->agent || up_eval_case_needs_workspace(p, j->kase);
}

up_eval_job_live *up_eval_job_live_of(up_eval_job *j)
{
    if (!j->live)
        j->live = up_xcalloc(1, sizeof(*j->live));
    return j->live;
}

const up_eval_job_live *up_eval_job_live_view(const up_eval_job *j)
{
    static const up_eval_job_live none;

    return j->live ? j->live : &none;
}

void up_eval_job_results_free(up_eval_job *j)
{
    if (!j->live || !j->live->results)
        return;
    up_assert_results_free(j->live->results, j->live->asserts.n);
    j->live->results = NULL;
}

void up_eval_job_live_free(up_eval_job *j)
{
    if (!j->live)
        return;
    up_eval_job_results_free(j);
    up_assert_list_release(&j->live->asserts);
    free(j->live->answer);
    free(j->live->grading);
    free(j->live);
    j->live = NULL;
}

up_eval_agent_job *up_eval_job_agent(up_eval_job *j)
{
    if (!j->ag)
        j->ag = up_xcalloc(1, sizeof(*j->ag));
    return j->ag;
}

const up_eval_agent_job *up_eval_job_agent_view(const up_eval_job *j)
{
    static const up_eval_agent_job none;

    return j->ag ? j->ag : &none;
}

const up_eval_job *up_eval_plan_job(const up_eval_plan *p, size_t i)
{
    return &p->jobs[i];
}

void up_eval_job_view_of(const up_eval_job *j, up_eval_job_view *v)
{
    const up_eval_job_live *lv = up_eval_job_live_view(j);
    const up_assert_result *r = lv->results;

    *v = (up_eval_job_view){
        .model = j->model,
        .kase = j->kase,
        .repeat = j->repeat,
        .arm = (enum up_arm)j->arm,
        .error = j->error,
        .error_msg = j->error_msg,
        .ungradable = j->ungradable,
        .answer = lv->answer,
        .first_miss = r && r[0].message.len ? r[0].message.data : NULL,
        .limit = up_eval_job_agent_view(j)->limit,
        .input_tokens = (long)j->usage.input,
        .output_tokens = (long)j->usage.output,
        .cut_at = j->cut_at,
        .done = j->done,
        .passed = j->passed,
        .from_cache = j->from_cache,
    };
}

int up_eval_job_errored(const up_eval_job *j)
{
    return j->error && !up_eval_job_own_failure(j);
}

void up_eval_job_set_workspace(up_eval_job *j, const struct up_workspace *ws)
{
    if (ws || j->ag)
        up_eval_job_agent(j)->workspace = ws;
}

/* The artifact's trees of x, freed. */
static void agent_trees_free(up_eval_agent_job *x)
{
    json_decref(x->transcript);
    json_decref(x->workspace_json);
    json_decref(x->tools_json);
    x->transcript = x->workspace_json = x->tools_json = NULL;
}

void up_eval_job_agent_free(up_eval_job *j)
{
    if (!j->ag)
        return;
    free(j->ag->limit);
    agent_trees_free(j->ag);
    free(j->ag);
    j->ag = NULL;
}

void up_eval_job_shed(up_eval_plan *p, up_eval_job *j)
{
    up_eval_job_live_free(j);
    up_eval_job_fold_agent(p, j);
    if (j->ag) /* not folded (a limit): the counters stay as they are */
        agent_trees_free(j->ag);
    j->logged = 1;
}

static void job_release(up_eval_job *j)
{
    up_eval_job_live_free(j);
    free(j->error_msg);
    free(j->ungradable);
    up_eval_job_agent_free(j);
}

void up_eval_plan_release(up_eval_plan *p)
{
    for (size_t i = 0; i < p->njobs; i++)
        job_release(&p->jobs[i]);
    for (size_t i = 0; i < p->nmodels; i++)
        free(p->models[i]);
    for (size_t k = 0; p->user && k < p->suite->ncases; k++)
        if (p->user[k] != p->suite->cases[k].input)
            free(p->user[k]);
    free(p->models);
    free(p->user);
    free(p->case_bits);
    free(p->agent_sums);
    free(p->jobs);
    free(p->system_base);
    free(p->system_skill);
    for (size_t k = 0; p->case_system && k < p->suite->ncases; k++)
        if (!k || p->case_system[k] != p->case_system[k - 1])
            free(p->case_system[k]);
    free(p->case_system);
    memset(p, 0, sizeof(*p));
}

void up_eval_plan_set_base(up_eval_plan *p, const up_skill *a)
{
    free(p->system_base);
    p->skill_base = a;
    p->system_base = a ? system_with_skill(a, p->inject)
                       : up_xstrdup(up_eval_neutral_prompt);
}

const up_skill *up_eval_arm_skill(const up_eval_plan *p, enum up_arm arm)
{
    return arm == UP_ARM_SKILL ? p->skill : p->skill_base;
}

void up_eval_plan_case_prompts(up_eval_plan *p)
{
    size_t n = p->suite->ncases;

    p->case_system = up_xcalloc(n ? n : 1, sizeof(*p->case_system));
    for (size_t k = 0; k < n; k++) {
        const up_case *c = &p->suite->cases[k];

        if (!up_case_task_of(c)->nskills)
            continue;
        /* cases of one skill are consecutive: one string for them all */
        if (k && p->case_system[k - 1] &&
            up_case_task_of(&p->suite->cases[k - 1])->skills ==
                up_case_task_of(c)->skills)
            p->case_system[k] = p->case_system[k - 1];
        else
            p->case_system[k] =
                system_with_skill(&up_case_task_of(c)->skills[0], p->inject);
    }
}

const char *up_eval_system(const up_eval_plan *p, const up_eval_job *j)
{
    if (j->arm == UP_ARM_SKILL && p->case_system && p->case_system[j->kase])
        return p->case_system[j->kase];
    return j->arm == UP_ARM_SKILL ? p->system_skill : p->system_base;
}
