/*
 * Agent student mode (docs/fake-llm.md): a student that uses the tools
 * the way a model does.  Its first turn reads SKILL.md when the skill is
 * in the catalogue (with probability p_activate), then it reads the
 * reference (p_reference, once the skill was read), writes its file
 * (good content with a probability that depends on what it read) and
 * gives its final answer.
 *
 * The server keeps no state between requests: the conversation's state
 * travels in the tool-call ids the student makes
 * ("agst_<prompt hash>_<repeat>_<step>_<flags>"), which the client sends
 * back with the calls and their results on both wires.  The draws are
 * keyed by the first request's prompt hash and repeat, so a conversation
 * makes the same choices whatever the arrival order.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "upskill/buf.h"

#include "fake.h"

enum { DRAW_ACTIVATE = 11, DRAW_REFERENCE, DRAW_GOOD };
enum { F_SKILL = 1, F_REF = 2, F_GOOD = 4 }; /* what was read, written */
enum { S_START, S_SKILL, S_REF, S_WRITE };   /* the step taken */
static const char *const step_names[] = {"start", "read_skill",
                                         "read_reference", "write"};

struct state {
    uint64_t hash;
    long repeat;
    int step, flags;
};

/* The latest state in the conversation's ids; 0 when there is none. */
static int find_state(const struct fake_request *rq, struct state *st)
{
    const char *p = NULL, *q = rq->raw.data;

    while (q && (q = strstr(q, "agst_")) != NULL)
        p = q++;
    return p && sscanf(p, "agst_%16" SCNx64 "_%ld_%d_%d", &st->hash,
                       &st->repeat, &st->step, &st->flags) == 4;
}

/* One tool call named name with args (stolen) as out's reply. */
static void call(struct fake_reply *out, const struct state *st,
                 const char *name, json_t *args)
{
    char id[96];

    snprintf(id, sizeof(id), "agst_%016" PRIx64 "_%ld_%d_%d", st->hash,
             st->repeat, st->step, st->flags);
    out->owned = json_pack("[{s:s, s:o, s:s}]", "name", name, "arguments", args,
                           "id", id);
    out->tool_calls = out->owned;
    out->text = "";
    out->agent = step_names[st->step];
}

/* read_file of a file of the installed skill. */
static void read_skill_file(struct fake_reply *out, const struct state *st,
                            const struct fake_agent *ag, const char *rel)
{
    up_buf path = UP_BUF_INIT;

    up_buf_addf(&path, ".agents/skills/%s/%s", ag->skill, rel);
    call(out, st, "read_file", json_pack("{s:s}", "path", path.data));
    up_buf_release(&path);
}

/* The skill is in the catalogue (agent mode's progressive disclosure). */
static int in_catalog(const struct fake_request *rq, const char *skill)
{
    up_buf loc = UP_BUF_INIT;
    int in;

    up_buf_addf(&loc, "<location>.agents/skills/%s/SKILL.md</location>", skill);
    in = strstr(rq->system.data ? rq->system.data : "", loc.data) != NULL;
    up_buf_release(&loc);
    return in;
}

/* The skill's body is in the system prompt (--inject preload). */
static int preloaded(const struct fake_request *rq)
{
    const char *sys = rq->system.data ? rq->system.data : "";

    return strstr(sys, "## Skill:") || strstr(sys, "<skill_content");
}

static double p_good(const struct fake_agent *ag, int flags)
{
    return flags & F_REF     ? ag->p_good.reference
           : flags & F_SKILL ? ag->p_good.skill
                             : ag->p_good.none;
}

void fake_agent_step(const struct fake_rule *r, uint64_t seed,
                     const struct fake_request *rq, long repeat,
                     struct fake_reply *out)
{
    const struct fake_agent *ag = &r->agent;
    struct state st = {rq->hash, repeat, S_START, 0};
    int good;

    if (!ag->on)
        return;
    if (!find_state(rq, &st) && preloaded(rq))
        st.flags |= F_SKILL;
    if (st.step == S_START && !(st.flags & F_SKILL) &&
        in_catalog(rq, ag->skill) &&
        fake_draw(seed, st.hash, st.repeat, DRAW_ACTIVATE) < ag->p_activate) {
        st.step = S_SKILL;
        st.flags |= F_SKILL;
        read_skill_file(out, &st, ag, "SKILL.md");
        return;
    }
    if (st.step < S_REF && (st.flags & F_SKILL) && ag->reference &&
        fake_draw(seed, st.hash, st.repeat, DRAW_REFERENCE) < ag->p_reference) {
        st.step = S_REF;
        st.flags |= F_REF;
        read_skill_file(out, &st, ag, ag->reference);
        return;
    }
    if (st.step < S_WRITE) {
        good = fake_draw(seed, st.hash, st.repeat, DRAW_GOOD) <
               p_good(ag, st.flags);
        st.step = S_WRITE;
        st.flags |= good ? F_GOOD : 0;
        call(out, &st, "write_file",
             json_pack("{s:s, s:s}", "path", ag->file, "content",
                       good ? ag->content.good : ag->content.bad));
        out->student = good ? "good" : "bad";
        return;
    }
    /* the final answer: "answer", else what it wrote */
    out->text = ag->answer          ? ag->answer
                : st.flags & F_GOOD ? ag->content.good
                                    : ag->content.bad;
    out->student = st.flags & F_GOOD ? "good" : "bad";
    out->agent = "answer";
}
