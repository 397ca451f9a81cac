/*
 * upskill report, transcripts: every case artifact of a batch embedded
 * as a <details> with the anchor the case x model matrix links to
 * (t-BATCH-RUN-CASE), its texts HTML-escaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/store.h"
#include "util/json.h"

static void message(up_buf *out, const json_t *msg)
{
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
    else if (up_json_str(msg, "content_file"))
        up_report_esc(out, "(the system prompt: cases/system_prompt.md)");
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

static void artifact(up_buf *out, const json_t *o, size_t bi)
{
    int pass = json_is_true(json_object_get(o, "passed"));
    const char *error = up_json_str(o, "error");
    /* a request that outgrew the context failed its arm: no error */
    int outgrew = json_is_true(json_object_get(o, "outgrew_context"));
    size_t i;
    const json_t *msg;

    up_buf_addf(out, "<details id=\"t-%zu-%ld-%ld\"><summary>", bi,
                up_json_long(o, "run_number", 0), up_json_long(o, "case", 0));
    up_buf_addf(out, "case %ld · ", up_json_long(o, "case", 0));
    up_report_esc(out, up_json_str(o, "model"));
    up_buf_adds(out, " · ");
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
        message(out, msg);
    assertions(out, json_object_get(o, "assertions"));
    up_buf_adds(out, "</details>\n");
}

struct transcripts {
    up_buf *out;
    const up_report_batch *b;
    size_t bi;
};

static void one_artifact(void *ud, json_t *o)
{
    struct transcripts *t = ud;

    if (up_report_kept(t->b, o)) /* not another generate attempt's */
        artifact(t->out, o, t->bi);
}

int up_report_transcripts(up_buf *out, const up_report_batch *b, size_t bi,
                          up_error *err)
{
    int rc = 0;

    for (int run = 1; run <= 1000000 && !rc; run++) {
        up_buf p = UP_BUF_INIT;
        int there;

        up_buf_addf(&p, "%s/run_%d", b->dir, run);
        there = up_fs_is_dir(p.data);
        up_buf_adds(&p, "/cases/transcripts.jsonl");
        if (there && up_report_run_in(b, run))
            rc = up_store_cases_each(p.data, one_artifact,
                                     &(struct transcripts){out, b, bi}, err);
        up_buf_release(&p);
        if (!there)
            break;
    }
    return rc;
}
