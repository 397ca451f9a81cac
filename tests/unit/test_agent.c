/* Unit tests for the agent loop (src/lib/agent/agent.c), without a network:
 * replies are built by hand and fed to up_agent_next. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/skill/skill_lib.h"
#include "lib/agent/workspace.h"
#include "upskill/agent.h"
#include "upskill/alloc.h"

static char input[] = "write the answer";
static up_case kase = {.input = input};

/* A reply with text and n calls of name with args (heap, as a provider's). */
static void reply(up_response *r, const char *text, size_t n, const char *name,
                  const char *args)
{
    up_response_init(r);
    free(r->text);
    r->text = up_xstrdup(text);
    r->usage.input = 100;
    r->usage.output = 10;
    r->latency_ms = 5;
    r->ncalls = n;
    r->calls = n ? up_xcalloc(n, sizeof(*r->calls)) : NULL;
    for (size_t i = 0; i < n; i++) {
        char id[32];

        snprintf(id, sizeof(id), "call_%zu", i);
        r->calls[i].id = up_xstrdup(id);
        r->calls[i].name = up_xstrdup(name);
        r->calls[i].args = up_xstrdup(args);
    }
    r->stop = n ? UP_STOP_TOOL : UP_STOP_END;
}

static up_agent *agent(int max_turns)
{
    up_agent_opts o;
    up_agent *a;
    up_error err;

    memset(&o, 0, sizeof(o));
    o.max_turns = max_turns;
    o.parent = "/tmp";
    cr_assert_eq(up_agent_new(&a, &o, &kase, NULL, "SYS", "USER", &err), 0,
                 "%s", err.msg);
    cr_assert_not_null(up_agent_first(a));
    return a;
}

Test(agent, a_tool_turn_then_the_final_answer)
{
    up_agent *a = agent(0);
    up_response r;
    const up_request *rq;
    up_agent_outcome oc;
    json_t *tr;
    char *text;
    up_buf f = UP_BUF_INIT;
    up_error err;

    reply(&r, "let me write", 2, "write_file",
          "{\"path\":\"a.txt\",\"content\":\"hi\"}");
    rq = up_agent_next(a, &r);
    up_response_release(&r);
    cr_assert_not_null(rq, "tool calls: the conversation goes on");
    cr_assert_eq(rq->nmsgs, 3, "the assistant turn and one result per call");
    cr_assert_eq(rq->msgs[0].role, UP_ROLE_ASSISTANT);
    cr_assert_eq(rq->msgs[0].ncalls, 2);
    cr_assert_eq(rq->msgs[2].role, UP_ROLE_TOOL);
    cr_assert_str_eq(rq->msgs[2].call_id, "call_1");
    cr_assert_eq(rq->ntools, 4, "the file tools are offered");
    reply(&r, "final", 0, NULL, NULL);
    cr_assert_null(up_agent_next(a, &r), "no calls: the final answer");
    up_response_release(&r);
    up_agent_outcome_get(a, &oc);
    cr_assert_str_eq(oc.answer, "final");
    cr_assert_null(oc.limit);
    cr_assert_eq(oc.turns, 2);
    cr_assert_eq(oc.tool_calls, 2);
    cr_assert_eq(oc.usage.input, 200, "tokens summed over the turns");
    cr_assert_eq(
        up_workspace_read(up_agent_workspace(a), "a.txt", 100, &f, &err), 0);
    cr_assert_str_eq(f.data, "hi");
    tr = up_agent_transcript(a, 4);
    text = json_dumps(tr, JSON_COMPACT);
    cr_assert(strstr(text, "{\"role\":\"user\""), "%s", text);
    cr_assert_null(strstr(text, "SYS"), "no system prompt: %s", text);
    cr_assert(strstr(text, "\"content_cut\":true"), "texts are cut: %s", text);
    cr_assert(strstr(text, "\"tool_call_id\":\"call_0\""), "%s", text);
    cr_assert(strstr(text, "\"content\":\"fina\""), "the final turn: %s", text);
    free(text);
    json_decref(tr);
    up_buf_release(&f);
    up_agent_free(a);
}

Test(agent, the_turn_limit_ends_an_answered_conversation)
{
    up_agent *a = agent(2);
    up_response r;
    up_agent_outcome oc;

    reply(&r, "first", 1, "list_files", "{}");
    cr_assert_not_null(up_agent_next(a, &r));
    up_response_release(&r);
    reply(&r, "", 1, "list_files", "{}");
    cr_assert_null(up_agent_next(a, &r), "2 turns: over");
    up_response_release(&r);
    up_agent_outcome_get(a, &oc);
    cr_assert_str_eq(oc.limit,
                     "turn limit: 2 model turns without a final answer");
    cr_assert_str_eq(oc.answer, "first", "the last assistant text so far");
    up_agent_free(a);
}

Test(agent, the_tool_call_cap_runs_no_call_past_it)
{
    up_agent *a = agent(0);
    up_response r;
    up_agent_outcome oc;

    reply(&r, "", 500, "list_files", "{}");
    cr_assert_null(up_agent_next(a, &r));
    up_response_release(&r);
    up_agent_outcome_get(a, &oc);
    cr_assert_eq(oc.tool_calls, UP_AGENT_MAX_TOOL_CALLS);
    cr_assert(strstr(oc.limit, "tool-call limit"), "%s", oc.limit);
    up_agent_free(a);
}

Test(agent, arguments_over_the_cap_end_the_conversation_unrun)
{
    up_agent *a = agent(0);
    up_response r;
    up_agent_outcome oc;
    char *big = up_xmalloc(3u << 20);

    memset(big, 'a', (3u << 20) - 1);
    big[(3u << 20) - 1] = '\0';
    reply(&r, "", 1, "write_file", big);
    cr_assert_null(up_agent_next(a, &r));
    up_response_release(&r);
    up_agent_outcome_get(a, &oc);
    cr_assert_eq(oc.tool_calls, 0, "not run");
    cr_assert(strstr(oc.limit, "over the 2097152-byte cap"), "%s", oc.limit);
    free(big);
    up_agent_free(a);
}

/* A hostile server's turns of 12 calls of 1.9 MB each (and their 24
 * results of 8 bytes): the default cap on the history (64 MiB) ends the
 * conversation at the third turn, before its calls run, instead of
 * sending it all back turn after turn. */
Test(agent, the_history_cap_ends_a_conversation_of_big_calls)
{
    up_agent *a = agent(0);
    up_response r;
    up_agent_outcome oc;
    size_t n = 1900000;
    char *big = up_xmalloc(n + 1);
    int turn = 0;
    const up_request *rq;

    memset(big, ' ', n);
    big[n] = '\0';
    big[0] = '{';
    big[n - 1] = '}';
    do {
        reply(&r, "", 12, "list_files", big);
        rq = up_agent_next(a, &r);
        up_response_release(&r);
        turn++;
    } while (rq && turn < 10);
    up_agent_outcome_get(a, &oc);
    cr_assert_eq(turn, 3, "ended at turn %d", turn);
    cr_assert_eq(oc.tool_calls, 24, "the third turn's calls are not run");
    cr_assert_not_null(oc.limit);
    cr_assert(strstr(oc.limit, "history limit: 68400192 bytes of tool calls "
                               "and tool results in the conversation, over "
                               "the 67108864-byte cap (max_history_bytes)"),
              "%s", oc.limit);
    free(big);
    up_agent_free(a);
}

/* The tools' results count too: a file read turn after turn. */
Test(agent, the_history_cap_counts_tool_results)
{
    up_agent_opts o;
    up_agent *a;
    up_error err;
    up_response r;
    up_agent_outcome oc;
    char *text = up_xmalloc(60001);
    int turn = 0;
    const up_request *rq;

    memset(&o, 0, sizeof(o));
    o.parent = "/tmp";
    o.max_history = 200000;
    cr_assert_eq(up_agent_new(&a, &o, &kase, NULL, "SYS", "USER", &err), 0,
                 "%s", err.msg);
    up_agent_first(a);
    memset(text, 'x', 60000);
    text[60000] = '\0';
    cr_assert_eq(up_workspace_add_file((up_workspace *)up_agent_workspace(a),
                                       "f.txt", text, 60000, 0, &err),
                 0);
    do {
        reply(&r, "", 1, "read_file", "{\"path\":\"f.txt\"}");
        rq = up_agent_next(a, &r);
        up_response_release(&r);
        turn++;
    } while (rq && turn < 10);
    up_agent_outcome_get(a, &oc);
    cr_assert_eq(turn, 4, "ended at turn %d", turn);
    cr_assert_eq(oc.tool_calls, 4, "the calls of the last turn ran");
    cr_assert(strstr(oc.limit, "over the 200000-byte cap"), "%s", oc.limit);
    free(text);
    up_agent_free(a);
}

Test(agent, the_catalogue_names_the_skill_and_where_it_is)
{
    up_skill s;
    char *sys;

    up_skill_init(&s);
    s.name = up_xstrdup("pdf");
    s.description = up_xstrdup("Fill PDF forms.");
    s.body = up_xstrdup("BODY");
    sys = up_agent_system(&s, UP_INJECT_CATALOG);
    cr_assert(strstr(sys, "<name>pdf</name>"));
    cr_assert(strstr(sys, "<location>.agents/skills/pdf/SKILL.md</location>"));
    cr_assert_null(strstr(sys, "BODY"), "the model must read the body itself");
    free(sys);
    sys = up_agent_system(&s, UP_INJECT_UPSKILL);
    cr_assert(strstr(sys, "## Skill: pdf\n\nBODY"));
    free(sys);
    sys = up_agent_system(NULL, UP_INJECT_CATALOG);
    cr_assert_null(strstr(sys, "available_skills"), "the baseline: no skill");
    free(sys);
    up_skill_release(&s);
}
