/*
 * Agent traces: read a session log in one of several formats, normalise it
 * into a list of events, and render a compact text for the teacher model
 * that fits a token budget.
 *
 * Formats are detected by content (the file name is only a hint): Claude
 * Code session JSONL, Codex session JSONL, an OpenAI or Anthropic messages
 * array (JSON), fast-agent history JSON ({"messages": [...]}), and plain
 * Markdown or text.  Anything else is read as text with a warning.  A
 * malformed JSONL line becomes a warning naming its line and is skipped.
 *
 * Typical use:
 *
 *     up_trace t;
 *     up_buf text = UP_BUF_INIT;
 *     up_trace_stats st;
 *
 *     if (up_trace_load(&t, path, &err) == 0)
 *         up_trace_render(&t, UP_TRACE_DEFAULT_BUDGET, &text, &st);
 *     ... t.warnings[0 .. t.nwarnings) are for the user ...
 *     up_trace_release(&t);
 *     up_buf_release(&text);
 */
#ifndef UPSKILL_TRACE_H
#define UPSKILL_TRACE_H

#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/error.h"

/* Default budget of up_trace_render, in estimated tokens (chars / 4). */
#define UP_TRACE_DEFAULT_BUDGET 24000
/* Largest trace file up_trace_load reads. */
#define UP_TRACE_MAX_READ (128u * 1024u * 1024u)
/* At most this many warnings are kept; one more line counts the rest. */
#define UP_TRACE_MAX_WARNINGS 100

enum up_trace_format {
    UP_TRACE_TEXT = 0,     /* plain Markdown or text */
    UP_TRACE_CLAUDE_CODE,  /* Claude Code session JSONL */
    UP_TRACE_CODEX,        /* Codex session JSONL (or a response item array) */
    UP_TRACE_OPENAI,       /* OpenAI chat messages (JSON array or JSONL) */
    UP_TRACE_ANTHROPIC,    /* Anthropic messages (JSON array or JSONL) */
    UP_TRACE_FAST_AGENT,   /* fast-agent history JSON {"messages": [...]} */
    UP_TRACE_UNKNOWN_TEXT, /* not recognised, read as text (with a warning) */
    UP_TRACE_FORMAT_COUNT
};

enum up_trace_kind {
    UP_TEV_USER = 0,    /* a request from the user */
    UP_TEV_ASSISTANT,   /* the assistant's words: decisions, explanations */
    UP_TEV_THINKING,    /* the assistant's reasoning */
    UP_TEV_TOOL_CALL,   /* a tool call: name and arguments */
    UP_TEV_TOOL_RESULT, /* a tool's output */
    UP_TEV_TOOL_ERROR,  /* a tool's output that reports a failure */
    UP_TEV_TEXT,        /* anything else: system prompt, context, prose */
    UP_TEV_KIND_COUNT
};

typedef struct up_trace_event {
    enum up_trace_kind kind;
    char *name; /* tool name (calls, results when known), valid UTF-8;
                   for TEXT a label such as "System"; else NULL.  Owned */
    char *id;   /* tool call id linking calls and results, or NULL.  Owned */
    char *text; /* the content, valid UTF-8, never NULL.  Owned */
    long line;  /* 1-based line in the file where it starts; 0 unknown
                   (events of a whole-file JSON document) */
} up_trace_event;

typedef struct up_trace {
    char *name; /* the file name used in messages; owned */
    enum up_trace_format format;
    up_trace_event *events; /* in order of the conversation */
    size_t nevents;
    char **warnings; /* "'file':12: skipped: invalid JSON: ..." (owned);
                        the CLI prints them */
    size_t nwarnings;
    size_t nskipped; /* malformed lines skipped (may exceed nwarnings) */
    size_t events_cap, warnings_cap; /* private: allocated */
} up_trace;

/* Statistics of one up_trace_render. */
typedef struct up_trace_stats {
    size_t events_total;   /* events in the trace */
    size_t events_kept;    /* events present in the output */
    size_t events_dropped; /* events left out to fit the budget */
    size_t events_shrunk;  /* kept events whose text was shortened */
    size_t chars_before;   /* the render with nothing shortened or dropped */
    size_t chars_after;    /* bytes of the output */
    size_t tokens_before;  /* chars_before / 4, rounded up */
    size_t tokens_after;   /* chars_after / 4, rounded up */
    size_t budget_tokens;  /* the budget that applied */
} up_trace_stats;

/* An empty trace; up_trace_release frees what load/parse filled in. */
void up_trace_init(up_trace *t);
void up_trace_release(up_trace *t);

/*
 * Read the trace file at path into t (which is initialised here: pass a
 * fresh or released one) and detect its format.  Malformed lines become
 * warnings, never errors.  Errors: UP_ENOTFOUND when missing, UP_EPARSE for
 * a folder or a trace with nothing in it, UP_ETOOBIG over
 * UP_TRACE_MAX_READ, UP_EIO; messages name the path.  Call
 * up_trace_release(t) afterwards in every case.
 */
int up_trace_load(up_trace *t, const char *path, up_error *err);

/*
 * As up_trace_load, from len bytes of text (need not be NUL-terminated);
 * name is used in messages and may hint the format by its extension.
 */
int up_trace_parse(up_trace *t, const char *text, size_t len, const char *name,
                   up_error *err);

/*
 * Append to out a compact text of t for the teacher model ("## User",
 * "## Assistant", "### Tool call NAME", "### Tool error NAME", ...), fit
 * to budget_tokens (0 means UP_TRACE_DEFAULT_BUDGET), estimating tokens
 * as bytes / 4.  Long tool outputs keep their first and last lines;
 * reasoning is cut short.  To fit, events in the middle are dropped
 * first, least useful kinds first (reasoning, tool output, tool calls,
 * prose, assistant, user), while the first user request, the end of the
 * trace and every tool error with the turns that follow it are kept.
 * The added text never exceeds budget_tokens * 4 bytes.  st may be NULL.
 */
void up_trace_render(const up_trace *t, size_t budget_tokens, up_buf *out,
                     up_trace_stats *st);

/* "claude-code", "codex", "openai", "anthropic", "fast-agent", "text",
 * "unknown". */
const char *up_trace_format_name(enum up_trace_format f);
/* "user", "assistant", "thinking", "tool_call", "tool_result",
 * "tool_error", "text". */
const char *up_trace_kind_name(enum up_trace_kind k);

#endif
