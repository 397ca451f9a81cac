/*
 * What `eval` and `benchmark` show around a run: the session's notes,
 * the "still waiting" line, the start line, then the outcome (reports,
 * the comparison table, cut answers, gates, failures) and its exit code.
 */
#include <stdlib.h>
#include <string.h>

#include "eval_cli.h"

/*
 * Upstream's "Loaded N test case(s) from SOURCE" on stdout, for scripts
 * that grep it; SOURCE is upstream's wording ("tests file: PATH",
 * "skill_meta.json", "generated"), ours for skill-creator's evals.json.
 */
static const char *const loaded_from[] = {
    [UP_SUITE_FROM_META] = "skill_meta.json",
    [UP_SUITE_FROM_EVALS] = "evals/evals.json",
    [UP_SUITE_FROM_GENERATED] = "generated",
};

void eval_loaded_line(const struct eval_args *a, const up_suite *s)
{
    size_t k = (size_t)s->from;
    const char *from = k < sizeof(loaded_from) / sizeof(loaded_from[0])
                           ? loaded_from[k]
                           : NULL;

    if (!a->upstream_lines)
        return;
    printf("Loaded %zu test case(s) from ", s->ncases);
    if (a->tests)
        printf("tests file: %s\n", out_safe(a->tests));
    else
        printf("%s\n", from ? from : "elsewhere");
}

/* 1 when our verdict says the skill is worth keeping. */
static int verdict_keeps(up_verdict v)
{
    return v == UP_VERDICT_BENEFICIAL || v == UP_VERDICT_TOKEN_SAVER;
}

/* Upstream's closing line of a one-model eval with a baseline, by its
 * own rule (is_beneficial), kept as upstream prints it for scripts; when
 * our verdict above disagrees, a second line says both plainly. */
static void recommendation(const up_eval_summary *s)
{
    const up_comparison *c = &s->cmp;

    if (!s->has_baseline)
        return;
    printf("\nRecommendation: %s\n",
           c->is_beneficial ? "keep skill" : "skill may not be beneficial");
    if (c->verdict == UP_VERDICT_NOT_MEASURED ||
        !c->is_beneficial == !verdict_keeps(c->verdict))
        return;
    printf("  (that is upstream's rule: a lift above 5 points, or no loss "
           "and fewer tokens; the verdict above, %s, %s)\n",
           up_stats_verdict_label(c->verdict),
           c->is_beneficial ? "says the evidence does not show that the skill "
                              "helps: run more cases or --runs before "
                              "keeping it on this result"
                            : "says it helps: keep it");
}

void eval_note(void *ud, enum up_session_note kind, const char *text)
{
    const struct eval_args *a = ud;

    switch (kind) {
    case UP_SESSION_WARN:
        out_warn("%s", text);
        break;
    case UP_SESSION_TESTS:
        fprintf(stderr, "tests: %s\n", out_safe(text));
        break;
    case UP_SESSION_CREATED:
        fprintf(stderr, "%s\n", text);
        break;
    case UP_SESSION_RESUMED:
        if (!a->json)
            fprintf(stderr, "%s\n", text);
        break;
    case UP_SESSION_LOGGING:
        if (!a->json)
            fprintf(stderr, "%sLogging to: %s%s\n", out_c(C_DIM), text,
                    out_c(C_RESET));
        break;
    }
}

void eval_cli_wait_note(void *ud, const up_sched_wait *w)
{
    (void)ud;
    if (out_err_is_tty()) /* end the live progress line first */
        fputc('\n', stderr);
    if (w->stopping) {
        fprintf(stderr,
                "upskill: finishing %zu conversations; Ctrl-C again to stop "
                "now\n",
                w->in_flight);
        return;
    }
    fprintf(stderr,
            "upskill: no answer for %ld s: %zu conversation(s) in flight, "
            "%zu failed so far",
            w->waited_ms / 1000, w->in_flight, w->failed);
    if (w->last)
        fprintf(stderr, "; the last failure: %s", w->last);
    if (w->last && w->retry_in_ms >= 0)
        fprintf(stderr, " (next try in %ld s)", (w->retry_in_ms + 999) / 1000);
    fputc('\n', stderr);
}

void eval_report_start(const up_eval_session *e)
{
    fprintf(stderr,
            "Evaluating %s on %zu model(s): %zu case(s) x %d "
            "run(s), baseline %s\n",
            out_safe(e->skill.name), e->plan.nmodels, e->suite.ncases,
            e->plan.runs, e->plan.baseline ? "on" : "off");
}

int eval_gates(const struct eval_args *a, const up_eval_summary *s, size_t n)
{
    int rc = EXIT_OK;

    for (size_t m = 0; m < n; m++) {
        if (a->fail_under >= 0 &&
            s[m].arm[UP_ARM_SKILL].rate.rate < a->fail_under) {
            out_error("'%s': with-skill pass rate %.2f is under %.2f",
                      s[m].model, s[m].arm[UP_ARM_SKILL].rate.rate,
                      a->fail_under);
            rc = EXIT_GATE;
        }
        if (a->require_lift &&
            (!s[m].has_baseline || s[m].cmp.verdict != UP_VERDICT_BENEFICIAL)) {
            out_error("'%s': the skill is not shown to be beneficial",
                      s[m].model);
            rc = EXIT_GATE;
        }
    }
    return rc;
}

static const char *job_error(const up_eval_job *j)
{
    up_eval_job_view v;

    up_eval_job_view_of(j, &v);
    return v.error_msg ? v.error_msg : up_strerror(v.error);
}

/* EXIT_PROVIDER when a provider's error ended some conversation, else
 * the exit code of the students' own agents' failure (UP_EAGENT: a
 * coding-agent CLI that failed or hung is no provider error, and counts
 * as a failed conversation in the rates).  A request that outgrew the
 * context is no failure (up_eval_job_errored). */
static int failure_exit(const up_eval_session *e)
{
    const up_eval_plan *p;

    for (size_t k = 0; (p = up_eval_session_part(e, k)) != NULL; k++)
        for (size_t i = 0; i < p->njobs; i++) {
            const up_eval_job *j = up_eval_plan_job(p, i);
            up_eval_job_view v;

            up_eval_job_view_of(j, &v);
            if (v.done && up_eval_job_errored(j))
                return EXIT_PROVIDER;
        }
    return up_exit_code(UP_EAGENT);
}

/*
 * Conversations that failed after every retry make the results
 * incomplete: say so with the first message, and exit 4 (1 when only
 * coding-agent CLIs failed; the results are still printed and saved).  A model
 * that answered nothing (dead[m]) also gets its own line naming the model, the
 * endpoint and the cause.
 */
/* A 404 from a base URL without /v1: most OpenAI-compatible servers
 * (llama.cpp, Ollama, vLLM) serve their API under /v1. */
static void base_url_hint(const up_eval_session *e, size_t m, const char *msg)
{
    const char *url = m < e->s.ntargets ? e->s.targets[m].ep.base_url : NULL;

    const char *su;
    size_t n;

    if (!url || !strstr(msg, "http 404") || strstr(url, "/v1"))
        return;
    su = out_safe(url);
    n = strlen(su);
    n -= n && su[n - 1] == '/';
    fprintf(stderr,
            "hint: the base URL '%s' has no /v1; OpenAI-compatible servers "
            "usually answer at '%.*s/v1'\n",
            su, (int)n, su);
}

/* Failed conversations of models that are not dead (whose failure has
 * no line of its own). */
static size_t unexplained(const up_eval_session *e, const char *dead)
{
    const up_eval_plan *p;
    size_t n = 0;

    for (size_t k = 0; (p = up_eval_session_part(e, k)) != NULL; k++)
        for (size_t i = 0; i < p->njobs; i++) {
            const up_eval_job *j = up_eval_plan_job(p, i);
            up_eval_job_view v;

            up_eval_job_view_of(j, &v);
            n += v.done &&
                 (up_eval_job_errored(j) ||
                  v.error == UP_EAGENT) && /* as session_failed */
                 !(v.model < e->plan.nmodels && dead[v.model]);
        }
    return n;
}

int eval_outcome_failures(const up_eval_session *e, const char *dead)
{
    const up_eval_job *first, *last;
    size_t n = up_eval_session_failed(e, &first, &last), all = 0;
    const up_eval_plan *p;
    up_error err;

    for (size_t m = 0; m < e->plan.nmodels; m++) /* the first part says */
        for (size_t k = 0; dead[m] && (p = up_eval_session_part(e, k)); k++)
            if (up_eval_unanswered(p, m, &err)) {
                out_error("%s", err.msg);
                base_url_hint(e, m, err.msg);
                break;
            }
    if (!n)
        return EXIT_OK;
    if (!unexplained(e, dead)) /* each said above, once */
        return failure_exit(e);
    for (size_t k = 0; (p = up_eval_session_part(e, k)) != NULL; k++)
        all += p->njobs;
    /* the last names a breaker that gave up on the rest, if one did */
    out_error("%zu of %zu conversation(s) failed after retries; the first: "
              "%s%s%s",
              n, all, job_error(first),
              strcmp(job_error(first), job_error(last)) ? "; the last: " : "",
              strcmp(job_error(first), job_error(last)) ? job_error(last) : "");
    return failure_exit(e);
}

void eval_outcome_table(const up_eval_summary *s, const char *dead, size_t n)
{
    up_eval_summary *live = up_xcalloc(n, sizeof(*live));
    size_t k = 0;

    for (size_t m = 0; m < n; m++)
        if (!dead[m])
            live[k++] = s[m]; /* a view: nothing is released twice */
    if (k)
        eval_report_table(live, k);
    free(live);
}

/* Answers that stopped at the output cap: say how many, and how to raise. */
void eval_outcome_cut_note(const up_eval_session *e)
{
    int cap;
    size_t n = up_eval_session_cut(e, &cap);

    if (n)
        out_warn("%zu answer(s) were cut at max_tokens %d; raise it with "
                 "--max-tokens or the max_tokens config key",
                 n, cap);
}

/* --json of --tasks: the soundness filter (docs/harbor.md): the
 * verdicts file or null (not checked), and each task it left out. */
static json_t *tasks_json(const up_eval_session *e, const struct eval_args *a)
{
    json_t *out = json_array();

    for (size_t i = 0; i < e->harbor.n; i++)
        if (e->harbor.v[i].left_out)
            json_array_append_new(out, json_pack("{s:s, s:s}", "task",
                                                 e->harbor.v[i].name, "verdict",
                                                 e->harbor.v[i].left_out));
    return json_pack("{s:s?, s:b, s:o}", "sound_file", a->sound,
                     "soundness_checked", a->sound != NULL, "left_out", out);
}

/* --json: print the document, or leave it to --inject both. */
static void emit_json(const struct eval_args *a, json_t *doc)
{
    if (a->json_into) {
        *a->json_into = doc;
        return;
    }
    out_json(doc);
    json_decref(doc);
}

int eval_outcome(const up_eval_session *e, const struct eval_args *a,
                 up_error *err)
{
    size_t n = e->plan.nmodels;
    up_eval_summary *s;
    char *dead;
    int rc;

    if (e->nsweep)
        return eval_sweep_outcome(e, a, err);
    rc = up_eval_session_summarize(e, (uint64_t)a->seed, &s, &dead, err);
    if (!rc)
        eval_report_family(s, n, a->family);
    if (!rc && a->json)
        emit_json(a, eval_report_json(&e->plan, s, e->s.batch_id.data,
                                      a->tasks ? tasks_json(e, a) : NULL));
    else if (!rc)
        for (size_t m = 0; m < n; m++)
            if (!dead[m]) /* no bars from errors */
                eval_report_text(&e->plan, &s[m], a->verbose);
    if (!rc && !a->json && n > 1)
        eval_outcome_table(s, dead, n);
    if (!rc && !a->json)
        eval_report_family_line(eval_report_family_of(s, n));
    if (!rc && a->upstream_lines && n == 1 && !dead[0] && !e->plan.aa)
        recommendation(&s[0]); /* A/A: no skill to keep */
    eval_outcome_cut_note(e);
    if (!rc)
        rc = eval_gates(a, s, n);
    if (rc >= 0) {
        int failed = eval_outcome_failures(e, dead);

        rc = failed ? failed : rc; /* errors beat gates */
    }
    free(dead);
    free(s);
    return rc;
}

/*
 * The journal or the run files could not be written (a full disk): print
 * what was answered, then the cause; run files wait for the resume that
 * completes the batch.  "No more requests were sent" only when some were
 * left to send.
 */
int eval_outcome_unsaved(const up_eval_session *e, const struct eval_args *a,
                         up_error *err)
{
    up_error cause = *err;
    size_t left = 0;
    int rc = eval_outcome(e, a, err);

    if (rc < 0)
        out_fail(err);
    for (size_t i = 0; i < e->plan.njobs; i++) {
        up_eval_job_view v;

        up_eval_job_view_of(up_eval_plan_job(&e->plan, i), &v);
        left += !v.done;
    }
    if (left)
        out_error("%s; no more requests were sent (%zu left) and what was "
                  "answered is shown above: free some space, then resume "
                  "with --resume %s",
                  cause.msg, left, e->s.batch_id.data);
    else
        out_error("%s; every request was answered (shown above) but the "
                  "run files are not all written: free some space, then "
                  "write them with --resume %s",
                  cause.msg, e->s.batch_id.data);
    return EXIT_IO;
}
