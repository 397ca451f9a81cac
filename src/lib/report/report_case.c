/*
 * upskill report, transcripts: every case artifact of a batch embedded
 * as a <details> with the anchor the case x model matrix links to
 * (t-BATCH-RUN-CASE), its texts HTML-escaped; the system prompts the runs
 * sent (run_N/cases/system_prompt.md) once each (sys-BATCH-K), linked
 * from every transcript that sent it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/store/store_lib.h"
#include "report_int.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/store.h"
#include "util/json.h"

#define MAX_PROMPTS      64        /* distinct system prompts shown */
#define MAX_PROMPT_BYTES (1 << 20) /* of one prompt file */

/* The distinct system prompts of a batch, and which one each run sent. */
struct prompts {
    char *text[MAX_PROMPTS];
    size_t n;
    int *of_run; /* run_N -> index + 1; 0: none or not shown */
    int nruns;
};

struct transcripts {
    up_buf *out;
    const up_report_batch *b;
    size_t bi;
    const struct prompts *sp;
    int run;
};

static void message(up_buf *out, const json_t *msg, const struct transcripts *t)
{
    int k = t->run < t->sp->nruns ? t->sp->of_run[t->run] : 0;

    const char *role = up_json_str(msg, "role");
    const char *text = up_json_str(msg, "content");
    const json_t *calls = json_object_get(msg, "tool_calls");
    size_t i;
    const json_t *c;

    up_buf_adds(out, "<div class=\"msg\"><b>");
    up_report_esc(out, role ? role : "?");
    up_buf_adds(out, "</b><pre>");
    if (text)
        up_report_esc(out, text);
    else if (up_json_str(msg, "content_file") && k)
        up_buf_addf(out,
                    "<a href=\"#sys-%zu-%d\">(the system prompt: system "
                    "prompt %d, above)</a>",
                    t->bi, k, k);
    else if (up_json_str(msg, "content_file"))
        up_report_esc(out, "(the system prompt: cases/system_prompt.md, "
                           "not shown)");
    json_array_foreach(calls, i, c)
    {
        up_buf_adds(out, "\n→ ");
        up_report_esc(out, up_json_str(c, "name"));
        up_buf_addc(out, ' ');
        up_report_esc(out, up_json_str(c, "arguments"));
    }
    up_buf_adds(out, "</pre></div>");
}

static void assertions(up_buf *out, const json_t *list)
{
    size_t i;
    const json_t *a;

    up_buf_adds(out, "<ul class=\"asserts\">");
    json_array_foreach(list, i, a)
    {
        const json_t *p = json_object_get(a, "passed");

        up_buf_addf(out, "<li class=\"%s\">%s ",
                    json_is_true(p) ? "pass" : "fail",
                    json_is_true(p)    ? "✓"
                    : json_is_false(p) ? "✗"
                                       : "?");
        up_report_esc(out, up_json_str(a, "type"));
        up_buf_adds(out, ": ");
        up_report_esc(out, up_json_str(a, "message"));
        up_buf_adds(out, "</li>");
    }
    up_buf_adds(out, "</ul>");
}

static void artifact(up_buf *out, const json_t *o, size_t bi,
                     const struct transcripts *t)
{
    int pass = json_is_true(json_object_get(o, "passed"));
    const char *error = up_json_str(o, "error");
    /* a request that outgrew the context failed its arm: no error */
    int outgrew = json_is_true(json_object_get(o, "outgrew_context")) ||
                  json_is_true(json_object_get(o, "own_failure"));
    size_t i;
    const json_t *msg;

    up_buf_addf(out, "<details id=\"t-%zu-%ld-%ld\"><summary>", bi,
                up_json_long(o, "run_number", 0), up_json_long(o, "case", 0));
    up_buf_addf(out, "case %ld · <span class=\"nw\">",
                up_json_long(o, "case", 0));
    up_report_esc(out, up_json_str(o, "model")); /* never broken */
    up_buf_adds(out, "</span> · ");
    up_report_esc(out, up_json_str(o, "arm"));
    up_buf_addf(out, " · repeat %ld · <span class=\"%s\">%s</span></summary>",
                up_json_long(o, "repeat", 0), pass ? "pass" : "fail",
                error && !outgrew ? "error"
                : pass            ? "pass"
                                  : "fail");
    if (error) {
        up_buf_adds(out, "<p class=\"fail\">");
        up_report_esc(out, error);
        up_buf_adds(out, "</p>");
    }
    json_array_foreach(json_object_get(o, "messages"), i, msg)
        message(out, msg, t);
    assertions(out, json_object_get(o, "assertions"));
    up_buf_adds(out, "</details>\n");
}

static void one_artifact(void *ud, json_t *o)
{
    struct transcripts *t = ud;

    if (up_report_kept(t->b, o)) /* not another generate attempt's */
        artifact(t->out, o, t->bi, t);
}

/* run's system prompt: its index + 1 among sp's, added when new; 0 when
 * there is none, it is unreadable, or MAX_PROMPTS are shown already. */
static int prompt_of(struct prompts *sp, const up_report_batch *b, int run)
{
    up_buf p = UP_BUF_INIT, text = UP_BUF_INIT;
    up_error e = {0};
    int k = 0;

    up_buf_addf(&p, "%s/run_%d/cases/system_prompt.md", b->dir, run);
    if (up_fs_read(&text, p.data, MAX_PROMPT_BYTES, &e) == 0) {
        for (size_t i = 0; i < sp->n && !k; i++)
            if (strcmp(sp->text[i], text.data ? text.data : "") == 0)
                k = (int)i + 1;
        if (!k && sp->n < MAX_PROMPTS) {
            sp->text[sp->n++] = up_xstrdup(text.data ? text.data : "");
            k = (int)sp->n;
        }
    }
    up_buf_release(&p);
    up_buf_release(&text);
    return k;
}

/* Each distinct system prompt once, and which runs sent it. */
static void prompts_section(up_buf *out, const struct prompts *sp, size_t bi)
{
    for (size_t i = 0; i < sp->n; i++) {
        up_buf_addf(out,
                    "<details id=\"sys-%zu-%zu\"><summary>system prompt "
                    "%zu, sent by runs",
                    bi, i + 1, i + 1);
        for (int r = 1; r < sp->nruns; r++)
            if (sp->of_run[r] == (int)i + 1)
                up_buf_addf(out, " %d", r);
        up_buf_adds(out, "</summary><pre>");
        up_report_esc(out, sp->text[i]);
        up_buf_adds(out, "</pre></details>\n");
    }
    if (sp->n == MAX_PROMPTS)
        up_buf_addf(out,
                    "<p class=\"mut\">Only the first %d distinct system "
                    "prompts are shown.</p>",
                    MAX_PROMPTS);
}

/* The runs run_1, run_2, ... up to the first missing folder. */
static int count_runs(const up_report_batch *b)
{
    int run = 1;

    for (; run <= 1000000; run++) {
        up_buf p = UP_BUF_INIT;
        int there;

        up_buf_addf(&p, "%s/run_%d", b->dir, run);
        there = up_fs_is_dir(p.data);
        up_buf_release(&p);
        if (!there)
            break;
    }
    return run - 1;
}

int up_report_transcripts(up_buf *out, const up_report_batch *b, size_t bi,
                          up_error *err)
{
    struct prompts sp = {0};
    int rc = 0, nruns = count_runs(b);

    sp.nruns = nruns + 1;
    sp.of_run = up_xcalloc((size_t)sp.nruns, sizeof(*sp.of_run));
    for (int run = 1; run <= nruns; run++) /* a sweep's view: its runs */
        sp.of_run[run] = up_report_run_in(b, run) ? prompt_of(&sp, b, run) : 0;
    up_buf_adds(out, "<h4>System prompts</h4>");
    prompts_section(out, &sp, bi);
    up_buf_adds(out, "<h4>Conversations</h4>");
    for (int run = 1; run <= nruns && !rc; run++) {
        up_buf p = UP_BUF_INIT;

        if (!up_report_run_in(b, run))
            continue;
        up_buf_addf(&p, "%s/run_%d/cases/transcripts.jsonl", b->dir, run);
        rc = up_store_cases_each(p.data, one_artifact,
                                 &(struct transcripts){out, b, bi, &sp, run},
                                 err);
        up_buf_release(&p);
    }
    for (size_t i = 0; i < sp.n; i++)
        free(sp.text[i]);
    free(sp.of_run);
    return rc;
}
