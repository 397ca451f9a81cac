/*
 * upskill generate, the teacher's side: models, the source (a skill to
 * improve or a trace), and every conversation with the teacher and the
 * test-gen model.  gen_loop.c runs the evaluate-and-refine loop.
 *
 * A teacher reply is never trusted: it is parsed, merged with the files
 * of the version it replaces, checked as a skill folder, and when it has
 * errors it is sent back with them (max_repairs times) in the same
 * conversation.  Each call is self-contained otherwise: the refine prompt
 * carries the whole skill, so nothing depends on a chat history.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cases/suite_lib.h"
#include "lib/config/config_lib.h"
#include "lib/skill/skill_lib.h"
#include "lib/gen/gen_lib.h"
#include "lib/eval/session_lib.h"
#include "lib/eval/eval_job.h"
#include "upskill/alloc.h"
#include "lib/sandbox/check.h"
#include "upskill/fs.h"
#include "upskill/gen.h"
#include "upskill/provider.h"
#include "upskill/trace.h"

#include "lib/gen/gen_loop.h"

#define TEACHER_MAX_TOKENS 16000

/* ---- set-up ----------------------------------------------------------- */

static void session_opts(up_gen *g, up_session_opts *so, const char *tests)
{
    const up_gen_opts *o = g->o;

    up_session_opts_init(so);
    so->jobs = o->jobs;
    so->runs_dir = o->runs_dir;
    so->no_log = o->no_log;
    so->no_cache = o->no_cache;
    so->cancel_at = 1; /* nothing resumes a generate: stop at once */
    so->judge_model = tests;
    so->stop = o->stop;
    so->note = o->note;
    so->note_ud = o->event_ud;
    so->waiting = o->waiting;
    so->waiting_ud = o->event_ud;
    so->progress = o->progress;
    so->progress_ud = o->event_ud;
    up_session_agent_opts(so, o->agent, o->inject, o->max_turns,
                          o->token_budget, o->wall_ms);
}

/* The session's targets: teacher, students, then the test-gen model. */
static int resolve_all(up_gen *g, up_error *err)
{
    const up_gen_opts *o = g->o;
    const char *teacher = o->model ? o->model
                          : g->cfg->skill_generation_model.value
                              ? g->cfg->skill_generation_model.value
                              : "sonnet";
    const char *tests = o->test_gen_model ? o->test_gen_model
                        : g->cfg->test_gen_model.value
                            ? g->cfg->test_gen_model.value
                            : teacher;
    up_session_opts so;
    int rc;

    session_opts(g, &so, tests);
    rc = up_session_run_opts(&so, o->run_tool, o->sandbox, err);
    up_session_init(&g->session, &so, g->cfg);
    if (!rc) /* before the teacher is asked anything */
        rc = up_session_check_sandbox(&g->session, err);
    if (!rc)
        rc = up_session_add_target(&g->session, teacher, NULL, NULL, NULL, err);
    for (size_t i = 0; !rc && i < o->neval_models; i++)
        rc = up_session_add_target(&g->session, o->eval_models[i],
                                   o->eval_base_url, o->eval_api_key_env, NULL,
                                   err);
    if (!rc)
        rc = up_session_add_target(&g->session, tests, NULL, NULL, NULL, err);
    if (!rc)
        g->nmodels = 1 + o->neval_models;
    return rc;
}

const up_model *up_gen_model(const up_gen *g, size_t m)
{
    return &g->session.targets[m].model;
}

/*
 * The one place a trace is read: parsed by the trace module, rendered
 * within the budget (start, end and errors kept), reported to the caller.
 */
static int load_trace(up_gen *g, up_error *err)
{
    up_trace t;
    up_trace_stats st;
    up_buf note = UP_BUF_INIT;
    int rc = up_trace_load(&t, g->o->from, err);

    if (!rc) {
        up_trace_render(&t, g->o->trace_budget, &g->trace, &st);
        up_buf_addf(&note, "%s, %zu of %zu events, ~%zu tokens\n",
                    up_trace_format_name(t.format), st.events_kept,
                    st.events_total, st.tokens_after);
        for (size_t i = 0; i < t.nwarnings; i++)
            up_buf_addf(&note, "%s\n", t.warnings[i]);
        gen_emit(g, UP_GEN_EV_TRACE, 0, NULL, note.data, NULL);
    }
    up_trace_release(&t);
    up_buf_release(&note);
    return rc;
}

void gen_clear(up_gen *g, const up_gen_opts *o, const up_config *cfg)
{
    memset(g, 0, sizeof(*g));
    g->o = o;
    g->cfg = cfg;
    up_skill_init(&g->source);
    up_suite_init(&g->suite);
    up_suite_init(&g->held);
    up_validate_init(&g->saved, UP_VP_SPEC);
}

int up_gen_init(up_gen *g, const up_gen_opts *o, const up_config *cfg,
                up_error *err)
{
    int rc;

    gen_clear(g, o, cfg);
    g->max_attempts = (size_t)(o->max_attempts > 0 ? o->max_attempts
                               : cfg->max_refine_attempts.value > 0
                                   ? cfg->max_refine_attempts.value
                                   : 1);
    g->attempts = up_xcalloc(g->max_attempts, sizeof(*g->attempts));
    rc = up_gen_test_counts(o, cfg, &g->min_tests, &g->max_tests, err);
    if (!rc)
        rc = resolve_all(g, err);
    if (!rc && o->from && up_fs_is_dir(o->from)) {
        rc = up_skill_load(&g->source, o->from, err);
        g->has_source = !rc;
    } else if (!rc && o->from) {
        rc = load_trace(g, err);
    }
    if (!rc) /* the folder rule, before anything is spent */
        rc = gen_check_target(g, g->has_source ? g->source.name : NULL, err);
    return rc;
}

void up_gen_release(up_gen *g)
{
    for (size_t i = 0; i < g->nattempts; i++) {
        up_gen_attempt *a = &g->attempts[i];

        if (a->plan.jobs)
            up_eval_plan_release(&a->plan);
        free(a->sums);
        free(a->quotes);
        up_skill_release(&a->skill);
    }
    free(g->attempts);
    up_session_release(&g->session);
    up_skill_release(&g->source);
    up_suite_release(&g->suite);
    gen_holdout_release(g);
    up_buf_release(&g->trace);
    up_buf_release(&g->output);
    up_buf_release(&g->backup);
    up_validate_release(&g->saved);
    memset(g, 0, sizeof(*g));
}

void gen_emit(up_gen *g, enum up_gen_stage stage, int attempt,
              const char *model, const char *detail, const up_gen_attempt *a)
{
    up_gen_event ev = {stage, attempt, model, detail, a, g};

    if (g->o->event)
        g->o->event(g->o->event_ud, &ev);
}

/* ---- conversations ---------------------------------------------------- */

/* A growing conversation; strings owned. */
struct convo {
    up_message *msgs;
    char **owned;
    size_t n;
};

static void convo_add(struct convo *c, const char *role, char *content)
{
    c->msgs = up_xrealloc(c->msgs, (c->n + 1) * sizeof(*c->msgs));
    c->owned = up_xrealloc(c->owned, (c->n + 1) * sizeof(*c->owned));
    c->msgs[c->n].role = role;
    c->msgs[c->n].content = content;
    c->owned[c->n++] = content;
}

static void convo_release(struct convo *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->owned[i]);
    free(c->msgs);
    free(c->owned);
}

/* Count one call of model m into c. */
static void add_usage(up_gen_cost *c, const up_config *cfg, const up_model *m,
                      const up_usage *u)
{
    const up_price *pr = up_config_price(cfg, m->resolved, m->model_id);

    c->calls++;
    c->usage.input += u->input;
    c->usage.output += u->output;
    c->usage.cached += u->cached;
    c->usage.reasoning += u->reasoning;
    c->usage.estimated |= u->estimated;
    if (!pr || c->cost_usd < 0)
        c->cost_usd = -1;
    else
        c->cost_usd += up_eval_cost(pr, u);
}

/*
 * One completion on target i's endpoint; the answer goes to
 * *text (owned).  schema may be NULL.
 */
static int complete(up_gen *g, size_t i, const char *system,
                    const struct convo *c, const char *schema, char **text,
                    up_error *err)
{
    up_endpoint ep = g->session.targets[i].ep;
    up_request rq;
    up_response res;
    up_sched_opts so;
    int rc;

    up_request_init(&rq);
    rq.system = system;
    rq.messages = c->msgs;
    rq.n_messages = c->n;
    rq.schema = schema;
    rq.schema_name = schema ? "test_cases" : NULL;
    if (!ep.max_tokens) /* no --max-tokens or max_tokens key */
        ep.max_tokens = TEACHER_MAX_TOKENS;
    up_sched_opts_init(&so);
    so.stop = g->o->stop;
    so.waiting = g->o->call_waiting;
    so.waiting_ud = g->o->event_ud;
    so.wait_every_ms = UP_GEN_CALL_TICK_MS;
    rc = up_provider_complete_with(&ep, &rq, &so, &res);
    add_usage(i < g->nmodels ? &g->writing : &g->testing, g->cfg,
              up_gen_model(g, i), &res.usage);
    if (rc)
        *err = res.err;
    else
        *text = up_xstrdup(res.text ? res.text : "");
    if (rc && res.truncated) /* the cause the user can act on */
        up_error_prefix(err,
                        "a reply was cut at max_tokens %d (raise it with "
                        "--max-tokens or the max_tokens config key); then: ",
                        res.max_tokens);
    up_response_release(&res);
    return rc;
}

/* ---- skills from the teacher ----------------------------------------- */

/* Files of prev the draft does not replace are kept. */
static void inherit_files(up_gen_draft *d, const up_skill *prev)
{
    for (size_t i = 0; prev && i < prev->nfiles; i++) {
        size_t j = 0;

        while (j < d->nfiles && strcmp(d->files[j].path, prev->files[i].path))
            j++;
        if (j < d->nfiles)
            continue;
        d->files = up_xrealloc(d->files, (d->nfiles + 1) * sizeof(*d->files));
        d->files[d->nfiles] = prev->files[i];
        d->files[d->nfiles].path = up_xstrdup(prev->files[i].path);
        d->files[d->nfiles].data =
            up_xstrndup(prev->files[i].data, prev->files[i].len);
        d->nfiles++;
    }
}

static char *dup_or_null(const char *s)
{
    return s ? up_xstrdup(s) : NULL;
}

static up_kv *copy_kvs(const up_kv *v, size_t n)
{
    up_kv *out = up_xcalloc(n ? n : 1, sizeof(*out));

    for (size_t i = 0; i < n; i++) {
        out[i].key = up_xstrdup(v[i].key);
        out[i].value = up_xstrdup(v[i].value);
    }
    return out;
}

/* Frontmatter fields of prev the new version leaves out are kept. */
static void inherit_front(up_skill *s, const up_skill *prev)
{
    if (!s->license)
        s->license = dup_or_null(prev->license);
    if (!s->compatibility)
        s->compatibility = dup_or_null(prev->compatibility);
    if (!s->allowed_tools)
        s->allowed_tools = dup_or_null(prev->allowed_tools);
    if (!s->nmetadata && prev->nmetadata) {
        free(s->metadata);
        s->metadata = copy_kvs(prev->metadata, prev->nmetadata);
        s->nmetadata = prev->nmetadata;
    }
    if (!s->nextra && prev->nextra) {
        free(s->extra);
        s->extra = copy_kvs(prev->extra, prev->nextra);
        s->nextra = prev->nextra;
    }
}

/* Read and check one reply; 0 with *s filled, 1 to repair (errors set). */
static int take_reply(const char *text, const up_skill *prev, up_skill *s,
                      up_buf *errors, up_buf *warnings, up_error *err)
{
    up_gen_draft d;
    up_error e;
    int rc;

    up_gen_draft_init(&d);
    if (up_gen_reply_parse(&d, text, &e)) {
        up_buf_addf(errors, "- %s\n", e.msg);
        return 1;
    }
    inherit_files(&d, prev);
    rc = up_gen_draft_check(&d, errors, warnings, err);
    if (rc == 0 && up_gen_draft_skill(s, &d, &e)) {
        up_buf_addf(errors, "- %s\n", e.msg);
        rc = 1;
    }
    up_gen_draft_release(&d);
    return rc < 0 ? rc : rc > 0;
}

/* errors as one line for a message: "a; b; c". */
static void one_line(up_buf *out, const char *errors)
{
    for (const char *p = errors; *p; p++) {
        if (*p == '\n' && p[1])
            up_buf_adds(out, "; ");
        else if (*p != '\n' && !(*p == '-' && (p == errors || p[-1] == '\n')))
            up_buf_addc(out, *p);
    }
}

static int give_up(up_gen *g, const up_buf *errors, int repairs, up_error *err)
{
    up_buf line = UP_BUF_INIT;
    int rc;

    one_line(&line, errors->data);
    rc = up_error_set(err, UP_EINVALID,
                      "'%s': the teacher's skill is still invalid after %d "
                      "repair(s):%s",
                      up_gen_model(g, 0)->resolved, repairs, line.data);
    up_buf_release(&line);
    return rc;
}

static int repair_turn(up_gen *g, struct convo *c, char *reply,
                       const up_buf *errors, up_error *err)
{
    up_buf tmpl = UP_BUF_INIT, msg = UP_BUF_INIT;
    up_gen_var v = {"errors", errors->data};
    int rc = up_gen_prompt(&tmpl, "repair", g->cfg->prompts_dir.value, err);

    convo_add(c, "assistant", reply);
    if (!rc) {
        up_gen_expand(&msg, tmpl.data, &v, 1);
        convo_add(c, "user", up_buf_detach(&msg));
    }
    up_buf_release(&tmpl);
    return rc;
}

int gen_ask_skill(up_gen *g, const char *user, const up_skill *prev,
                  up_skill *s, int attempt, up_error *err)
{
    int max = g->o->max_repairs < 0 ? 2 : g->o->max_repairs, rc = 0;
    up_buf sys = UP_BUF_INIT, errors = UP_BUF_INIT, warn = UP_BUF_INIT;
    struct convo c = {NULL, NULL, 0};
    char *reply = NULL;

    convo_add(&c, "user", up_xstrdup(user));
    rc = up_gen_prompt(&sys, "system", g->cfg->prompts_dir.value, err);
    for (int turn = 0; !rc; turn++) {
        up_buf_reset(&errors);
        up_buf_reset(&warn);
        rc = complete(g, 0, sys.data, &c, NULL, &reply, err);
        if (!rc && !(rc = take_reply(reply, prev, s, &errors, &warn, err))) {
            if (warn.len)
                gen_emit(g, UP_GEN_EV_WARNINGS, attempt, NULL, warn.data, NULL);
            if (prev)
                inherit_front(s, prev);
            break;
        }
        if (rc == 1 && turn >= max)
            rc = give_up(g, &errors, turn, err);
        else if (rc == 1) {
            gen_emit(g, UP_GEN_EV_REPAIR, attempt, up_gen_model(g, 0)->resolved,
                     errors.data, NULL);
            up_skill_release(s);
            rc = repair_turn(g, &c, reply, &errors, err);
            reply = NULL;
        }
    }
    free(reply);
    convo_release(&c);
    up_buf_release(&sys);
    up_buf_release(&errors);
    up_buf_release(&warn);
    return rc;
}

/* ---- the first version ------------------------------------------------ */

static void examples_text(up_buf *out, const up_gen_opts *o)
{
    if (!o->nexamples)
        return;
    up_buf_adds(out, "\nExamples of what the agent will be asked, with good "
                     "answers:\n");
    for (size_t i = 0; i < o->nexamples; i++)
        up_buf_addf(out, "- %s\n", o->examples[i]);
}

static void now_utc(char *out, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* generated_by/at are new; the rest is the improved skill's, if any. */
static void set_meta(up_gen *g, up_skill *s)
{
    char stamp[32];
    up_buf task = UP_BUF_INIT;

    now_utc(stamp, sizeof(stamp));
    s->has_meta = 1;
    s->meta.version = up_xstrdup(g->has_source && g->source.meta.version
                                     ? g->source.meta.version
                                     : "1.0");
    s->meta.generated_by = up_xstrdup(up_gen_model(g, 0)->resolved);
    s->meta.generated_at = up_xstrdup(stamp);
    if (g->has_source && g->source.meta.source_task)
        up_buf_adds(&task, g->source.meta.source_task);
    else if (g->has_source)
        up_buf_addf(&task, "Improved from %s: %s", g->source.name, g->o->task);
    else
        up_buf_adds(&task, g->o->task);
    s->meta.source_task = up_buf_detach(&task);
    if (g->has_source && g->source.meta.license)
        s->meta.license = up_xstrdup(g->source.meta.license);
    if (g->has_source && g->source.meta.compatibility)
        s->meta.compatibility = up_xstrdup(g->source.meta.compatibility);
}

int gen_first(up_gen *g, up_skill *s, up_error *err)
{
    up_buf tmpl = UP_BUF_INIT, user = UP_BUF_INIT, ex = UP_BUF_INIT,
           cur = UP_BUF_INIT, trace = UP_BUF_INIT;
    const char *name = g->has_source ? "improve" : "generate";
    int rc = up_gen_prompt(&tmpl, name, g->cfg->prompts_dir.value, err);

    examples_text(&ex, g->o);
    if (g->has_source)
        up_gen_skill_text(&cur, &g->source);
    if (g->trace.len)
        up_buf_addf(&trace,
                    "\nAn agent's trace of solving this task follows. Learn "
                    "from what worked and from the corrections it needed; "
                    "the final solution is usually near the end.\n\n"
                    "<trace>\n%s\n</trace>\n",
                    g->trace.data);
    if (!rc) {
        up_gen_var v[] = {{"task", g->o->task},
                          {"examples", ex.data},
                          {"trace", trace.data},
                          {"skill", cur.data}};

        up_gen_expand(&user, tmpl.data, v, 4);
        gen_emit(g, UP_GEN_EV_SKILL, 0, up_gen_model(g, 0)->resolved,
                 g->has_source  ? "improve"
                 : g->trace.len ? "trace"
                                : "task",
                 NULL);
        rc = gen_ask_skill(g, user.data, g->has_source ? &g->source : NULL, s,
                           0, err);
    }
    if (!rc)
        set_meta(g, s);
    up_buf_release(&tmpl);
    up_buf_release(&user);
    up_buf_release(&ex);
    up_buf_release(&cur);
    up_buf_release(&trace);
    return rc;
}

/* ---- tests ------------------------------------------------------------ */

static void tests_task(up_buf *out, const up_gen *g)
{
    if (g->has_source)
        up_buf_addf(out, "%s: %s\n(The skill is being improved: %s)",
                    g->source.name, g->source.description, g->o->task);
    else
        up_buf_adds(out, g->o->task);
}

static int ask_tests(up_gen *g, struct convo *c, const char *sys, up_buf *notes,
                     up_error *err)
{
    char *reply = NULL;
    int rc = complete(g, g->nmodels, sys, c, up_gen_tests_schema, &reply, err);

    if (!rc)
        rc = up_gen_tests_read(&g->suite, reply, g->min_tests, g->max_tests,
                               notes, err);
    if ((rc == UP_EINVALID || rc == UP_EPARSE) && reply) {
        convo_add(c, "assistant", reply);
        reply = NULL;
    }
    free(reply);
    return rc;
}

int gen_tests(up_gen *g, up_error *err)
{
    up_buf sys = UP_BUF_INIT, tmpl = UP_BUF_INIT, user = UP_BUF_INIT,
           task = UP_BUF_INIT, ex = UP_BUF_INIT, notes = UP_BUF_INIT,
           progs = UP_BUF_INIT;
    char min[16], max[16];
    struct convo c = {NULL, NULL, 0};
    int rc =
        up_gen_prompt(&sys, "tests-system", g->cfg->prompts_dir.value, err);

    if (!rc)
        rc = up_gen_prompt(&tmpl, "tests", g->cfg->prompts_dir.value, err);
    snprintf(min, sizeof(min), "%d", g->min_tests);
    snprintf(max, sizeof(max), "%d", g->max_tests);
    tests_task(&task, g);
    examples_text(&ex, g->o);
    up_check_programs_text(&progs); /* what a check may run here */
    if (!rc) {
        up_gen_var v[] = {{"task", task.data},
                          {"examples", ex.data},
                          {"min_tests", min},
                          {"max_tests", max},
                          {"programs", progs.data}};

        up_gen_expand(&user, tmpl.data, v, 5);
        convo_add(&c, "user", up_buf_detach(&user));
        gen_emit(g, UP_GEN_EV_TESTS, 0, up_gen_model(g, g->nmodels)->resolved,
                 NULL, NULL);
        rc = ask_tests(g, &c, sys.data, &notes, err);
    }
    if (rc && c.n == 2) {
        up_buf_addf(&user,
                    "Your reply could not be used: %s.\nReply again "
                    "with only the JSON, following every rule above.",
                    err->msg);
        convo_add(&c, "user", up_buf_detach(&user));
        up_suite_release(&g->suite);
        up_buf_reset(&notes);
        rc = ask_tests(g, &c, sys.data, &notes, err);
    }
    if (!rc)
        gen_emit(g, UP_GEN_EV_TESTS, 0, up_gen_model(g, g->nmodels)->resolved,
                 notes.len ? notes.data : "", NULL);
    convo_release(&c);
    up_buf_release(&sys);
    up_buf_release(&tmpl);
    up_buf_release(&task);
    up_buf_release(&ex);
    up_buf_release(&notes);
    up_buf_release(&progs);
    return rc;
}
