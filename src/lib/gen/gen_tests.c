/*
 * Generated tests: the schema asked of the test-gen model and the checks
 * on what comes back.  A usable case has at least two non-blank expected
 * strings (upstream asks for this but never enforces it; a case with none
 * passes every answer) or an assertion list.  Unusable cases are dropped
 * with a note; too few usable ones is an error the caller can send back.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/cases/suite_lib.h"
#include "lib/gen/gen_lib.h"
#include "lib/eval/session_lib.h"
#include "upskill/alloc.h"
#include "lib/cases/assert.h"
#include "upskill/gen.h"

#include "lib/gen/gen_loop.h"

/* Strict-mode friendly: every property required, no extra keys.  A case's
 * "assert" holds executable checks (command assertions), often []. */
const char up_gen_tests_schema[] =
    "{\"type\":\"object\",\"properties\":{\"cases\":{\"type\":\"array\","
    "\"items\":{\"type\":\"object\",\"properties\":{"
    "\"input\":{\"type\":\"string\"},"
    "\"expected\":{\"type\":\"object\",\"properties\":{\"contains\":"
    "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
    "\"required\":[\"contains\"],\"additionalProperties\":false},"
    "\"assert\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"type\":{\"type\":\"string\",\"enum\":[\"command\"]},"
    "\"value\":{\"type\":\"string\"}},\"required\":[\"type\",\"value\"],"
    "\"additionalProperties\":false}}},"
    "\"required\":[\"input\",\"expected\",\"assert\"],"
    "\"additionalProperties\":false}}},"
    "\"required\":[\"cases\"],\"additionalProperties\":false}";

static size_t non_blank(const up_case *c)
{
    size_t n = 0;

    for (size_t i = 0; i < c->ncontains; i++)
        n += strspn(c->contains[i], " \t\r\n") < strlen(c->contains[i]);
    return n;
}

/* 1 when c's assertions parse (an empty "assert" is dropped first). */
static int asserts_ok(up_case *c)
{
    up_assert_list l;
    int rc;

    if (c->assert_json && !strcmp(c->assert_json, "[]"))
        c->assert_json = NULL; /* the text stays in the suite's arena */
    up_assert_list_init(&l);
    rc = up_assert_list_parse(&l, c->assert_json, "generated tests", "assert",
                              NULL);
    up_assert_list_release(&l);
    return !rc;
}

static int usable(up_case *c)
{
    return c->input && *c->input && asserts_ok(c) &&
           (non_blank(c) >= 2 || c->assert_json);
}

/*
 * Move the usable cases of all, at most max, into s; the others stay in
 * all (compacted) for the caller to release.  s adopts all's arena, the
 * kept cases' strings with the dropped ones'.
 */
static void keep(up_suite *s, up_suite *all, int max, up_buf *notes)
{
    size_t left = 0, over = 0;

    for (size_t i = 0; i < all->ncases; i++) {
        up_case *c = &all->cases[i];
        int ok = usable(c);

        if (!ok)
            up_buf_addf(notes,
                        "case %zu dropped: it needs an input and at least "
                        "two expected strings or a valid check\n",
                        i + 1);
        if (ok && s->ncases < (size_t)max) {
            s->cases = up_xrealloc(s->cases, (s->ncases + 1) * sizeof(*c));
            s->cases[s->ncases++] = *c;
            continue;
        }
        over += ok;
        all->cases[left++] = *c;
    }
    all->ncases = left;
    up_arena_adopt(&s->mem, &all->mem);
    if (over)
        up_buf_addf(notes, "%zu case(s) over the limit of %d dropped\n", over,
                    max);
}

int up_gen_tests_read(up_suite *s, const char *json, int min, int max,
                      up_buf *notes, up_error *err)
{
    up_suite all;
    int rc;

    up_suite_init(&all);
    rc = up_suite_parse(&all, json ? json : "", json ? strlen(json) : 0,
                        "generated tests", "", err);
    if (rc) {
        up_suite_release(&all);
        return rc;
    }
    keep(s, &all, max, notes);
    up_suite_release(&all);
    if (s->ncases < (size_t)min)
        return up_error_set(err, UP_EINVALID,
                            "the test-gen model wrote %zu usable case(s), "
                            "at least %d are needed",
                            s->ncases, min);
    return 0;
}

/* ---- how many to ask for ---------------------------------------------- */

/* A bound and how strongly it was asked for: flag 2, config file 1. */
struct bound {
    long value;
    int rank;
};

static struct bound pick(int flag, const up_cfg_int *cfg)
{
    struct bound b = {cfg->value, cfg->src.kind == UP_SRC_DEFAULT ? 0 : 1};

    if (flag > 0) {
        b.value = flag;
        b.rank = 2;
    }
    return b;
}

int up_gen_test_counts(const up_gen_opts *o, const up_config *cfg, int *min,
                       int *max, up_error *err)
{
    struct bound lo = pick(o->min_tests, &cfg->min_tests);
    struct bound hi = pick(o->max_tests, &cfg->max_tests);

    if (lo.value > hi.value && lo.rank == hi.rank)
        return up_error_set(err, UP_EUSAGE,
                            "the fewest test cases (%ld) is above the most "
                            "(%ld)",
                            lo.value, hi.value);
    if (lo.value > hi.value && lo.rank > hi.rank)
        hi.value = lo.value;
    else if (lo.value > hi.value)
        lo.value = hi.value;
    *min = (int)lo.value;
    *max = (int)hi.value;
    return 0;
}

/* ---- for eval and benchmark ------------------------------------------- */

/* A generator with no teacher: the session's one target (index nmodels,
 * 0) is the test-gen model. */
static int tests_only(up_gen *g, const up_gen_opts *o, const char *spec,
                      const up_gen_tests_req *rq, const up_config *cfg,
                      up_error *err)
{
    up_session_opts so;
    int rc;

    gen_clear(g, o, cfg);
    up_session_opts_init(&so);
    so.stop = rq->stop;
    up_session_init(&g->session, &so, cfg);
    rc = up_gen_test_counts(o, cfg, &g->min_tests, &g->max_tests, err);
    if (!rc)
        rc = up_session_add_target(&g->session, spec, rq->base_url,
                                   rq->base_url ? rq->api_key_env : NULL, NULL,
                                   err);
    return rc;
}

/* The generator's notes (cases dropped) into ud, one "; "-joined line. */
static void keep_notes(void *ud, const up_gen_event *ev)
{
    up_buf *notes = ud;
    const char *d = ev->detail;

    for (size_t n; ev->stage == UP_GEN_EV_TESTS && d && *d; d += n) {
        n = strcspn(d, "\n");
        if (n)
            up_buf_addf(notes, "%s%.*s", notes->len ? "; " : "", (int)n, d);
        n += d[n] == '\n';
    }
}

int up_gen_tests_for(up_suite *s, char **resolved, up_buf *notes,
                     const up_skill *skill, const char *spec,
                     const up_gen_tests_req *rq, const up_config *cfg,
                     up_error *err)
{
    up_gen_opts o;
    up_gen g;
    up_buf task = UP_BUF_INIT;
    int rc;

    memset(&o, 0, sizeof(o));
    up_buf_addf(&task, "%s: %s", skill->name ? skill->name : "",
                skill->description ? skill->description : "");
    o.task = task.data;
    o.stop = rq->stop;
    o.event = keep_notes;
    o.event_ud = notes;
    rc = tests_only(&g, &o, spec, rq, cfg, err);
    if (g.session.ntargets && up_gen_model(&g, 0)->resolved)
        *resolved = up_xstrdup(up_gen_model(&g, 0)->resolved);
    if (!rc)
        rc = gen_tests(&g, err);
    if (!rc) {
        up_suite_release(s);
        *s = g.suite;
        up_suite_init(&g.suite);
    }
    up_gen_release(&g);
    up_buf_release(&task);
    return rc;
}
