/*
 * Case artifacts (docs/runs-format.md, "Case artifacts"): one JSON object
 * per conversation, a line of its run folder's run_N/cases/transcripts.jsonl,
 * written by the run log for every command that goes through the session.
 *
 * When: with the run's records (up_session_log_runs), after grading and
 * the judge, so llm-rubric verdicts are in; the run folder's number is
 * known only then.  One artifact is built, written and freed at a time
 * from what the jobs already hold and streamed into the file, so chat mode
 * keeps nothing more in memory than before.  One file per run folder, not
 * one per case: creating 2,000 small files doubled the time of a 1,000
 * case eval (bench/README.md).  The system prompt (in the skill arm the whole
 * skill body) is written once per run folder, as UP_STORE_SYSTEM_FILE,
 * and the artifacts' system message names it instead of repeating it.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/session.h"

#include "lib/session_int.h"
#include "util/json.h"

static const char *const arm_names[] = {"baseline", "with_skill"};

static json_t *system_msg(const char *system)
{
    return json_pack("{s:s, s:n, s:s, s:I}", "role", "system", "content",
                     "content_file", UP_STORE_SYSTEM_FILE, "content_bytes",
                     (json_int_t)strlen(system));
}

/* Chat mode's answer: its cut at max_answer_bytes is marked as the
 * artifact's own cap marks it.  Chat mode keeps no reasoning text. */
static json_t *answer_msg(const up_eval_job *j)
{
    json_t *m = json_pack("{s:s, s:s, s:n, s:[]}", "role", "assistant",
                          "content", j->answer, "reasoning", "tool_calls");

    if (j->cut) {
        json_object_set_new(m, "content_bytes",
                            json_integer((json_int_t)j->answer_bytes));
        json_object_set_new(m, "content_cut", json_true());
    }
    return m;
}

static json_t *messages(const up_eval_plan *p, const up_eval_job *j)
{
    json_t *v = json_array();

    json_array_append_new(v, system_msg(up_eval_system(p, j)));
    if (j->transcript) { /* agent mode: the loop's conversation */
        json_array_extend(v, j->transcript);
        return v;
    }
    json_array_append_new(v, json_pack("{s:s, s:s}", "role", "user", "content",
                                       p->user[j->kase]));
    if (j->answer && !j->error)
        json_array_append_new(v, answer_msg(j));
    return v;
}

static json_t *assert_value(const up_assert *a)
{
    json_t *v;

    if (!a->nlist)
        return up_json_str_or_null(a->value);
    v = json_array();
    for (size_t i = 0; i < a->nlist; i++)
        json_array_append_new(v, json_string(a->list[i]));
    return v;
}

/* A verdict: passed true/false, null while pending; message says why. */
static json_t *verdict(const up_assert *a, const up_assert_result *r,
                       int failed_job)
{
    int st = failed_job || !r ? UP_ASSERT_FAIL : r->status;
    const char *why = failed_job ? "not graded: the conversation failed"
                      : r && r->message.len ? r->message.data
                                            : NULL;

    json_t *v =
        json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "type", a->type, "name",
                  up_json_str_or_null(a->name), "value", assert_value(a),
                  "file", up_json_str_or_null(a->file), "passed",
                  st == UP_ASSERT_PENDING || st == UP_ASSERT_CHECK ||
                          st == UP_ASSERT_UNGRADABLE
                      ? json_null()
                      : json_boolean(st == UP_ASSERT_PASS),
                  "message", up_json_str_or_null(why));

    if (r && !failed_job && r->check) /* an executable check's output */
        json_object_set_new(
            v, "output",
            json_stringn(r->output.len ? r->output.data : "", r->output.len));
    return v;
}

static json_t *verdicts(const up_eval_plan *p, const up_eval_job *j)
{
    const up_assert_list *l = &p->asserts[j->kase];
    json_t *v = json_array();

    for (size_t i = 0; i < l->n; i++)
        json_array_append_new(v, verdict(&l->items[i],
                                         j->results ? &j->results[i] : NULL,
                                         j->error != 0));
    return v;
}

static json_t *usage(const up_usage *u)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:b}", "input_tokens",
                     (json_int_t)u->input, "output_tokens",
                     (json_int_t)u->output, "reasoning_tokens",
                     (json_int_t)u->reasoning, "cached_tokens",
                     (json_int_t)u->cached, "estimated", u->estimated);
}

static json_t *or_null(json_t *v)
{
    return v ? json_incref(v) : json_null();
}

/* The artifact of job j, logged in run folder run (attempt 0: none). */
static json_t *artifact(const up_eval_plan *p, const up_eval_job *j, int run,
                        int attempt)
{
    json_t *o = json_pack(
        "{s:I, s:I, s:i, s:s, s:s, s:i, s:o, s:s, s:o}", "case",
        (json_int_t)j->kase + 1, "case_index", (json_int_t)j->kase, "repeat",
        j->repeat, "arm", arm_names[j->arm], "model", p->models[j->model],
        "run_number", run, "attempt",
        attempt > 0 ? json_integer(attempt) : json_null(), "input",
        p->suite->cases[j->kase].input ? p->suite->cases[j->kase].input : "",
        "messages", messages(p, j));

    json_object_set_new(
        o, "error",
        up_json_str_or_null(
            j->error ? (j->error_msg ? j->error_msg : "request failed")
                     : NULL));
    json_object_set_new(o, "assertions", verdicts(p, j));
    json_object_set_new(o, "assertions_passed",
                        json_integer(j->asserts_passed));
    json_object_set_new(o, "assertions_total", json_integer(j->asserts_total));
    json_object_set_new(o, "passed", json_boolean(j->passed));
    json_object_set_new(o, "usage", usage(&j->usage));
    json_object_set_new(o, "latency_ms", json_real(j->latency_ms));
    json_object_set_new(o, "attempts", json_integer(j->attempts));
    json_object_set_new(o, "from_cache", json_boolean(j->from_cache));
    json_object_set_new(o, "workspace", or_null(j->workspace_json));
    json_object_set_new(o, "tools", or_null(j->tools_json));
    return o;
}

static int write_one(const up_session *s, up_store_cases *w,
                     const up_eval_plan *p, const up_eval_job *j, int run,
                     int attempt, up_error *err)
{
    json_t *o = artifact(p, j, run, attempt);
    long cap = s->cfg->artifact_max_bytes.value;
    char *text;
    int rc;

    up_store_case_cap(o, cap > 0 ? (size_t)cap : UP_STORE_CASE_MAX);
    text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    rc = up_store_cases_add(w, text, err);
    free(text);
    return rc;
}

int session_log_cases(const up_session *s, const up_eval_plan *p, size_t m,
                      int repeat, enum up_arm arm, int run, int attempt,
                      up_error *err)
{
    const char *system = arm == UP_ARM_SKILL ? p->system_skill : p->system_base;
    up_store_cases w;
    int rc =
        up_store_run_file_write(s->batch_dir.data, run, UP_STORE_SYSTEM_FILE,
                                system, strlen(system), err);

    if (!rc)
        rc = up_store_cases_open(&w, s->batch_dir.data, run, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < p->njobs && !rc; i++) {
        const up_eval_job *j = &p->jobs[i];

        if (j->done && j->model == m && j->repeat == repeat && j->arm == arm)
            rc = write_one(s, &w, p, j, run, attempt, err);
    }
    if (rc)
        up_store_cases_abort(&w);
    return rc ? rc : up_store_cases_close(&w, err);
}
