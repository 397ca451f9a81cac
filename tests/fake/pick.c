/*
 * fake-llm rule picking: which rule answers a request, and the seeded
 * draws (transient faults, student answers) that vary its reply.
 *
 * Reproducibility: a draw depends only on (seed, prompt hash, repeat
 * counter), where the repeat counter says how many earlier requests had
 * the same prompt hash.  A run with the same requests gives the same
 * multiset of outcomes whatever the arrival order, while repeats of one
 * prompt still vary.  Everything shared (rule hits, repeat counters)
 * is guarded by the scenario lock; the draws themselves run
 * outside it.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"

#include "fake.h"

static int has(const up_buf *hay, const char *needle)
{
    return !needle || strstr(hay->data, needle) != NULL;
}

static int same(const char *want, const char *got)
{
    return !want || (got && !strcmp(want, got));
}

static const char *header(const json_t *have, const char *name)
{
    char low[256];
    size_t i;

    for (i = 0; name[i] && i + 1 < sizeof(low); i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    low[i] = '\0';
    return json_string_value(json_object_get(have, low));
}

static int headers_match(const json_t *want, const json_t *have)
{
    const char *key;
    const json_t *v;

    json_object_foreach((json_t *)want, key, v)
    {
        const char *got = header(have, key);

        if (json_is_boolean(v) ? json_is_true(v) != (got != NULL)
                               : !got || strcmp(json_string_value(v), got))
            return 0;
    }
    return 1;
}

/* The conversation so far: tools offered, the last turn, its results. */
static int convo_matches(const struct fake_match *m,
                         const struct fake_request *rq)
{
    return (m->tools < 0 || m->tools == rq->has_tools) &&
           same(m->last_role, rq->last_role) &&
           (!m->tool_result ||
            (!strcmp(rq->last_role ? rq->last_role : "", "tool") &&
             has(&rq->tool_result, m->tool_result))) &&
           (m->tool_error < 0 || m->tool_error == rq->tool_error) &&
           (m->assistant_turns < 0 ||
            m->assistant_turns == rq->assistant_turns);
}

static int rule_matches(const struct fake_rule *r,
                        const struct fake_request *rq)
{
    const struct fake_match *m = &r->match;

    return (!r->times || r->hits < r->times) && same(m->path, rq->path) &&
           same(m->method, rq->method) && same(m->model, rq->model) &&
           has(&rq->system, m->system) && has(&rq->user, m->user) &&
           has(&rq->raw, m->body) && (!m->nth || m->nth == rq->n) &&
           (m->stream < 0 || m->stream == rq->stream) &&
           headers_match(m->headers, rq->headers) && convo_matches(m, rq);
}

/* Grow the prompt-hash map to twice its size (keys are never 0). */
static void seen_grow(struct fake_scenario *sc)
{
    size_t cap = sc->seen_cap ? sc->seen_cap * 2 : 256;
    uint64_t *keys = up_xcalloc(cap, sizeof(*keys));
    long *counts = up_xcalloc(cap, sizeof(*counts));

    for (size_t i = 0; i < sc->seen_cap; i++) {
        size_t j = sc->seen_keys[i] & (cap - 1);

        if (!sc->seen_keys[i])
            continue;
        while (keys[j])
            j = (j + 1) & (cap - 1);
        keys[j] = sc->seen_keys[i];
        counts[j] = sc->seen_counts[i];
    }
    free(sc->seen_keys);
    free(sc->seen_counts);
    sc->seen_keys = keys;
    sc->seen_counts = counts;
    sc->seen_cap = cap;
}

/* How many times hash was seen before; counts this sighting. */
static long seen_next(struct fake_scenario *sc, uint64_t hash)
{
    size_t j;

    if (!hash)
        hash = 1;
    if (2 * (sc->seen_len + 1) > sc->seen_cap)
        seen_grow(sc);
    j = hash & (sc->seen_cap - 1);
    while (sc->seen_keys[j] && sc->seen_keys[j] != hash)
        j = (j + 1) & (sc->seen_cap - 1);
    if (!sc->seen_keys[j]) {
        sc->seen_keys[j] = hash;
        sc->seen_len++;
    }
    return sc->seen_counts[j]++;
}

/* splitmix64's finaliser: a good 64-bit mixer. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

double fake_draw(uint64_t seed, uint64_t hash, long repeat, int purpose)
{
    uint64_t x =
        mix(mix(mix(seed ^ (uint64_t)purpose) ^ hash) ^ (uint64_t)repeat);

    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

enum { DRAW_FAIL = 1, DRAW_FAULT_KIND, DRAW_STUDENT };

static void draw_fault(const struct fake_rule *r, uint64_t seed, uint64_t hash,
                       long repeat, struct fake_reply *out)
{
    size_t k;

    if (r->fail_rate <= 0 ||
        fake_draw(seed, hash, repeat, DRAW_FAIL) >= r->fail_rate)
        return;
    k = (size_t)(fake_draw(seed, hash, repeat, DRAW_FAULT_KIND) *
                 (double)r->fail_with.n);
    out->fault = r->fail_with.v[k < r->fail_with.n ? k : 0];
}

/* The answer pair for the user's text: the first answers key in it. */
static struct fake_pair student_pair(const struct fake_student *st,
                                     const struct fake_request *rq)
{
    const char *key;
    json_t *v;

    json_object_foreach(st->answers, key, v)
    {
        if (strstr(rq->user.data, key))
            return (struct fake_pair){
                json_string_value(json_object_get(v, "good")),
                json_string_value(json_object_get(v, "bad"))};
    }
    return st->dflt;
}

static void draw_student(const struct fake_rule *r, uint64_t seed,
                         const struct fake_request *rq, long repeat,
                         struct fake_reply *out)
{
    const struct fake_student *st = &r->student;
    double p;
    struct fake_pair pair;
    int good;

    if (!st->on)
        return;
    p = strstr(rq->all.data, st->marker) ? st->p_with : st->p_without;
    good = fake_draw(seed, rq->hash, repeat, DRAW_STUDENT) < p;
    pair = student_pair(st, rq);
    out->text = good ? pair.good : pair.bad;
    out->student = good ? "good" : "bad";
}

int fake_scenario_pick(struct fake_scenario *sc, const struct fake_request *rq,
                       struct fake_reply *out)
{
    struct fake_rule *r = NULL;
    long repeat = 0;

    pthread_mutex_lock(&sc->lock);
    for (size_t i = 0; i < sc->nrules && !r; i++)
        if (rule_matches(&sc->rules[i], rq))
            r = &sc->rules[i];
    if (r) {
        r->hits++;
        repeat = seen_next(sc, rq->hash);
    }
    pthread_mutex_unlock(&sc->lock);
    if (!r)
        return -1;
    *out = r->reply;
    draw_fault(r, sc->seed, rq->hash, repeat, out);
    draw_student(r, sc->seed, rq, repeat, out);
    fake_agent_step(r, sc->seed, rq, repeat, out);
    return 0;
}
