/*
 * Grading: every case's assertions are upstream's expected.contains (each
 * string must occur, case-insensitively) plus our "assert" list (see
 * docs/assertions.md).  llm-rubric verdicts come from a judge model,
 * whose tokens are counted apart from the model under test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/eval/eval_job.h"
#include "upskill/alloc.h"
#include "lib/sandbox/check.h"
#include "upskill/eval.h"
#include "upskill/sandbox.h"
#include "lib/agent/workspace.h"
#include "lib/eval/eval_int.h"

/* Upstream's validator "command" with validator_config {"command": CMD}
 * is a command assertion CMD (docs/tests-format.md). */
static int add_validator(up_assert_list *l, const up_case *c, const char *file,
                         const char *prefix, up_error *err)
{
    json_t *cfg, *cmd, *arr;
    char *text;
    int rc;

    if (!c->validator || strcmp(c->validator, "command"))
        return 0; /* upstream's registry is empty: other names do nothing */
    cfg = c->validator_config_json
              ? json_loads(c->validator_config_json, 0, NULL)
              : NULL;
    cmd = json_object_get(cfg, "command");
    if (!json_is_string(cmd) || !json_string_length(cmd)) {
        json_decref(cfg);
        return up_error_set(err, UP_EPARSE,
                            "'%s': %s: validator 'command' needs "
                            "validator_config.command, a command line",
                            file, prefix);
    }
    arr = json_pack("[{s:s, s:O}]", "type", "command", "value", cmd);
    text = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    rc = up_assert_list_parse(l, text, file, prefix, err);
    free(text);
    json_decref(cfg);
    return rc;
}

/* Give back the list's unused room: a grown list holds 8 items where a
 * case has one or two, 0.5 KiB a job kept on a large run. */
static void trim(up_assert_list *l)
{
    UP_SHRINK(l->items, l->cap, l->n);
}

/* Case k's assertions into l: expected.contains, then "assert", then
 * the validator.  file and root name the suite in messages. */
static int case_asserts(const up_eval_plan *p, size_t k, const char *file,
                        const char *root, up_assert_list *l, up_error *err)
{
    const up_case *c = &p->suite->cases[k];
    char prefix[64];

    up_assert_list_init(l);
    up_assert_list_add_contains(l, c->contains, c->ncontains);
    snprintf(prefix, sizeof(prefix), "%s[%zu].assert", root, k);
    if (c->assert_json &&
        up_assert_list_parse(l, c->assert_json, file, prefix, err))
        return UP_EPARSE;
    snprintf(prefix, sizeof(prefix), "%s[%zu].validator", root, k);
    if (add_validator(l, c, file, prefix, err))
        return UP_EPARSE;
    trim(l);
    return 0;
}

void up_eval_case_asserts(const up_eval_plan *p, size_t k, up_assert_list *l)
{
    if (case_asserts(p, k, "tests", "cases", l, NULL)) { /* prepared: never */
        up_assert_list_release(l);
        up_assert_list_init(l);
    }
}

const up_assert_list *up_eval_job_asserts(const up_eval_plan *p, up_eval_job *j)
{
    up_eval_job_live *lv = up_eval_job_live_of(j);

    if (!lv->listed) {
        up_eval_case_asserts(p, j->kase, &lv->asserts);
        lv->listed = 1;
    }
    return &lv->asserts;
}

int up_eval_prepare(up_eval_plan *p, const char *tests_file, up_error *err)
{
    const char *file = tests_file ? tests_file : "skill_meta.json";
    const char *root = tests_file ? "cases" : "tests";

    for (size_t k = 0; k < p->suite->ncases; k++) {
        up_assert_list l;
        int rc = case_asserts(p, k, file, root, &l, err);

        if (!rc && l.n > UP_ASSERT_LIST_MAX) /* a job counts them in 16 bits */
            rc = up_error_set(err, UP_EPARSE,
                              "'%s': %s[%zu]: a case takes at most %u "
                              "assertions (%zu given)",
                              file, root, k, UP_ASSERT_LIST_MAX, l.n);
        if (!rc && up_assert_list_has_checks(&l))
            p->case_bits[k] |= UP_EVAL_CASE_CHECKS;
        up_assert_list_release(&l);
        if (rc)
            return rc;
    }
    p->prepared = 1;
    return 0;
}

/* The reason of the first ungradable check of results, copied. */
static char *first_ungradable(const up_assert_result *results,
                              const up_assert_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (results[i].status == UP_ASSERT_UNGRADABLE)
            return up_xstrdup(results[i].message.data);
    return NULL;
}

/* Counts and the failure lines from a job's results (lv, j's live
 * part). */
static void settle(up_eval_job *j, up_eval_job_live *lv,
                   const up_assert_list *l)
{
    up_assert_summary s;
    up_buf why = UP_BUF_INIT;
    const char *lim = up_eval_job_agent_view(j)->limit;
    const up_assert_result *r = lv->results;

    up_assert_summarize(&s, r, l->n);
    for (size_t i = 0; i < l->n; i++)
        if (j->error || r[i].status != UP_ASSERT_PASS)
            up_buf_addf(&why, "%s: %s\n", up_assert_label(&l->items[i]),
                        r[i].message.len ? r[i].message.data : "not judged");
    if (j->error)
        up_buf_addf(&why, "error: %s\n",
                    j->error_msg ? j->error_msg : "request failed");
    if (lim) /* an answered conversation that failed its limit */
        up_buf_addf(&why, "limit: %s\n", lim);
    j->asserts_total = up_eval_count16(s.total);
    j->asserts_passed = j->error ? 0 : up_eval_count16(s.passed);
    j->checks_total = up_eval_count16(s.checks);
    j->checks_passed = j->error ? 0 : up_eval_count16(s.checks_ok);
    free(j->ungradable);
    j->ungradable = !j->error && s.ungradable ? first_ungradable(r, l) : NULL;
    j->passed = !j->error && !lim && up_assert_summary_ok(&s);
    free(lv->grading);
    lv->grading = why.len ? up_buf_detach(&why) : NULL;
    up_buf_release(&why);
}

void up_eval_grade_job(up_eval_plan *p, up_eval_job *j)
{
    up_assert_usage u = {j->usage.estimated ? -1 : (long long)j->usage.output,
                         up_eval_job_agent_view(j)->workspace,
                         p->suite->cases[j->kase].output_file};
    const up_assert_list *l;
    up_eval_job_live *lv;

    if (!j->done || j->logged)
        return;
    l = up_eval_job_asserts(p, j);
    lv = up_eval_job_live_of(j);
    if (!lv->results) {
        lv->results = up_assert_results_new(l->n);
        up_assert_check(l, j->error ? "" : lv->answer, &u, lv->results);
    }
    settle(j, lv, l);
}

void up_eval_grade(up_eval_plan *p)
{
    for (size_t i = 0; i < p->njobs; i++)
        up_eval_grade_job(p, &p->jobs[i]);
}

size_t up_eval_pending_judgements(const up_eval_plan *p)
{
    size_t n = 0;

    for (size_t i = 0; i < p->njobs; i++) {
        const up_eval_job *j = &p->jobs[i];
        const up_eval_job_live *lv = up_eval_job_live_view(j);

        for (size_t a = 0; lv->results && !j->error && a < lv->asserts.n; a++)
            n += lv->results[a].status == UP_ASSERT_PENDING;
    }
    return n;
}

int up_eval_job_has_checks(const up_eval_plan *p, const up_eval_job *j)
{
    return p->case_bits[j->kase] & UP_EVAL_CASE_CHECKS;
}

/* The workspace's quota, kept while a check runs: the student's code it
 * runs (a verifier's test.sh importing the solution) cannot fill the disk
 * (docs/sandbox.md). */
void up_eval_check_quota(const up_eval_plan *p, up_check_item *it)
{
    up_ws_limits d;
    const up_ws_limits *l = p->agent_opts.limits;

    if (!l) {
        up_ws_limits_default(&d);
        l = &d;
    }
    it->quota_bytes = l->quota_bytes;
    it->quota_files = l->quota_files;
}

int up_eval_job_next_check(up_eval_plan *p, up_eval_job *j, size_t *at,
                           const char *ws, up_check_item *it)
{
    const up_case *c = &p->suite->cases[j->kase];
    const up_eval_job_live *lv;

    if (!up_eval_job_live_view(j)->results)
        up_eval_grade_job(p, j); /* the rest, leaving the checks waiting */
    lv = up_eval_job_live_view(j);
    for (; lv->results && ws && *at < lv->asserts.n; (*at)++)
        if (lv->results[*at].status == UP_ASSERT_CHECK) {
            *it =
                (up_check_item){&lv->asserts.items[*at],
                                ws,
                                &lv->results[*at],
                                up_case_task_of(c)->check_files,
                                up_case_task_of(c)->ncheck_files,
                                up_case_task_of(c)->check_owned,
                                up_case_task_of(c)->ncheck_owned,
                                up_case_task_of(c)->workdir,
                                up_case_task_of(c)->check_wall_s,
                                NULL,
                                (const char *const *)up_case_task_of(c)->places,
                                (const char *const *)up_case_task_of(c)->env,
                                0,
                                0,
                                0};
            up_eval_check_quota(p, it);
            (*at)++;
            return 1;
        }
    return 0;
}

/* Check files are bound at /tests only by bubblewrap: under --sandbox
 * none, where the students' commands see the whole machine (the suite
 * too), nothing can be hidden, so a case with them is refused. */
static int hidden_unsandboxed(const up_eval_plan *p, up_error *err)
{
    for (size_t i = 0; i < p->njobs; i++) {
        size_t k = p->jobs[i].kase;

        if (!p->jobs[i].done && up_eval_job_has_checks(p, &p->jobs[i]) &&
            up_case_task_of(&p->suite->cases[k])->ncheck_files)
            return up_error_set(
                err, UP_EUNSAFE,
                "the suite's cases[%zu] has check_files, which its checks "
                "see read-only at %s only in the sandbox: --sandbox none "
                "can neither hide nor mount them, so nothing was sent "
                "(install bubblewrap and leave --sandbox out)",
                k, UP_CHECK_TESTS_DIR);
    }
    return 0;
}

int up_eval_checks_sandbox(const up_eval_plan *p, up_error *err)
{
    up_error e;

    if (p->check_mode == UP_SANDBOX_NONE)
        return hidden_unsandboxed(p, err);
    for (size_t i = 0; i < p->njobs; i++) {
        if (p->jobs[i].done || !up_eval_job_has_checks(p, &p->jobs[i]))
            continue;
        if (!up_sandbox_check(&e))
            return 0;
        return up_error_set(err, e.code,
                            "the suite's command checks run in the sandbox, "
                            "which is not usable here, so nothing was sent: "
                            "%s (or pass --sandbox none to run the checks "
                            "unsandboxed)",
                            e.msg);
    }
    return 0;
}
