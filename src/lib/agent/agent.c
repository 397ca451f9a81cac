/*
 * The agent loop: one conversation of tool calls over a workspace
 * (upskill/agent.h).  The scheduler calls up_agent_next after each
 * answered turn, on its event thread; the file tools run inline.  A turn
 * runs its calls in order; at a `run` call it starts the command and
 * parks, and up_agent_resume picks the turn up where it stopped.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "lib/agent/workspace.h"
#include "upskill/agent.h"
#include "upskill/alloc.h"
#include "upskill/http.h"
#include "util/json.h"
#include "util/utf8.h"

const char up_eval_neutral_prompt[] =
    "You are a capable assistant. Answer the user's request directly and "
    "completely.";

#define TOOLS_PROMPT                                                           \
    "\n\nYou work in a folder through tools: list_files, read_file, "          \
    "write_file and edit_file, with paths relative to the folder. When "       \
    "you are done, reply with your final answer as text."

#define CATALOG_PROMPT                                                         \
    "\n\nThe skills below are installed in the folder. When a task "           \
    "matches a skill's description, read its SKILL.md with read_file "         \
    "before you start and follow it; it may point you to more files in "       \
    "its folder."

/* An assistant turn's heap parts, moved out of its up_response. */
typedef struct turn_parts {
    up_tool_call *calls;
    size_t ncalls;
    char *text;
    char *carry;
} turn_parts;

struct up_agent {
    up_agent_opts o;
    up_workspace *ws;
    up_request rq;
    up_message first; /* the user message */
    up_msg *msgs;     /* the history after it */
    size_t nmsgs, cap;
    turn_parts *parts; /* one per assistant turn */
    size_t nparts, parts_cap;
    char **results; /* the tool results' texts */
    size_t nresults, results_cap;
    up_tool_spec tools[UP_TOOL_ROWS];
    size_t ntools;
    const char *answer; /* the last assistant text, in parts */
    up_buf limit;       /* why a limit ended it; empty: none */
    up_usage usage;
    int turns;
    long tool_calls, tool_errors;
    size_t history; /* bytes of turns with calls and results kept */
    double llm_ms;
    long t0;
    int truncated;
    size_t not_utf8; /* bytes of replies and tool results that were not
                        UTF-8, kept as U+FFFD */
    /* the turn whose calls are being made */
    turn_parts *cur;
    size_t next_call, ncall_lim;  /* next call to make, calls to make */
    const up_tool_call *run_call; /* the call of pending */
    up_tool_pending *pending;     /* a `run` call under way, or NULL */
};

/* ---- prompts ---- */

/* The catalogue of the n skills of v (upskill's wording, the Agent
 * Skills markup). */
static void add_catalog(up_buf *b, const up_skill *v, size_t n)
{
    up_buf_adds(b, CATALOG_PROMPT);
    up_buf_adds(b, "\n\n<available_skills>\n");
    for (size_t i = 0; i < n; i++) {
        const char *name = v[i].name ? v[i].name : "";

        up_buf_addf(b,
                    "<skill>\n<name>%s</name>\n"
                    "<description>%s</description>\n"
                    "<location>.agents/skills/%s/SKILL.md</location>\n"
                    "</skill>\n",
                    name, v[i].description ? v[i].description : "", name);
    }
    up_buf_adds(b, "</available_skills>");
}

/* Each body of the n skills of v, in the form inject asks. */
static void add_bodies(up_buf *b, const up_skill *v, size_t n,
                       enum up_inject inject)
{
    for (size_t i = 0; i < n; i++) {
        const char *name = v[i].name ? v[i].name : "";
        const char *body = v[i].body ? v[i].body : "";

        if (inject == UP_INJECT_AGENTSKILLS)
            up_buf_addf(b,
                        "\n\n<skill_content name=\"%s\">\n%s\n"
                        "</skill_content>",
                        name, body);
        else
            up_buf_addf(b, "\n\n## Skill: %s\n\n%s", name, body);
    }
}

char *up_agent_system_n(const up_skill *v, size_t n, enum up_inject inject)
{
    up_buf b = UP_BUF_INIT;

    up_buf_adds(&b, up_eval_neutral_prompt);
    up_buf_adds(&b, TOOLS_PROMPT);
    if (n && (inject == UP_INJECT_CATALOG || inject == UP_INJECT_AGENTSKILLS))
        add_catalog(&b, v, n);
    if (n && inject != UP_INJECT_CATALOG)
        add_bodies(&b, v, n, inject);
    return up_buf_detach(&b);
}

char *up_agent_system(const up_skill *skill, enum up_inject inject)
{
    return up_agent_system_n(skill, skill ? 1 : 0, inject);
}

char *up_agent_user(const up_case *c)
{
    up_buf b = UP_BUF_INIT;

    up_buf_adds(&b, c->input ? c->input : "");
    if (c->nfiles)
        up_buf_adds(&b, "\n\nThe files of this task are in your folder:");
    for (size_t i = 0; i < c->nfiles; i++)
        up_buf_addf(&b, "%s %s", i ? "," : "", c->files[i].name);
    return up_buf_detach(&b);
}

/* ---- the conversation ---- */

static void offer_tools(up_agent *a)
{
    size_t n;
    const up_tool *t = up_tool_table(&n);

    for (size_t i = 0; i < n && a->ntools < UP_TOOL_ROWS; i++) {
        int slow = (t[i].flags & UP_TOOL_SLOW) != 0;

        if (slow && !a->o.run_tool)
            continue; /* `run` only when the run asks for it */
        a->tools[a->ntools++] = (up_tool_spec){
            t[i].name,
            slow && a->o.sandbox == UP_SANDBOX_NONE ? UP_AGENT_RUN_TOOL_NONE
                                                    : t[i].description,
            t[i].parameters};
    }
}

/* The case's own wall clock for each run call (a Harbor task's agent
 * timeout_sec), CPU time along with it. */
static void case_limits(up_sandbox_limits *l, const up_case *c)
{
    if (!up_case_task_of(c)->run_wall_s)
        return;
    l->wall_ms = up_case_task_of(c)->run_wall_s * 1000u;
    if (l->cpu_s && l->cpu_s < up_case_task_of(c)->run_wall_s)
        l->cpu_s = up_case_task_of(c)->run_wall_s;
}

static int fill_workspace(up_agent *a, const up_case *c, const up_skill *skill,
                          up_error *err)
{
    int rc = up_workspace_seed(a->ws, up_case_task_of(c)->seed,
                               up_case_task_of(c)->nseed, err);

    for (size_t i = 0; !rc && i < c->nfiles; i++) {
        const char *text = c->files[i].content ? c->files[i].content : "";

        rc = up_workspace_add_file(a->ws, c->files[i].name, text, strlen(text),
                                   0, err);
    }
    /* a case's own skills (a Harbor task's): the others first, so the
     * first, the measured one, is the workspace's skill_dir */
    for (size_t i = 1; !rc && skill && skill == up_case_task_of(c)->skills &&
                       i < up_case_task_of(c)->nskills;
         i++)
        rc = up_workspace_install_skill(a->ws, &up_case_task_of(c)->skills[i],
                                        err);
    if (!rc && skill)
        rc = up_workspace_install_skill(a->ws, skill, err);
    if (!rc) { /* what the tools and commands may add starts from here */
        up_buf why = UP_BUF_INIT;

        if (up_workspace_quota(a->ws, &why)) /* the setup's counts */
            rc =
                up_error_set(err, UP_ETOOBIG, "the case's files: %s", why.data);
        up_buf_release(&why);
    }
    return rc;
}

int up_agent_new(up_agent **out, const up_agent_opts *o, const up_case *c,
                 const up_skill *skill, const char *system, const char *user,
                 up_error *err)
{
    up_agent *a = up_xcalloc(1, sizeof(*a));
    int rc;

    a->o = *o;
    if (a->o.max_turns <= 0)
        a->o.max_turns = UP_AGENT_MAX_TURNS;
    if (a->o.max_tool_calls <= 0)
        a->o.max_tool_calls = UP_AGENT_MAX_TOOL_CALLS;
    if (a->o.max_history <= 0)
        a->o.max_history = UP_AGENT_MAX_HISTORY;
    up_buf_init(&a->limit);
    a->answer = "";
    rc = up_workspace_new(&a->ws, o->parent, o->limits, err);
    if (!rc) {
        a->ws->run_tool = o->run_tool;
        a->ws->sandbox = o->sandbox;
        a->ws->workdir = up_case_task_of(c)->workdir;
        a->ws->places = (const char *const *)up_case_task_of(c)->places;
        a->ws->env = (const char *const *)up_case_task_of(c)->env;
        if (o->run_limits)
            a->ws->run_lim = *o->run_limits;
        case_limits(&a->ws->run_lim, c);
        rc = fill_workspace(a, c, skill, err);
    }
    if (rc) {
        up_agent_free(a);
        return rc;
    }
    offer_tools(a);
    a->first = (up_message){"user", user};
    up_request_init(&a->rq);
    a->rq.system = system;
    a->rq.messages = &a->first;
    a->rq.n_messages = 1;
    a->rq.tools = a->tools;
    a->rq.ntools = a->ntools;
    *out = a;
    return 0;
}

void up_agent_free(up_agent *a)
{
    if (!a)
        return;
    if (a->pending)
        up_tool_pending_cancel(a->pending);
    up_workspace_free(a->ws);
    for (size_t i = 0; i < a->nparts; i++) {
        up_tool_calls_free(a->parts[i].calls, a->parts[i].ncalls);
        free(a->parts[i].text);
        free(a->parts[i].carry);
    }
    for (size_t i = 0; i < a->nresults; i++)
        free(a->results[i]);
    free(a->parts);
    free(a->results);
    free(a->msgs);
    up_buf_release(&a->limit);
    free(a);
}

const up_request *up_agent_first(up_agent *a)
{
    a->t0 = up_http_now_ms();
    return &a->rq;
}

static up_msg *push(up_agent *a)
{
    UP_GROW(a->msgs, a->cap, a->nmsgs + 1);
    memset(&a->msgs[a->nmsgs], 0, sizeof(*a->msgs));
    return &a->msgs[a->nmsgs++];
}

/* Move the turn's text, calls and carry out of res into a new part. */
static turn_parts *take_turn(up_agent *a, up_response *res)
{
    turn_parts *t;

    UP_GROW(a->parts, a->parts_cap, a->nparts + 1);
    t = &a->parts[a->nparts++];
    t->calls = res->calls;
    t->ncalls = res->ncalls;
    t->text = res->text;
    t->carry = res->carry;
    res->calls = NULL;
    res->ncalls = 0;
    res->text = NULL;
    res->carry = NULL;
    if (t->text && *t->text)
        a->answer = t->text;
    return t;
}

/* Add the result of call c (rc: 1 for a tool error) to the history. */
static void add_result(up_agent *a, const up_tool_call *c, int rc, up_buf *out)
{
    up_msg *m = push(a);

    a->tool_calls++;
    a->tool_errors += rc != 0;
    /* a command's output may be any bytes: the history (sent back to the
       model and stored) holds text */
    a->not_utf8 += up_utf8_fix(out);
    UP_GROW(a->results, a->results_cap, a->nresults + 1);
    a->history += out->len;
    a->results[a->nresults] = up_buf_detach(out);
    m->role = UP_ROLE_TOOL;
    m->text = a->results[a->nresults++];
    m->call_id = c->id ? c->id : "";
    m->is_error = rc != 0;
}

/* Make call c: inline, or a `run` started (1: then a->pending is set). */
static int start_call(up_agent *a, const up_tool_call *c)
{
    up_buf out = UP_BUF_INIT;
    const char *args = c->args ? c->args : "";
    int rc = up_tool_begin(a->ws, c->name ? c->name : "", args, strlen(args),
                           &a->pending, &out);

    if (a->pending) {
        a->run_call = c;
        up_buf_release(&out);
        return 1;
    }
    add_result(a, c, rc, &out);
    return 0;
}

/* 1 with the reason in a->limit when the history (the turns' text and
 * tool-call arguments, the tools' results) is over its cap: every later
 * turn would send it all again. */
static int history_over(up_agent *a)
{
    if (a->history <= (size_t)a->o.max_history)
        return 0;
    up_buf_addf(&a->limit,
                "history limit: %zu bytes of tool calls and tool results in "
                "the conversation, over the %ld-byte cap (max_history_bytes)",
                a->history, a->o.max_history);
    return 1;
}

/* A call whose arguments are over the cap ends the conversation: it would
 * go back to the model with the history on every later turn; so does a
 * turn that takes the history over its cap. */
static int turn_too_big(up_agent *a, const turn_parts *t)
{
    a->history +=
        (t->text ? strlen(t->text) : 0) + (t->carry ? strlen(t->carry) : 0);
    for (size_t i = 0; i < t->ncalls; i++) {
        size_t len = t->calls[i].args ? strlen(t->calls[i].args) : 0;

        a->history += len;
        if (len > a->ws->lim.max_args) {
            up_buf_addf(&a->limit,
                        "tool-call limit: a call to '%.64s' with %zu bytes "
                        "of arguments, over the %zu-byte cap",
                        t->calls[i].name ? t->calls[i].name : "?", len,
                        a->ws->lim.max_args);
            return 1;
        }
    }
    return history_over(a);
}

/* The limit this conversation has reached, in a->limit; 1 when one has. */
static int over_limit(up_agent *a)
{
    long tokens = a->usage.input + a->usage.output;
    long elapsed = up_http_now_ms() - a->t0;

    if (history_over(a))
        return 1;
    if (a->tool_calls >= a->o.max_tool_calls)
        up_buf_addf(&a->limit,
                    "tool-call limit: %ld tool calls without a final answer",
                    a->tool_calls);
    else if (a->turns >= a->o.max_turns)
        up_buf_addf(&a->limit,
                    "turn limit: %d model turns without a final answer",
                    a->turns);
    else if (a->o.token_budget > 0 && tokens >= a->o.token_budget)
        up_buf_addf(&a->limit, "token budget: %ld tokens used of %ld", tokens,
                    a->o.token_budget);
    else if (a->o.wall_ms > 0 && elapsed >= a->o.wall_ms)
        up_buf_addf(&a->limit, "time limit: %ld ms used of %ld", elapsed,
                    a->o.wall_ms);
    return a->limit.len > 0;
}

/* Make the current turn's remaining calls; park at a `run` call. */
static const up_request *go_on(up_agent *a)
{
    while (a->next_call < a->ncall_lim)
        if (start_call(a, &a->cur->calls[a->next_call++]))
            return UP_JOB_PARKED;
    if (over_limit(a)) /* also when the cap cut this turn's calls */
        return NULL;
    a->rq.msgs = a->msgs;
    a->rq.nmsgs = a->nmsgs;
    return &a->rq;
}

const up_request *up_agent_next(up_agent *a, up_response *res)
{
    turn_parts *t;
    up_msg *m;
    size_t n;

    a->turns++;
    a->not_utf8 += res->not_utf8;
    up_usage_add(&a->usage, &res->usage);
    a->llm_ms += (double)res->latency_ms;
    a->truncated = res->truncated || res->stop == UP_STOP_LENGTH;
    t = take_turn(a, res);
    if (!t->ncalls || turn_too_big(a, t))
        return NULL; /* the final answer, or a call too big to echo */
    m = push(a);
    m->role = UP_ROLE_ASSISTANT;
    m->text = t->text;
    m->calls = t->calls;
    m->carry = t->carry;
    /* at most the calls the cap leaves; the history keeps them all
     * answered only when the conversation goes on */
    n = t->ncalls;
    if ((long)n > a->o.max_tool_calls - a->tool_calls)
        n = (size_t)(a->o.max_tool_calls - a->tool_calls);
    m->ncalls = t->ncalls;
    a->cur = t;
    a->next_call = 0;
    a->ncall_lim = n;
    return go_on(a);
}

int up_agent_wait(const up_agent *a, int *fds, int max, int *timeout_ms)
{
    int all[3], n;

    *timeout_ms = 0;
    if (!a->pending)
        return 0;
    n = up_tool_pending_fds(a->pending, all, timeout_ms);
    if (n > max)
        n = max;
    memcpy(fds, all, (size_t)(n > 0 ? n : 0) * sizeof(int));
    return n;
}

const up_request *up_agent_resume(up_agent *a)
{
    up_buf out = UP_BUF_INIT;
    int rc;

    if (!a->pending)
        return go_on(a);
    if (!up_tool_pending_step(a->pending))
        return UP_JOB_PARKED;
    rc = up_tool_pending_end(a->pending, &out);
    a->pending = NULL;
    add_result(a, a->run_call, rc, &out);
    return go_on(a);
}

void up_agent_failed(up_agent *a, const up_response *res)
{
    if (!res->usage.estimated)
        up_usage_add(&a->usage, &res->usage);
}

void up_agent_outcome_get(const up_agent *a, up_agent_outcome *out)
{
    memset(out, 0, sizeof(*out));
    out->answer = a->answer;
    out->limit = a->limit.len ? a->limit.data : NULL;
    out->usage = a->usage;
    out->not_utf8 = a->not_utf8;
    out->turns = a->turns;
    out->tool_calls = a->tool_calls;
    out->tool_errors = a->tool_errors;
    out->llm_ms = a->llm_ms;
    for (size_t i = 0; i < UP_TOOL_ROWS; i++)
        out->tool_ms += a->ws ? a->ws->stat[i].time_ms : 0;
    out->truncated = a->truncated;
}

const up_workspace *up_agent_workspace(const up_agent *a)
{
    return a ? a->ws : NULL;
}

/* ---- transcript ---- */

/* Set key to text (NULL: null) cut to cap bytes, marking a cut on o, and
 * the bytes that were not UTF-8 (stored as U+FFFD) as "not_utf8_bytes". */
static void set_text(json_t *o, const char *key, const char *text, size_t cap)
{
    size_t len = text ? strlen(text) : 0, keep = len, bad;

    if (!text) {
        json_object_set_new(o, key, json_null());
        return;
    }
    if (keep > cap) {
        keep = cap;
        while (keep && ((unsigned char)text[keep] & 0xC0) == 0x80)
            keep--; /* not inside a UTF-8 character */
        char cut[32];

        snprintf(cut, sizeof(cut), "%s_cut", key);
        json_object_set_new(o, cut, json_true());
    }
    if ((bad = up_utf8_bad(text, keep)))
        json_object_set_new(o, "not_utf8_bytes", json_integer((json_int_t)bad));
    json_object_set_new(o, key, up_json_textn(text, keep));
}

static json_t *turn_json(const char *role, const char *text, size_t cap)
{
    json_t *o = json_pack("{s:s}", "role", role);

    set_text(o, "content", text, cap);
    return o;
}

static json_t *msg_json(const up_msg *m, size_t cap)
{
    static const char *const roles[] = {"user", "assistant", "tool"};
    json_t *o = turn_json(roles[m->role], m->text, cap);
    json_t *calls = m->ncalls ? json_array() : NULL;

    for (size_t i = 0; i < m->ncalls; i++) {
        json_t *c =
            json_pack("{s:s, s:s}", "id", m->calls[i].id ? m->calls[i].id : "",
                      "name", m->calls[i].name ? m->calls[i].name : "");

        set_text(c, "arguments", m->calls[i].args, cap);
        json_array_append_new(calls, c);
    }
    if (calls)
        json_object_set_new(o, "tool_calls", calls);
    if (m->role == UP_ROLE_TOOL) {
        json_object_set_new(o, "tool_call_id", json_string(m->call_id));
        json_object_set_new(o, "is_error", json_boolean(m->is_error));
    }
    return o;
}

json_t *up_agent_transcript(const up_agent *a, size_t cap)
{
    json_t *arr = json_array();
    size_t nparts = 0;

    json_array_append_new(arr, turn_json("user", a->first.content, cap));
    for (size_t i = 0; i < a->nmsgs; i++) {
        nparts += a->msgs[i].role == UP_ROLE_ASSISTANT;
        json_array_append_new(arr, msg_json(&a->msgs[i], cap));
    }
    /* the last turn (the final answer, or one a limit cut off) is not in
     * the history sent back: it is the last part */
    if (a->nparts > nparts) {
        const turn_parts *t = &a->parts[a->nparts - 1];
        up_msg m = {
            UP_ROLE_ASSISTANT, t->text, t->calls, t->ncalls, NULL, 0, NULL};

        json_array_append_new(arr, msg_json(&m, cap));
    }
    return arr;
}
