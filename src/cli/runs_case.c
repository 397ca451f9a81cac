/*
 * upskill runs --case: one case's artifacts (docs/runs-format.md, "Case
 * artifacts"), one block per model, arm and repeat: the transcript, the
 * error, each assertion's verdict and why, and the usage.  Everything in
 * an artifact came from outside (the suite, the model, the run files), so
 * every text goes through out_safe or out_text.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static long num(const json_t *o, const char *key)
{
    return (long)json_integer_value(json_object_get(o, key));
}

/* Outside text, each line indented by four spaces. */
static void indented(const char *s)
{
    up_buf line = UP_BUF_INIT;

    while (s && *s) {
        size_t n = strcspn(s, "\n");

        up_buf_reset(&line);
        up_buf_add(&line, s, n);
        fputs("    ", stdout);
        out_text(stdout, line.data);
        fputc('\n', stdout);
        s += n + (s[n] == '\n');
    }
    up_buf_release(&line);
}

/* "[cut: 666 of 3000 bytes kept]" when the artifact cut the text. */
static void cut_note(const json_t *o, const char *key, const char *text)
{
    char mark[32];

    snprintf(mark, sizeof(mark), "%s_cut", key);
    if (!json_is_true(json_object_get(o, mark)))
        return;
    snprintf(mark, sizeof(mark), "%s_bytes", key);
    printf("    %s[cut: %zu of %ld bytes kept]%s\n", out_c(C_DIM),
           text ? strlen(text) : 0, num(o, mark), out_c(C_RESET));
}

static void tool_calls(const json_t *m)
{
    size_t i;
    json_t *c;

    json_array_foreach(json_object_get(m, "tool_calls"), i, c)
    {
        printf("    %s\u2192 %s%s ", out_c(C_CYAN), out_safe(str(c, "name")),
               out_c(C_RESET));
        out_text(stdout, str(c, "arguments"));
        fputc('\n', stdout);
        cut_note(c, "arguments", str(c, "arguments"));
    }
}

static void message(const json_t *m)
{
    const char *role = str(m, "role"), *text = str(m, "content");

    if (role && !strcmp(role, "system") && str(m, "content_file")) {
        printf("  %ssystem%s     %s (%ld bytes, in the run folder)\n",
               out_c(C_BOLD), out_c(C_RESET), out_safe(str(m, "content_file")),
               num(m, "content_bytes"));
        return;
    }
    printf("  %s%s%s", out_c(C_BOLD), out_safe(role), out_c(C_RESET));
    if (str(m, "tool_call_id"))
        printf(" (%s)", out_safe(str(m, "tool_call_id")));
    if (json_is_true(json_object_get(m, "is_error")))
        printf(" %stool error%s", out_c(C_RED), out_c(C_RESET));
    fputc('\n', stdout);
    if (str(m, "reasoning")) {
        printf("    %sreasoning:%s\n", out_c(C_DIM), out_c(C_RESET));
        indented(str(m, "reasoning"));
    }
    indented(text);
    cut_note(m, "content", text);
    tool_calls(m);
}

static void verdicts(const json_t *a)
{
    size_t i;
    json_t *v;

    printf("  %sassertions%s\n", out_c(C_BOLD), out_c(C_RESET));
    json_array_foreach(json_object_get(a, "assertions"), i, v)
    {
        json_t *p = json_object_get(v, "passed");
        int pending = json_is_null(p);

        printf("    %s%s%s %s",
               out_c(pending           ? C_YELLOW
                     : json_is_true(p) ? C_GREEN
                                       : C_RED),
               pending           ? "?"
               : json_is_true(p) ? "\u2713"
                                 : "\u2717",
               out_c(C_RESET),
               out_safe(str(v, "name") ? str(v, "name") : str(v, "type")));
        if (!str(v, "name") && str(v, "value"))
            printf(" '%s'", out_safe(str(v, "value")));
        if (str(v, "file"))
            printf(" in %s", out_safe(str(v, "file")));
        if (str(v, "message"))
            printf(": %s", out_safe(str(v, "message")));
        fputc('\n', stdout);
    }
}

static void usage_line(const json_t *a)
{
    const json_t *u = json_object_get(a, "usage");

    printf("  %stokens %ld in, %ld out (%ld reasoning, %ld cached) \u00b7 "
           "%.0f ms \u00b7 %ld attempt%s%s%s\n",
           out_c(C_DIM), num(u, "input_tokens"), num(u, "output_tokens"),
           num(u, "reasoning_tokens"), num(u, "cached_tokens"),
           json_number_value(json_object_get(a, "latency_ms")),
           num(a, "attempts"), num(a, "attempts") == 1 ? "" : "s",
           json_is_true(json_object_get(a, "from_cache")) ? " \u00b7 from cache"
                                                          : "",
           out_c(C_RESET));
}

static void heading(const json_t *a)
{
    int passed = json_is_true(json_object_get(a, "passed"));

    printf("\n%s%s \u00b7 %s \u00b7 repeat %ld", out_c(C_BOLD),
           out_safe(str(a, "model")), out_safe(str(a, "arm")),
           num(a, "repeat"));
    if (num(a, "attempt"))
        printf(" \u00b7 attempt %ld", num(a, "attempt"));
    printf(" \u00b7 run_%ld%s: %s%s%s (%ld of %ld assertions)\n",
           num(a, "run_number"), out_c(C_RESET),
           out_c(str(a, "error") ? C_RED
                 : passed        ? C_GREEN
                                 : C_RED),
           str(a, "error") ? "errored"
           : passed        ? "passed"
                           : "failed",
           out_c(C_RESET), num(a, "assertions_passed"),
           num(a, "assertions_total"));
}

static void artifact(const json_t *a)
{
    size_t i;
    json_t *m;

    heading(a);
    json_array_foreach(json_object_get(a, "messages"), i, m) message(m);
    if (str(a, "error"))
        printf("  %serror%s %s\n", out_c(C_RED), out_c(C_RESET),
               out_safe(str(a, "error")));
    verdicts(a);
    usage_line(a);
}

static void print_case(const json_t *arts, const char *batch, long kase,
                       int json)
{
    size_t i;
    json_t *a;

    if (json) {
        json_t *doc = json_pack("{s:s, s:I, s:O}", "batch_id", batch, "case",
                                (json_int_t)kase, "artifacts", arts);

        out_json(doc);
        json_decref(doc);
        return;
    }
    a = json_array_get(arts, 0);
    printf("%sbatch %s, case %ld:%s ", out_c(C_BLUE), out_safe(batch), kase,
           out_c(C_RESET));
    printf("%s\n", out_safe(str(a, "input")));
    json_array_foreach(arts, i, a) artifact(a);
}

static void filter(json_t *arts, const char *const *keys, size_t nkeys,
                   const up_config *cfg)
{
    for (size_t i = json_array_size(arts); nkeys && i-- > 0;) {
        char *k =
            up_store_model_key(str(json_array_get(arts, i), "model"), cfg);
        size_t j = 0;

        while (j < nkeys && strcmp(keys[j], k))
            j++;
        if (j == nkeys)
            json_array_remove(arts, i);
        free(k);
    }
}

int runs_case(const char *dir, const char *batch, long kase,
              const char *const *keys, size_t nkeys, int json, up_error *err)
{
    up_buf id = UP_BUF_INIT, path = UP_BUF_INIT;
    json_t *arts = NULL;
    int rc = batch ? 0 : up_store_batch_latest(&id, dir, err);

    if (!rc && batch)
        up_buf_adds(&id, batch);
    if (!rc) {
        up_fs_join(&path, dir, id.data);
        rc = up_store_case_load(&arts, path.data, (size_t)kase - 1, err);
    }
    if (!rc)
        filter(arts, keys, nkeys, cli_config());
    if (!rc && !json_array_size(arts))
        rc = up_error_set(err, UP_ENOTFOUND, "'%s': no artifact for case %ld%s",
                          path.data, kase,
                          nkeys ? " from the models asked for (-m)" : "");
    if (!rc)
        print_case(arts, id.data, kase, json);
    json_decref(arts);
    up_buf_release(&id);
    up_buf_release(&path);
    return rc;
}
