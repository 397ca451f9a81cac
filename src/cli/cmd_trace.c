/*
 * upskill trace summarize FILE: show what `generate --from FILE` would send
 * to the teacher: the detected format, the rendered trace within the
 * budget, and its size.  Skipped lines are warned about on stderr.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

static long budget = UP_TRACE_DEFAULT_BUDGET;
static int json;

static const struct opt opts[] = {
    {'b', "budget", OPT_INT, &budget, "TOKENS",
     "token budget, a token being ~4 bytes (default: 24000)"},
    {0, "json", OPT_FLAG, &json, NULL, "print JSON"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_trace_spec = {
    "trace summarize",
    "FILE",
    "show the trace text generate --from would send, and its size",
    "Reads Claude Code or Codex session JSONL, OpenAI or Anthropic message\n"
    "arrays, fast-agent history JSON, or Markdown/text; see docs/traces.md.",
    opts,
    1,
    1};

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: upskill trace <subcommand> [options]\n\n"
            "subcommands:\n"
            "  summarize FILE   %s\n\n"
            "Run 'upskill trace summarize --help' for its options.\n",
            cmd_trace_spec.summary);
}

static void print_text(const up_trace *t, const up_buf *text,
                       const up_trace_stats *st)
{
    printf("%sTrace: %s (%s)%s\n\n", out_c(C_DIM), out_safe(t->name),
           up_trace_format_name(t->format), out_c(C_RESET));
    out_text(stdout, text->data);
    printf("\n%s~%zu tokens, %zu of %zu events kept%s (budget %zu; ~%zu "
           "tokens before fitting)\n",
           out_c(C_BOLD), st->tokens_after, st->events_kept, st->events_total,
           out_c(C_RESET), st->budget_tokens, st->tokens_before);
}

static void print_json(const up_trace *t, const up_buf *text,
                       const up_trace_stats *st)
{
    json_t *w = json_array();
    json_t *o;

    for (size_t i = 0; i < t->nwarnings; i++)
        json_array_append_new(w, json_string(t->warnings[i]));
    o = json_pack(
        "{s:o?, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:s%}", "file",
        json_string(t->name), "format", up_trace_format_name(t->format),
        "budget_tokens", (json_int_t)st->budget_tokens, "tokens",
        (json_int_t)st->tokens_after, "tokens_before",
        (json_int_t)st->tokens_before, "events", (json_int_t)st->events_total,
        "events_kept", (json_int_t)st->events_kept, "events_dropped",
        (json_int_t)st->events_dropped, "events_shrunk",
        (json_int_t)st->events_shrunk, "warnings", w, "text", text->data,
        text->len);
    if (o)
        out_json(o);
    json_decref(o);
}

static int summarize(int argc, char **argv)
{
    char **args = NULL;
    int nargs, rc = opt_parse(&cmd_trace_spec, argc, argv, &args, &nargs);
    up_trace t;
    up_buf text = UP_BUF_INIT;
    up_trace_stats st;
    up_error err;

    up_trace_init(&t);
    if (rc) {
        rc = rc < 0 ? EXIT_USAGE : EXIT_OK;
        goto out;
    }
    rc = up_trace_load(&t, args[0], &err);
    for (size_t i = 0; i < t.nwarnings; i++)
        out_warn("%s", t.warnings[i]);
    if (rc) {
        rc = out_fail(&err);
        goto out;
    }
    up_trace_render(&t, (size_t)budget, &text, &st);
    if (json)
        print_json(&t, &text, &st);
    else
        print_text(&t, &text, &st);
out:
    up_trace_release(&t);
    up_buf_release(&text);
    free(args);
    return rc;
}

int cmd_trace(int argc, char **argv)
{
    if (argc < 2) {
        out_error("trace: missing subcommand");
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "summarize")) {
        out_error("trace: unknown subcommand '%s'", argv[1]);
        usage(stderr);
        return EXIT_USAGE;
    }
    return summarize(argc - 1, argv + 1);
}
